"""Chance requests a game asks its driver to resolve, and their validation."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from dicehall.engine.errors import InvalidOutcome


@dataclass(frozen=True, slots=True)
class Roll:
    """Roll ``count`` fair dice with faces 1..``sides``; the outcome is the faces in order."""

    count: int
    sides: int = 6


@dataclass(frozen=True, slots=True)
class Draw:
    """Draw ``count`` items without replacement from ``population`` (a multiset).

    The outcome is the drawn items in the order drawn.
    """

    count: int
    population: tuple[str, ...]


ChanceRequest = Roll | Draw
Outcome = tuple[int, ...] | tuple[str, ...]


def check_outcome(request: ChanceRequest, outcome: Outcome) -> None:
    """Raise :class:`InvalidOutcome` unless ``outcome`` answers ``request``."""
    if not isinstance(outcome, tuple):
        raise InvalidOutcome(f"an outcome must be a tuple, not {type(outcome).__name__}")
    if len(outcome) != request.count:
        raise InvalidOutcome(f"expected {request.count} results, got {len(outcome)}")
    if isinstance(request, Roll):
        for face in outcome:
            if isinstance(face, bool) or not isinstance(face, int):
                raise InvalidOutcome(f"a die face must be a whole number, not {face!r}")
            if not 1 <= face <= request.sides:
                raise InvalidOutcome(f"a die face must be 1..{request.sides}, not {face}")
        return
    available = Counter(request.population)
    drawn = Counter(outcome)
    for item, count in drawn.items():
        if not isinstance(item, str):
            raise InvalidOutcome(f"a drawn item must be text, not {item!r}")
        if count > available[item]:
            raise InvalidOutcome(f"{item!r} drawn {count} times but only {available[item]} left")


def chosen_faces(dice: object) -> object:
    """A player's choice of dice as an action keeps it: whole-number faces ascending; any
    other list or tuple as a tuple as sent; anything else as sent. A malformed choice is
    thus kept for the game's ``act`` to refuse with ``IllegalMove`` and a sentence, as every
    game refuses a malformed move, instead of failing when the action is built."""
    if not isinstance(dice, tuple | list):
        return dice
    faces = tuple(dice)
    if all(type(face) is int for face in faces):
        return tuple(sorted(faces))
    return faces
