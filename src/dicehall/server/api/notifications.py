"""The notifications API: what my games want me to know, and marking it read.

Each notification is also pushed through the WebSocket as ``{"type": "notification", ...}``
when it is made; marking read pushes ``{"type": "notifications_read", "unread": n}`` so every
page of mine can update its count.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from pydantic import BaseModel, ConfigDict, Field

from dicehall.server.api.deps import CurrentUser, ServicesDep
from dicehall.server.api.params import BodyId, QueryId
from dicehall.server.api.schemas import NotificationList, NotificationsMarked, errors
from dicehall.server.domain import notifications
from dicehall.server.domain.work import read, run_db, write

router = APIRouter(prefix="/api/v1", tags=["notifications"])

#: The most notifications one page may hold.
MOST = 100


class MarkRead(BaseModel):
    """Which notifications to mark read: those up to an id (the newest I have seen), or all."""

    model_config = ConfigDict(extra="forbid")

    up_to: BodyId | None = Field(
        default=None,
        description="Mark those with this id or lower; null or left out: all of them.",
    )


@router.get(
    "/notifications",
    operation_id="notifications-list",
    response_model=NotificationList,
    responses=errors(401, 422),
)
async def my_notifications(
    user: CurrentUser,
    services: ServicesDep,
    before: QueryId = None,
    limit: Annotated[int, Query(ge=1, le=MOST)] = notifications.PAGE,
) -> dict[str, Any]:
    """My notifications, newest first, and how many are unread; ``before=ID`` (the answer's
    ``next``) gives the next page."""
    return await run_db(
        services,
        read,
        services,
        lambda conn: notifications.listing(conn, user.id, before, limit),
    )


@router.post(
    "/notifications/read",
    operation_id="notifications-read",
    response_model=NotificationsMarked,
    responses=errors(400, 401, 403, 422, 503),
)
async def mark_read(body: MarkRead, user: CurrentUser, services: ServicesDep) -> dict[str, int]:
    """Mark my notifications read (up to ``up_to``, or all); my other pages are told."""

    marked: int = await run_db(
        services, write, services, lambda conn: notifications.mark_read(conn, user.id, body.up_to)
    )
    return {"marked": marked}


__all__ = ["router"]
