"""Hold'em Dice as a Game: antes, pockets from the bag, four betting rounds, showdown."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from dicehall.engine.chance import ChanceRequest, Draw, Outcome, Roll
from dicehall.engine.game import Chance, Finished, Game, Result, Standing, ToAct, Turn
from dicehall.games.holdem import betting
from dicehall.games.holdem.dice import bag_after, make
from dicehall.games.holdem.model import (
    ANTE,
    MAX_RAISES,
    STREET_DICE,
    AllIn,
    Bet,
    Call,
    Check,
    Fold,
    HoldemAction,
    HoldemOptions,
    HoldemState,
    HoldemView,
    Raise,
    Street,
)
from dicehall.games.holdem.pots import pots_from
from dicehall.games.holdem.showdown import settle

_NEXT_STREET: dict[str, Street] = {"open": "flop", "flop": "turn", "turn": "river"}


def _set(values: tuple[int, ...], seat: int, value: int) -> tuple[int, ...]:
    return (*values[:seat], value, *values[seat + 1 :])


def _flag(values: tuple[bool, ...], seat: int, value: bool) -> tuple[bool, ...]:
    return (*values[:seat], value, *values[seat + 1 :])


def _next_live(out: tuple[bool, ...], after: int) -> int:
    seats = len(out)
    for step in range(1, seats + 1):
        seat = (after + step) % seats
        if not out[seat]:
            return seat
    raise AssertionError("no seat is left in the game")  # pragma: no cover


class Holdem(Game[HoldemState, HoldemAction, HoldemOptions, HoldemView]):
    """Hold'em Dice for 2 to 6 seats, exactly as RULES.md section 4 settles it."""

    name = "holdem"
    title = "Hold'em Dice"
    min_seats = 2
    max_seats = 6
    options_type = HoldemOptions
    state_type = HoldemState
    view_type = HoldemView
    action_type = HoldemAction
    hidden_information = True
    turn_noun = "hand"

    # -- the contract ------------------------------------------------------------------------

    def start(self, seats: int, options: HoldemOptions) -> HoldemState:
        """Equal stacks; seat 1 deals the first hand, and its antes are posted."""
        self.check_seats(seats)
        state = HoldemState(
            options=options,
            stacks=(options.stack,) * seats,
            out=(False,) * seats,
            dealer=0,
            hand=0,
            stage="pocket_colours",
            street="open",
            contributions=(0,) * seats,
            round_bets=(0,) * seats,
            folded=(False,) * seats,
            acted=(False,) * seats,
            raises=0,
            to_act=None,
            pockets=((),) * seats,
            board=(),
            drawn=(),
            dealing=None,
            rerolls=0,
            last=None,
            winners=(),
        )
        return self._new_hand(state, 0)

    def standing(self, state: HoldemState) -> Standing:
        """Each seat's score so far and the hand being played."""
        return Standing(state.stacks, max(1, state.hand))

    def turn(self, state: HoldemState) -> Turn:
        """A seat to bet, dice to draw or roll, or the end of the game."""
        stage = state.stage
        if stage == "over":
            return Finished(Result(state.winners, state.stacks, state.hand))
        if stage == "betting":
            assert state.to_act is not None
            return ToAct(state.to_act)
        if stage == "pocket_colours":
            return Chance(Draw(2, self.bag(state)))
        if stage == "board_colours":
            return Chance(Draw(STREET_DICE[state.street], self.bag(state)))
        if stage == "reroll":
            return Chance(Roll(len(state.board)))
        return Chance(Roll(len(state.drawn)))

    def legal(self, state: HoldemState, seat: int) -> Sequence[HoldemAction]:
        """Every action ``seat`` may take now, with every legal amount."""
        return betting.legal_actions(state, seat)

    def why_illegal(self, state: HoldemState, seat: int, action: HoldemAction) -> str:
        """Why ``action`` is refused, in words a player can act on."""
        return betting.why_illegal(state, seat, action)

    def apply(self, state: HoldemState, seat: int, action: HoldemAction) -> HoldemState:
        """Apply a legal betting action."""
        acted = _flag(state.acted, seat, True)
        if isinstance(action, Fold):
            state = replace(state, folded=_flag(state.folded, seat, True), acted=acted)
            live = [s for s in range(len(state.stacks)) if betting.in_hand(state, s)]
            if len(live) == 1:
                return self._end_hand(state)
            return self._after_action(state, seat)
        if isinstance(action, Check):
            return self._after_action(replace(state, acted=acted), seat)
        owed = betting.to_call(state, seat)
        if isinstance(action, Call):
            chips = owed
        elif isinstance(action, AllIn):
            chips = state.stacks[seat]
        elif isinstance(action, Bet):
            chips = action.amount
        else:
            assert isinstance(action, Raise)
            chips = owed + action.amount
        if isinstance(action, Bet | Raise):
            # A bet or raise reopens the action: everyone else must answer it.
            acted = tuple(s == seat for s in range(len(state.stacks)))
        state = replace(
            state,
            stacks=_set(state.stacks, seat, state.stacks[seat] - chips),
            contributions=_set(state.contributions, seat, state.contributions[seat] + chips),
            round_bets=_set(state.round_bets, seat, state.round_bets[seat] + chips),
            acted=acted,
            raises=state.raises + (1 if isinstance(action, Raise) else 0),
        )
        return self._after_action(state, seat)

    def apply_outcome(
        self, state: HoldemState, request: ChanceRequest, outcome: Outcome
    ) -> HoldemState:
        """Apply drawn colours or rolled faces."""
        stage = state.stage
        if stage in ("pocket_colours", "board_colours"):
            colours = tuple(str(c) for c in outcome)
            return replace(
                state,
                stage="pocket_faces" if stage == "pocket_colours" else "board_faces",
                drawn=colours,
            )
        faces = tuple(int(f) for f in outcome)
        if stage == "reroll":
            board = tuple(make(f, d[1]) for f, d in zip(faces, state.board, strict=True))
            return self._start_round(replace(state, board=board, rerolls=state.rerolls + 1), "flop")
        dice = tuple(make(f, c) for f, c in zip(faces, state.drawn, strict=True))
        if stage == "pocket_faces":
            dealing = state.dealing
            assert dealing is not None
            pockets = (*state.pockets[:dealing], dice, *state.pockets[dealing + 1 :])
            state = replace(state, pockets=pockets, drawn=())
            if dealing == state.dealer:
                return self._start_round(replace(state, dealing=None), "open")
            return replace(state, stage="pocket_colours", dealing=_next_live(state.out, dealing))
        return self._start_round(replace(state, board=state.board + dice, drawn=()), state.street)

    def view(self, state: HoldemState, seat: int | None) -> HoldemView:
        """The table as ``seat`` sees it: its own pocket only; a spectator sees none."""
        pocket = state.pockets[seat] if seat is not None else ()
        owed = betting.to_call(state, seat) if seat is not None and state.stage == "betting" else 0
        not_in = tuple(o or f for o, f in zip(state.out, state.folded, strict=True))
        return HoldemView(
            seat=seat,
            hand=state.hand,
            dealer=state.dealer,
            stage=state.stage,
            street=state.street,
            stacks=state.stacks,
            out=state.out,
            folded=state.folded,
            contributions=state.contributions,
            round_bets=state.round_bets,
            board=state.board,
            pocket=pocket,
            to_act=state.to_act,
            to_call=owed,
            raises=state.raises,
            limit=betting.limit(state),
            max_raises=MAX_RAISES,
            pots=pots_from(state.contributions, not_in, state.stacks),
            rerolls=state.rerolls,
            max_flop_rerolls=state.options.max_flop_rerolls,
            last=state.last,
            winners=state.winners,
        )

    # -- helpers -----------------------------------------------------------------------------

    @staticmethod
    def bag(state: HoldemState) -> tuple[str, ...]:
        """The colours still in the bag (every pocket and board die, and any drawn, are out)."""
        taken = [d for pocket in state.pockets for d in pocket]
        return bag_after([*taken, *state.board, *state.drawn])

    def _new_hand(self, state: HoldemState, dealer: int) -> HoldemState:
        seats = len(state.stacks)
        antes = tuple(0 if state.out[s] else min(ANTE, state.stacks[s]) for s in range(seats))
        return replace(
            state,
            stacks=tuple(st - a for st, a in zip(state.stacks, antes, strict=True)),
            dealer=dealer,
            hand=state.hand + 1,
            stage="pocket_colours",
            street="open",
            contributions=antes,
            round_bets=(0,) * seats,
            folded=(False,) * seats,
            acted=(False,) * seats,
            raises=0,
            to_act=None,
            pockets=((),) * seats,
            board=(),
            drawn=(),
            dealing=_next_live(state.out, dealer),
            rerolls=0,
        )

    def _start_round(self, state: HoldemState, street: Street) -> HoldemState:
        seats = len(state.stacks)
        state = replace(
            state,
            stage="betting",
            street=street,
            round_bets=(0,) * seats,
            acted=(False,) * seats,
            raises=0,
            to_act=None,
        )
        first = betting.next_to_act(state, state.dealer)
        if first is None:
            return self._end_round(state)
        return replace(state, to_act=first)

    def _after_action(self, state: HoldemState, seat: int) -> HoldemState:
        following = betting.next_to_act(state, seat)
        if following is None:
            return self._end_round(state)
        return replace(state, to_act=following)

    def _end_round(self, state: HoldemState) -> HoldemState:
        state = replace(state, to_act=None)
        cap = state.options.max_flop_rerolls
        if (
            state.street == "flop"
            and betting.to_match(state) == 0
            and betting.able_count(state) >= 2
            and (cap is None or state.rerolls < cap)
        ):
            return replace(state, stage="reroll")
        if state.street == "river":
            return self._end_hand(state)
        return replace(state, stage="board_colours", street=_NEXT_STREET[state.street])

    def _end_hand(self, state: HoldemState) -> HoldemState:
        record, flush_winners = settle(state)
        seats = len(state.stacks)
        stacks = tuple(st + w for st, w in zip(state.stacks, record.won, strict=True))
        eliminated = tuple(s for s in range(seats) if not state.out[s] and stacks[s] == 0)
        out = tuple(state.out[s] or stacks[s] == 0 for s in range(seats))
        record = replace(record, eliminated=eliminated)
        state = replace(
            state,
            stacks=stacks,
            out=out,
            contributions=(0,) * seats,
            round_bets=(0,) * seats,
            to_act=None,
            last=record,
        )
        live = [s for s in range(seats) if not out[s]]
        if flush_winners or len(live) == 1:
            winners = flush_winners or (live[0],)
            return replace(state, stage="over", winners=winners)
        return self._new_hand(state, _next_live(out, state.dealer))


GAME = Holdem()
"""The Hold'em Dice game."""
