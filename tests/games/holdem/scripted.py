"""Scripted Hold'em Dice hands for the tests: chosen dice, chosen moves."""

from __future__ import annotations

from dataclasses import replace

from dicehall.engine import Chance, Draw, Roll, Table, ToAct
from dicehall.games.holdem.dice import parse_dice
from dicehall.games.holdem.model import HoldemAction, HoldemState
from dicehall.games.holdem.rules import GAME


class ScriptedHand:
    """A table whose dice the test chooses, die by die, in notation."""

    def __init__(self, seats: int, **options: object) -> None:
        self.table: Table[HoldemState, HoldemAction] = Table(GAME, seats, GAME.options(options))

    @property
    def state(self) -> HoldemState:
        """The current state."""
        return self.table.state

    def set_stacks(self, *stacks: int) -> None:
        """Give seats different stacks (after antes) before the pockets are dealt."""
        self.table.state = replace(self.table.state, stacks=tuple(stacks))

    def dice(self, text: str) -> None:
        """Answer a pending draw and its roll with exactly these dice."""
        dice = parse_dice(text)
        turn = self.table.turn()
        assert isinstance(turn, Chance) and isinstance(turn.request, Draw), turn
        self.table.resolve(tuple(d[1] for d in dice))
        turn = self.table.turn()
        assert isinstance(turn, Chance) and isinstance(turn.request, Roll), turn
        self.table.resolve(tuple(int(d[0]) for d in dice))

    def pockets(self, **by_seat: str) -> None:
        """Deal pockets, given as ``s0="6r,6k"``, in whatever order the game deals them."""
        while self.state.stage == "pocket_colours":
            seat = self.state.dealing
            assert seat is not None
            self.dice(by_seat[f"s{seat}"])

    def reroll(self, faces: tuple[int, ...]) -> None:
        """Answer a flop re-roll with these faces."""
        turn = self.table.turn()
        assert isinstance(turn, Chance) and turn.request == Roll(3), turn
        self.table.resolve(faces)

    def act(self, seat: int, action: HoldemAction) -> None:
        """Seat ``seat`` takes ``action`` (it must be that seat's turn)."""
        assert self.table.turn() == ToAct(seat), (self.table.turn(), seat)
        self.table.act(seat, action)
