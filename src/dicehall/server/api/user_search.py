"""User search: a prefix of a user id or display name, found through an index."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from dicehall.server.api.deps import OptionalUser, ServicesDep
from dicehall.server.api.people_schemas import UserSearch
from dicehall.server.api.schemas import errors
from dicehall.server.domain.people import online, search
from dicehall.server.domain.work import read, run_db

router = APIRouter(prefix="/api/v1", tags=["people"])


@router.get(
    "/users",
    operation_id="users-search",
    response_model=UserSearch,
    responses=errors(422),
)
async def search_users(
    services: ServicesDep,
    viewer: OptionalUser,
    q: Annotated[
        str,
        Query(
            min_length=1,
            max_length=search.QUERY_MAX,
            description="The start of a user id or display name (or of a word of it); any "
            "case, accents optional.",
        ),
    ],
    online_only: Annotated[
        bool | None,
        Query(
            alias="online",
            description="true: only users here now; false: only the others; left out: all.",
        ),
    ] = None,
    cursor: Annotated[
        str | None, Query(max_length=200, description="`next` of the previous page.")
    ] = None,
    limit: Annotated[int, Query(ge=1, le=search.PAGE_MAX)] = search.PAGE,
) -> dict[str, Any]:
    """Users whose user id or display name (or a word of it on) starts with `q`, in name
    order, each once, a page at a time; when none does, the closest names (`fuzzy`)."""
    viewer_pk = None if viewer is None else viewer.id
    online_of = online.online_of(services)
    found: search.Results = await run_db(
        services,
        read,
        services,
        lambda conn: search.search(
            conn,
            viewer_pk,
            q,
            online=online_only,
            cursor=cursor,
            limit=limit,
            online_of=online_of,
        ),
    )
    return found.as_json()


__all__ = ["router"]
