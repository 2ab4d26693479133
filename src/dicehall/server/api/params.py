"""Values shared by routes, typed as strictly as the schema states them.

Ids: an id column is a 32-bit integer on PostgreSQL (64-bit on SQLite), so a larger number
can match no row; bounding it here turns it into a 422 instead of a driver overflow (a 500).
Use ``GameId``, ``BatchId``, ``TokenId`` or ``DbId`` as a path parameter's type (or
``Annotated[int, db_id(what), Digits]``), ``QueryId`` for an id in a query, and ``BodyId``
for an id in a JSON body.

Numbers and booleans: pydantic would read ``true`` as 1, ``1.0`` or ``"1"`` as an integer
and ``1`` or ``"yes"`` as true, none of which the schema allows, so a JSON body's integers
are ``StrictInt`` (or ``BodyId``) and its booleans ``StrictBool``; a path's or query's text
is a whole number only as digits (``Digits``: not ``1.0``, ``+1``, `` 1`` or ``1_0``).

Values known only when the site runs (the installed games) get their enum in the schema
from :class:`RuntimeEnum`, read when the schema is made.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Annotated, Any

from fastapi import Path, Query
from pydantic import BeforeValidator, Field, GetJsonSchemaHandler, StrictBool, StrictInt
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema

from dicehall import games
from dicehall.server.core.ids import DB_ID_MAX, in_id_range

_WHOLE = re.compile(r"-?[0-9]+")


def _digits(value: object) -> object:
    if isinstance(value, str) and not _WHOLE.fullmatch(value):
        raise ValueError("must be a whole number written in digits")
    return value


#: A path's or query's integer written as plain digits (an optional minus sign).
Digits = BeforeValidator(_digits)


def db_id(what: str) -> Any:
    """A ``Path`` marker for the id of ``what`` (a positive id no table can exceed)."""
    return Path(ge=1, le=DB_ID_MAX, description=f"The {what}'s id (1 to {DB_ID_MAX}).")


#: Any stored row's id in a path.
DbId = Annotated[int, db_id("row"), Digits]
#: A game's id in a path.
GameId = Annotated[int, db_id("game"), Digits]
#: A dice batch's id in a path.
BatchId = Annotated[int, db_id("dice batch"), Digits]
#: An API token's id in a path.
TokenId = Annotated[int, db_id("API token"), Digits]
#: An id in a query (``before``, ``skip``...), left out by default.
QueryId = Annotated[int | None, Query(ge=1, le=DB_ID_MAX), Digits]
#: A stored row's id in a JSON body: a JSON integer (not ``true``, ``1.0`` or ``"1"``).
BodyId = Annotated[StrictInt, Field(ge=1, le=DB_ID_MAX)]


class RuntimeEnum:
    """Annotation: the schema lists ``values()`` as the field's enum, read each time a
    schema is made (the values are validated by the route, with its own sentence)."""

    def __init__(self, values: Callable[[], Iterable[str]]) -> None:
        self.values = values

    def __get_pydantic_json_schema__(
        self, core_schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        schema = handler(core_schema)
        schema["enum"] = list(self.values())
        return schema


#: The name of an installed game (``tenthousand``...): an enum of the games this site runs.
GameName = Annotated[str, Field(max_length=30), RuntimeEnum(games.available)]

__all__ = [
    "DB_ID_MAX",
    "BatchId",
    "BodyId",
    "DbId",
    "Digits",
    "GameId",
    "GameName",
    "QueryId",
    "RuntimeEnum",
    "StrictBool",
    "StrictInt",
    "TokenId",
    "db_id",
    "in_id_range",
]
