"""Bull's Eye's measure of luck, **sum of faces**: the faces a player's own throw shows,
added up, against 3.5 a die (variance 35/12 a die)."""

from __future__ import annotations

from dicehall.games.bullseye.model import BullseyeState
from dicehall.games.luck import SUM_OF_FACES, LuckMeasure, sum_of_faces


def roller(state: BullseyeState) -> int | None:
    """The round's thrower (no one while the lead is being chosen)."""
    rnd = state.round
    return None if state.lead_choice is not None or rnd is None else int(rnd.thrower)


MEASURE = LuckMeasure(SUM_OF_FACES, roller, sum_of_faces)
