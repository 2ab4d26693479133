"""Boatzee, Double and Triple Boatzee (and the official Yahtzee rules) on the Game contract."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import combinations

from dicehall.engine.chance import ChanceRequest, Outcome, Roll
from dicehall.engine.errors import InvalidOptions
from dicehall.engine.game import Chance, Finished, Game, Result, ToAct, Turn
from dicehall.games.boatzee.card import (
    Card,
    Ruleset,
    allowed,
    empty_card,
    fill,
    total,
    why_not_allowed,
)
from dicehall.games.boatzee.scoring import BOXES, Box

DICE = 5
ROLLS_PER_TURN = 3
RULESETS: tuple[Ruleset, ...] = ("boatzee", "yahtzee")
_VARIANTS = {1: "Boatzee", 2: "Double Boatzee", 3: "Triple Boatzee"}


@dataclass(frozen=True, slots=True)
class BoatzeeOptions:
    """``columns``: 1, 2 or 3 (Boatzee, Double, Triple); ``ruleset``: boatzee or yahtzee."""

    columns: int = 1
    ruleset: Ruleset = "boatzee"

    def __post_init__(self) -> None:
        if isinstance(self.columns, bool) or self.columns not in (1, 2, 3):
            raise InvalidOptions(
                f"option 'columns' must be 1, 2 or 3 (Boatzee, Double, Triple), "
                f"not {self.columns!r}"
            )
        if self.ruleset not in RULESETS:
            raise InvalidOptions(
                f"option 'ruleset' must be boatzee or yahtzee, not {self.ruleset!r}"
            )


def variant_title(options: BoatzeeOptions) -> str:
    """The name of the variant being played, e.g. ``Triple Boatzee (yahtzee rules)``."""
    title = _VARIANTS[options.columns]
    return title if options.ruleset == "boatzee" else f"{title} (yahtzee rules)"


@dataclass(frozen=True, slots=True)
class Reroll:
    """Re-roll the dice at these 0-based positions: at least one, each once, increasing.

    The other dice keep their positions. A re-roll is final the moment it is made.
    """

    positions: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Score:
    """Score the current dice in ``box`` of ``column`` (1-based), ending the turn."""

    box: Box
    column: int = 1


BoatzeeAction = Reroll | Score

#: Every legal re-roll, in a fixed order: all non-empty sets of positions.
REROLLS: tuple[Reroll, ...] = tuple(
    Reroll(positions)
    for size in range(1, DICE + 1)
    for positions in combinations(range(DICE), size)
)

_SCORES: dict[tuple[Box, int], Score] = {
    (box, column): Score(box, column) for box in BOXES for column in (1, 2, 3)
}


@dataclass(frozen=True, slots=True)
class BoatzeeState:
    """The whole game.

    ``rolls`` counts the rolls made or asked for this turn (0 until the first roll); the
    positions in ``rerolling`` are waiting for new faces. ``turns`` counts finished turns.
    """

    options: BoatzeeOptions
    cards: tuple[Card, ...]
    current: int = 0
    dice: tuple[int, ...] = ()
    rolls: int = 0
    rerolling: tuple[int, ...] = ()
    turns: int = 0


@dataclass(frozen=True, slots=True)
class BoatzeeView:
    """What a seat sees: everything, since Boatzee has no hidden dice."""

    seat: int | None
    options: BoatzeeOptions
    cards: tuple[Card, ...]
    totals: tuple[int, ...]
    current: int
    dice: tuple[int, ...]
    rerolls_left: int
    rerolling: tuple[int, ...]
    turns: int
    finished: bool


def _turns_in_game(state: BoatzeeState) -> int:
    return len(state.cards) * len(BOXES) * state.options.columns


class Boatzee(Game[BoatzeeState, BoatzeeAction, BoatzeeOptions, BoatzeeView]):
    """Boatzee: five dice, three rolls a turn, one box filled every turn."""

    name = "boatzee"
    title = "Boatzee"
    min_seats = 1
    max_seats = 8
    options_type = BoatzeeOptions
    state_type = BoatzeeState
    view_type = BoatzeeView
    action_type = BoatzeeAction

    def start(self, seats: int, options: BoatzeeOptions) -> BoatzeeState:
        self.check_seats(seats)
        if not isinstance(options, BoatzeeOptions):
            raise InvalidOptions("Boatzee needs BoatzeeOptions")
        return BoatzeeState(options, tuple(empty_card(options.columns) for _ in range(seats)))

    def turn(self, state: BoatzeeState) -> Turn:
        if state.turns >= _turns_in_game(state):
            totals = tuple(total(card) for card in state.cards)
            best = max(totals)
            winners = tuple(i for i, t in enumerate(totals) if t == best)
            return Finished(Result(winners, totals, state.turns))
        if state.rolls == 0:
            return Chance(Roll(DICE))
        if state.rerolling:
            return Chance(Roll(len(state.rerolling)))
        return ToAct(state.current)

    def legal(self, state: BoatzeeState, seat: int) -> Sequence[BoatzeeAction]:
        if (
            seat != state.current
            or state.rolls == 0
            or state.rerolling
            or state.turns >= _turns_in_game(state)
        ):
            return ()
        card = state.cards[seat]
        scores: list[BoatzeeAction] = [
            _SCORES[choice] for choice in allowed(card, state.dice, state.options.ruleset)
        ]
        if state.rolls < ROLLS_PER_TURN:
            scores.extend(REROLLS)
        return scores

    def why_illegal(self, state: BoatzeeState, seat: int, action: BoatzeeAction) -> str:
        if isinstance(action, Reroll):
            if state.rolls >= ROLLS_PER_TURN:
                return "no re-rolls left: you have rolled three times, so score a box"
            positions = action.positions
            if not isinstance(positions, tuple) or not positions:
                return "choose at least one die to re-roll"
            if (
                any(isinstance(p, bool) or not isinstance(p, int) for p in positions)
                or any(not 0 <= p < DICE for p in positions)
                or list(positions) != sorted(set(positions))
            ):
                return (
                    f"re-roll positions must be 0 to {DICE - 1}, each at most once, "
                    f"in increasing order, not {positions!r}"
                )
        elif isinstance(action, Score):
            reason = why_not_allowed(
                state.cards[seat], state.dice, state.options.ruleset, action.box, action.column
            )
            if reason is not None:
                return reason
        else:
            return f"{action!r} is not a Boatzee move: re-roll some dice or score a box"
        return super().why_illegal(state, seat, action)  # pragma: no cover - all cases above

    def apply(self, state: BoatzeeState, seat: int, action: BoatzeeAction) -> BoatzeeState:
        if isinstance(action, Reroll):
            return replace(state, rolls=state.rolls + 1, rerolling=action.positions)
        card = fill(state.cards[seat], state.dice, state.options.ruleset, action.box, action.column)
        cards = (*state.cards[:seat], card, *state.cards[seat + 1 :])
        return replace(
            state,
            cards=cards,
            current=(seat + 1) % len(cards),
            dice=(),
            rolls=0,
            turns=state.turns + 1,
        )

    def apply_outcome(
        self, state: BoatzeeState, request: ChanceRequest, outcome: Outcome
    ) -> BoatzeeState:
        faces = tuple(int(f) for f in outcome)
        if state.rolls == 0:
            return replace(state, dice=faces, rolls=1)
        dice = list(state.dice)
        for position, face in zip(state.rerolling, faces, strict=True):
            dice[position] = face
        return replace(state, dice=tuple(dice), rerolling=())

    def view(self, state: BoatzeeState, seat: int | None) -> BoatzeeView:
        return BoatzeeView(
            seat=seat,
            options=state.options,
            cards=state.cards,
            totals=tuple(total(card) for card in state.cards),
            current=state.current,
            dice=state.dice,
            rerolls_left=ROLLS_PER_TURN - max(state.rolls, 1),
            rerolling=state.rerolling,
            turns=state.turns,
            finished=state.turns >= _turns_in_game(state),
        )


GAME = Boatzee()
