"""The notifications page: my notifications, newest first, one line per game (its title, the
opponents, what happened last and how many updates the line gathers); an invitation still
open is answered there (Accept, Decline). Opening it marks those shown read (the header's
bell then clears on every page of mine)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from sqlalchemy import Connection, select
from starlette.concurrency import run_in_threadpool

from dicehall.server.core.ids import in_id_range
from dicehall.server.domain import notifications
from dicehall.server.domain.games.notice_texts import listing
from dicehall.server.domain.games.reading import summaries
from dicehall.server.domain.games.records import GAMES
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
    #: How many notices about its game the line gathers.
    events: int = 1
    #: The game's title ("Boatzee"), "" for a line about no game.
    title: str = ""
    #: The other seats of the game ("bob and carol").
    opponents: str = ""
    #: The invitation is still open: the line offers Accept and Decline.
    answer: bool = False


@dataclass(frozen=True)
class _Game:
    title: str
    opponents: str
    invited: bool


def _games(conn: Connection, user_pk: int, user_id: str, ids: set[int]) -> dict[int, _Game]:
    """The title, the opponents and whether my invitation is open, of each game in ``ids``
    (one query for the games, one for their seats)."""
    if not ids:
        return {}
    rows = conn.execute(select(GAMES).where(GAMES.c.id.in_(ids))).all()
    out = {}
    for game in summaries(conn, rows, user_pk):
        others = [str(s["name"]) for s in game["seats"] if s["user"] != user_id]
        out[int(game["id"])] = _Game(str(game["title"]), listing(others), bool(game["invitation"]))
    return out


def _open(services: Services, user_pk: int, user_id: str, before: int | None) -> dict[str, Any]:
    """A page of ``user_pk``'s notifications, those on it (and older) marked read, and the
    games they are about."""
    with services.write_conn() as conn:
        found = notifications.listing(conn, user_pk, before, PAGE)
        unread = [n["id"] for n in found["notifications"] if not n["read"]]
        if unread:
            notifications.mark_read(conn, user_pk, max(unread))
        ids = {int(n["game"]) for n in found["notifications"] if n["game"] is not None}
        return {**found, "games": _games(conn, user_pk, user_id, ids)}


def _said(text: str, game: int | None) -> str:
    """The notice's text without its "(game N with ...)" ending: the line names both."""
    if game is None:
        return text
    return re.sub(rf" \(game {game}(?: with [^()]*)?\)$", "", text) or text


def shown(note: dict[str, Any], games: dict[int, _Game]) -> Shown:
    """A notification as the page shows it, with what it knows of its game."""
    game = games.get(note["game"]) if note["game"] is not None else None
    return Shown(
        note["id"],
        note["kind"],
        note["game"],
        _said(note["text"], note["game"]) if game is not None else note["text"],
        moment(note["created_at"]),
        not note["read"],
        int(note.get("events", 1)),
        game.title if game is not None else "",
        game.opponents if game is not None else "",
        game is not None and game.invited and note["kind"] == "invitation",
    )


@router.get("/notifications", response_class=HTMLResponse)
async def notifications_page(request: Request, who: Member, before: str = "") -> Response:
    """My notifications, newest first (``before=ID``: older ones); opening marks them read."""
    older = int(before) if before.isdigit() and in_id_range(int(before)) else None
    found = await run_in_threadpool(
        _open, services_of(request), who.user.id, who.user.user_id, older
    )
    notes = [shown(n, found["games"]) for n in found["notifications"]]
    return page(
        request,
        "notifications.html",
        user=who.user,
        csrf=who.csrf,
        notes=notes,
        older=found["next"],
        paged=older is not None,
    )
