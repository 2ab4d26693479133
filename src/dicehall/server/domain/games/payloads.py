"""The shapes the domain answers a game in, as typed dictionaries: mypy checks every place
that builds or reads them, and ``tests/server/test_payload_types.py`` holds them to the API's
response models (``api/schemas.py``: ``Game``, ``GameMove``) key for key."""

from __future__ import annotations

from typing import Any, TypedDict


class GamePayload(TypedDict):
    """A game as one user's seat sees it (a spectator's view for anyone else)."""

    id: int
    game: str
    title: str
    status: str
    version: int
    options: dict[str, Any]
    seats: list[dict[str, Any]]
    my_seat: int | None
    to_act: int | None
    your_turn: bool
    view: dict[str, Any] | None
    legal: list[dict[str, Any]]
    result: dict[str, Any] | None
    bot_turn: dict[str, Any] | None
    pace: dict[str, Any] | None
    clock: dict[str, Any] | None
    ranking: list[int] | None
    private: bool
    vacation: bool
    rating_kind: str | None
    ladder: bool
    ratings: dict[str, Any] | None


class MovePayload(GamePayload):
    """A game after the mover's move, or its replay (``replayed``)."""

    replayed: bool


def moved(payload: GamePayload, *, replayed: bool) -> MovePayload:
    """``payload`` as the answer to a move (``replayed``: a retry answered as it stands)."""
    return MovePayload(**payload, replayed=replayed)
