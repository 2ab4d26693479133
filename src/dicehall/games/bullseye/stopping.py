"""Optimal stopping for a seat trying to match the Bull's Eye, exactly.

A position is the Bull's Eye, the seat's total so far and the throws it has taken (0 to 3).
Stopping scores the band of the distance at once; throwing on adds a counted throw of one die
fewer (3, 2, then 1 dice). Values are expected points under best play afterwards, as
fractions; on equal values the seat stops.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Literal

from dicehall.engine.errors import InvalidInput
from dicehall.games.bullseye.odds import target_distribution
from dicehall.games.bullseye.scoring import DICE, THROWS, round_score
from dicehall.games.bullseye.throws import sum_distribution

Choice = Literal["stop", "throw"]


@dataclass(frozen=True, slots=True)
class Hint:
    """Expected points of each choice (None where not allowed) and the better one."""

    target: int
    total: int
    throws: int
    stop: Fraction | None
    throw: Fraction | None
    best: Choice


@cache
def reachable_totals(throws: int) -> frozenset[int]:
    """Every total a seat can have after ``throws`` counted throws."""
    if not 0 <= throws <= THROWS:
        raise ValueError("throws must be 0 to 3")
    totals = frozenset({0})
    for taken in range(throws):
        adds = sum_distribution(DICE - taken)
        totals = frozenset(t + a for t in totals for a in adds)
    return totals


def check_position(target: int, total: int, throws: int) -> None:
    """Raise InvalidInput, with the reason, unless the position can arise in a game."""
    targets = target_distribution()
    if target not in targets:
        raise InvalidInput(f"a Bull's Eye is {min(targets)} to {max(targets)}, not {target}")
    if not 0 <= throws <= THROWS:
        raise InvalidInput(f"throws taken must be 0 to {THROWS}, not {throws}")
    totals = reachable_totals(throws)
    if total not in totals:
        if throws == 0:
            raise InvalidInput(f"before the first throw the total is 0, not {total}")
        raise InvalidInput(
            f"a total of {total} is impossible after {throws} throw{'s' * (throws > 1)} "
            f"({min(totals)} to {max(totals)})"
        )


@cache
def value(target: int, total: int, throws: int) -> Fraction:
    """Expected points from this position under best play."""
    choice = hint(target, total, throws)
    return max(v for v in (choice.stop, choice.throw) if v is not None)


@cache
def hint(target: int, total: int, throws: int) -> Hint:
    """Both choices in a position with their expected points under best play afterwards."""
    check_position(target, total, throws)
    stop = round_score(total, target) if throws else None
    throw: Fraction | None = None
    if throws < THROWS:
        throw = sum(
            (p * value(target, total + add, throws + 1) for add, p in _adds(throws).items()),
            Fraction(0),
        )
    if stop is None:
        return Hint(target, total, throws, None, throw, "throw")
    best: Choice = "throw" if throw is not None and throw > stop else "stop"
    return Hint(target, total, throws, Fraction(stop), throw, best)


def best_choice(target: int, total: int, throws: int) -> Choice:
    """The choice with the higher expected points (stop on equal values)."""
    return hint(target, total, throws).best


@cache
def score_distribution(
    target: int, total: int, throws: int, first: Choice | None = None
) -> dict[int, Fraction]:
    """P(the round score is each value) playing best from here, after ``first`` if given."""
    choice = first or best_choice(target, total, throws)
    if choice == "stop":
        if throws == 0:
            raise InvalidInput("a seat cannot stop before its first throw counts")
        return {round_score(total, target): Fraction(1)}
    if throws >= THROWS:
        raise InvalidInput("after the third throw a seat must stop")
    out: dict[int, Fraction] = {}
    for add, p in _adds(throws).items():
        for score, q in score_distribution(target, total + add, throws + 1).items():
            out[score] = out.get(score, Fraction(0)) + p * q
    return dict(sorted(out.items()))


def turn_value() -> Fraction:
    """Expected points of a non-lead turn played best, before the Bull's Eye is known."""
    return sum(
        (p * value(t, 0, 0) for t, p in target_distribution().items()),
        Fraction(0),
    )


def _adds(throws: int) -> dict[int, Fraction]:
    return sum_distribution(DICE - throws)
