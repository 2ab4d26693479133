"""Boatzee's measure of luck (every form), **Boatzees made by a roll**: five of a kind
straight after a roll, against its probability given the dice held (a roll that holds two
faces cannot make one)."""

from __future__ import annotations

from dicehall.games.boatzee.rules import BoatzeeState
from dicehall.games.luck import LuckMeasure, Seen, bernoulli


def boatzee_chance(held: tuple[int, ...]) -> float:
    """The chance a roll of the other dice makes five of a kind with ``held``."""
    if len(set(held)) > 1:
        return 0.0
    rolled = 5 - len(held)
    return (1 / 6) ** rolled * (6 if not held else 1)


def roller(state: BoatzeeState) -> int:
    """Every roll is the current card's."""
    return int(state.current)


def boatzee_made(state: BoatzeeState, faces: tuple[int, ...]) -> Seen:
    """Whether the roll made five of a kind, against the chance of that."""
    held = tuple(d for i, d in enumerate(state.dice) if i not in state.rerolling)
    final = held + faces
    return bernoulli(boatzee_chance(held), len(final) == 5 and len(set(final)) == 1)


MEASURE = LuckMeasure("Boatzees made by a roll", roller, boatzee_made)
