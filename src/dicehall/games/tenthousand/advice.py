"""Hints: every choice after a roll (a set-aside, then bank or roll on) with its value.

Two measures: the chance to win a two-seat game under best play by both (from the exact
solution, :mod:`.duel`), or, alone, the points the turn is expected to bank (from the exact
one-turn tables, :mod:`.strategy`). An opponent at or past the target means the final round:
this is the seat's last turn and the chance is that of finishing above the opponent.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from dicehall.engine.errors import InvalidInput
from dicehall.games.tenthousand.cache import Solution
from dicehall.games.tenthousand.plans import TurnPlan
from dicehall.games.tenthousand.rules import DICE, TenThousandOptions
from dicehall.games.tenthousand.scoring import set_asides
from dicehall.games.tenthousand.strategy import STEP, turn_tables

Measure = Literal["win_probability", "expected_points"]


@dataclass(frozen=True)
class Choice:
    """Set ``keep`` aside for ``points``, then bank or roll ``dice_to_roll`` dice; its value."""

    keep: tuple[int, ...]
    points: int
    turn_total: int
    then: Literal["bank", "roll"]
    dice_to_roll: int
    value: float


@dataclass(frozen=True)
class Hint:
    """Every choice after ``roll``, best first (empty when the roll zeroes out)."""

    roll: tuple[int, ...]
    turn_total: int
    banked: int
    opponent: int | None
    measure: Measure
    last_turn: bool
    choices: tuple[Choice, ...]


def _check_total(value: int, what: str) -> None:
    if value < 0 or value % STEP:
        raise InvalidInput(f"{what} must be a multiple of {STEP} and at least 0, not {value}")


def check_position(
    roll: Sequence[int],
    turn_total: int,
    banked: int,
    options: TenThousandOptions,
    opponent: int | None = None,
) -> tuple[int, ...]:
    """The roll sorted, once the position is one a game can reach; else InvalidInput."""
    dice = tuple(sorted(roll))
    if not 1 <= len(dice) <= DICE or not all(1 <= d <= DICE for d in dice):
        raise InvalidInput(f"a roll is 1 to {DICE} dice showing 1 to 6, not {dice}")
    _check_total(turn_total, "the turn total")
    _check_total(banked, "the banked total")
    if len(dice) < DICE and turn_total == 0:
        raise InvalidInput(
            f"a roll of {len(dice)} dice comes after setting dice aside, "
            f"so the turn total must be at least {STEP}"
        )
    if banked >= options.target:
        raise InvalidInput(
            f"a banked total of {banked} has reached the target ({options.target}): "
            "that seat does not play again"
        )
    if opponent is not None:
        _check_total(opponent, "the opponent's banked total")
    return dice


class _Values(Protocol):
    """What banking and rolling on are worth, in one measure."""

    def bank(self, turn_total: int) -> float | None:
        """Banking ``turn_total``, or None when that is not allowed."""
        ...

    def roll(self, in_hand: int, turn_total: int) -> float:
        """Rolling ``in_hand`` dice at ``turn_total``."""
        ...


class _PlanValues:
    def __init__(self, plan: TurnPlan) -> None:
        self._plan = plan

    def bank(self, turn_total: int) -> float | None:
        return self._plan.bank_value(turn_total)

    def roll(self, in_hand: int, turn_total: int) -> float:
        return self._plan.roll_value(in_hand, turn_total)


class _ExpectedPoints:
    def __init__(self, options: TenThousandOptions, entered: bool) -> None:
        self._tables = turn_tables(options.entry_threshold, options.four_and_pair_is_three_pairs)
        self._entered = entered
        self._entry = options.entry_threshold

    def bank(self, turn_total: int) -> float | None:
        return float(turn_total) if self._entered or turn_total >= self._entry else None

    def roll(self, in_hand: int, turn_total: int) -> float:
        return self._tables.expected_if_rolling(in_hand, turn_total, self._entered)


def _choices(
    dice: tuple[int, ...], turn_total: int, options: TenThousandOptions, plan: _Values
) -> tuple[Choice, ...]:
    found: list[Choice] = []
    for keep, points in set_asides(dice, options.four_and_pair_is_three_pairs):
        total = turn_total + points
        left = len(dice) - len(keep) or DICE
        bank = plan.bank(total)
        if bank is not None:
            found.append(Choice(keep, points, total, "bank", left, bank))
        found.append(Choice(keep, points, total, "roll", left, plan.roll(left, total)))
    found.sort(key=lambda c: -c.value)
    return tuple(found)


def solo_hint(
    roll: Sequence[int], turn_total: int, banked: int, options: TenThousandOptions
) -> Hint:
    """Every choice valued by the points this turn is expected to bank, playing on for most."""
    dice = check_position(roll, turn_total, banked, options)
    values = _ExpectedPoints(options, banked > 0)
    choices = _choices(dice, turn_total, options, values)
    return Hint(dice, turn_total, banked, None, "expected_points", False, choices)


def duel_hint(
    roll: Sequence[int],
    turn_total: int,
    banked: int,
    opponent: int,
    options: TenThousandOptions,
    solved: Solution,
) -> Hint:
    """Every choice valued by the chance to win against one opponent, both playing best."""
    dice = check_position(roll, turn_total, banked, options, opponent)
    four_and_pair = options.four_and_pair_is_three_pairs
    reach = turn_total + max((p for _, p in set_asides(dice, four_and_pair)), default=0)
    last = opponent >= options.target
    if last:
        plan = solved.duel.last_turn_plan(banked, opponent, reach)
    else:
        plan = solved.duel.plan(banked, opponent, reach)
    choices = _choices(dice, turn_total, options, _PlanValues(plan))
    return Hint(dice, turn_total, banked, opponent, "win_probability", last, choices)
