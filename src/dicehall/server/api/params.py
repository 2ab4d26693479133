"""Path parameters shared by routes: database ids, bounded to what every database can store.

An id column is a 32-bit integer on PostgreSQL (64-bit on SQLite), so a larger number in a
path can match no row; bounding it here turns it into a 422 instead of a driver overflow
(a 500). Use ``GameId``, ``BatchId``, ``TokenId`` or ``DbId`` as a route parameter's type.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Path

from dicehall.server.core.ids import DB_ID_MAX, in_id_range


def db_id(what: str) -> Any:
    """A ``Path`` marker for the id of ``what`` (a positive id no table can exceed)."""
    return Path(ge=1, le=DB_ID_MAX, description=f"The {what}'s id (1 to {DB_ID_MAX}).")


#: Any stored row's id in a path.
DbId = Annotated[int, db_id("row")]
#: A game's id in a path.
GameId = Annotated[int, db_id("game")]
#: A dice batch's id in a path.
BatchId = Annotated[int, db_id("dice batch")]
#: An API token's id in a path.
TokenId = Annotated[int, db_id("API token")]

__all__ = ["DB_ID_MAX", "BatchId", "DbId", "GameId", "TokenId", "db_id", "in_id_range"]
