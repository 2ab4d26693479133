"""Tests' access to a game's seat hint by the game's name."""

from __future__ import annotations

from dicehall import games
from dicehall.games.entry import SeatHint


def hint_for(name: str) -> SeatHint | None:
    """The seat hint of game ``name`` (None when it has none)."""
    return games.get(name).seat_hint()
