"""Boss Dice's measure of luck, **sum of faces**: the faces a player's own roll shows, added
up, against 3.5 a die (variance 35/12 a die)."""

from __future__ import annotations

from dicehall.games.boss.rules import BossState
from dicehall.games.luck import SUM_OF_FACES, LuckMeasure, sum_of_faces


def roller(state: BossState) -> int | None:
    """Whose roll is pending: each player's first roll, then the Boss's and his opponent's."""
    if state.phase == "first_roll":
        return len(state.first_rolls)
    if state.boss is None:
        return None
    return int(state.boss) if state.phase == "boss_roll" else 1 - int(state.boss)


MEASURE = LuckMeasure(SUM_OF_FACES, roller, sum_of_faces)
