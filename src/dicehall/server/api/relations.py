"""The relations API: my buddy and ignore lists, with a private note on each.

A buddy is one-way (``mutual`` says the other named me too); an ignore is never told to
its target, and works both ways at every meeting point (see ``domain.people.relations``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Query
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import Connection

from dicehall.server.api.deps import CurrentUser, ServicesDep
from dicehall.server.api.schemas import _Answer, _moment, errors
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.people import relations
from dicehall.server.domain.work import read, run_db, write
from dicehall.server.domain.write_rates import check_write_rate

router = APIRouter(prefix="/api/v1", tags=["people"])

UserIdPath = Annotated[str, Path(min_length=1, max_length=40, description="A user id.")]


class RelationOut(_Answer):
    """One of my relations."""

    user_id: str
    display_name: str
    kind: Literal["buddy", "ignore"]
    note: str = Field(description="My private note on them (only I see it).")
    mutual: bool = Field(description="A buddy who names me a buddy too (false for ignores).")
    since: str = _moment()


class RelationList(_Answer):
    """My relations, by user id."""

    relations: list[RelationOut]


class RelationIn(BaseModel):
    """What I say about a user."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["buddy", "ignore"] = Field(
        description="`buddy` (one-way; shown first on lists) or `ignore` (we never meet)."
    )
    note: str | None = Field(
        default=None,
        max_length=relations.NOTE_MOST,
        description="A private note (at most 200 characters); left out: keep the note.",
    )


@router.get(
    "/relations",
    operation_id="relations-list",
    response_model=RelationList,
    responses=errors(401, 422),
)
async def my_relations(
    user: CurrentUser,
    services: ServicesDep,
    kind: Annotated[Literal["buddy", "ignore"] | None, Query()] = None,
) -> dict[str, Any]:
    """My buddies and the users I ignore (``kind`` picks one list)."""
    found = await run_db(
        services, read, services, lambda conn: relations.listing(conn, user.id, kind)
    )
    return {"relations": [r.as_json() for r in found]}


@router.put(
    "/relations/{user_id}",
    operation_id="relations-put",
    response_model=RelationOut,
    responses=errors(400, 401, 403, 404, 422, 429, 503),
)
async def set_relation(
    user_id: UserIdPath, body: RelationIn, user: CurrentUser, services: ServicesDep
) -> dict[str, Any]:
    """Name ``user_id`` a buddy or ignore them (replacing what I said), with a note (404
    `unknown_user`, 422 `yourself`, 429 `rate_limited` past the limit on list changes)."""

    def work(conn: Connection) -> dict[str, Any]:
        target_pk, _ = relations.target_of(conn, user.id, user_id)
        relations.put(conn, user.id, target_pk, body.kind, body.note)
        return relations.listing(conn, user.id, target_pk=target_pk)[0].as_json()

    await run_db(services, check_write_rate, services, "relations", user.id)
    answer: dict[str, Any] = await run_db(services, write, services, work)
    return answer


class RelationRemoved(_Answer):
    """A relation forgotten."""

    removed: str = Field(description="The user id it was about.")


@router.delete(
    "/relations/{user_id}",
    operation_id="relations-delete",
    response_model=RelationRemoved,
    responses=errors(400, 401, 403, 404, 422, 503),
)
async def drop_relation(
    user_id: UserIdPath, user: CurrentUser, services: ServicesDep
) -> dict[str, str]:
    """Forget what I said about ``user_id`` (404 `no_relation` when there was nothing)."""

    def work(conn: Connection) -> str | None:
        target_pk, found_id = relations.target_of(conn, user.id, user_id)
        return found_id if relations.remove(conn, user.id, target_pk) else None

    removed = await run_db(services, write, services, work)
    if removed is None:
        raise Refused("not_found", "no_relation", f"you have said nothing about {user_id!r}")
    return {"removed": removed}


__all__ = ["router"]
