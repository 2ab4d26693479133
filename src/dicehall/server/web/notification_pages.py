"""The notifications page: my notifications, newest first; opening it marks those shown read
(the header's bell then clears on every page of mine)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from starlette.concurrency import run_in_threadpool

from dicehall.server.core.ids import in_id_range
from dicehall.server.domain import notifications
from dicehall.server.domain.services import Services
from dicehall.server.web.common import Member, services_of
from dicehall.server.web.moments import Moment, moment
from dicehall.server.web.render import page

router = APIRouter(include_in_schema=False)

#: How many notifications one page shows.
PAGE = 30


@dataclass(frozen=True)
class Shown:
    """A notification as the page shows it."""

    id: int
    kind: str
    game: int | None
    text: str
    when: Moment
    #: It was unread until this page was opened.
    new: bool


def _open(services: Services, user_pk: int, before: int | None) -> dict[str, Any]:
    """A page of ``user_pk``'s notifications, those on it (and older) marked read."""
    with services.write_conn() as conn:
        found = notifications.listing(conn, user_pk, before, PAGE)
        unread = [n["id"] for n in found["notifications"] if not n["read"]]
        if unread:
            notifications.mark_read(conn, user_pk, max(unread))
        return found


@router.get("/notifications", response_class=HTMLResponse)
async def notifications_page(request: Request, who: Member, before: str = "") -> Response:
    """My notifications, newest first (``before=ID``: older ones); opening marks them read."""
    older = int(before) if before.isdigit() and in_id_range(int(before)) else None
    found = await run_in_threadpool(_open, services_of(request), who.user.id, older)
    shown = [
        Shown(n["id"], n["kind"], n["game"], n["text"], moment(n["created_at"]), not n["read"])
        for n in found["notifications"]
    ]
    return page(
        request,
        "notifications.html",
        user=who.user,
        csrf=who.csrf,
        notes=shown,
        older=found["next"],
        paged=older is not None,
    )
