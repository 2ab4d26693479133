"""HTML pages. Every page is server-rendered; boards are driven by their ES modules."""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from sqlalchemy import select

from dicehall.server import gameservice
from dicehall.server.api.deps import quick_user
from dicehall.server.clock import aware, now
from dicehall.server.models import AuthSession, User
from dicehall.server.security import SESSION_COOKIE, digest
from dicehall.server.services import Services
from dicehall.server.web.render import page

router = APIRouter(include_in_schema=False)


@dataclass(frozen=True)
class Visitor:
    """Who is looking at a page, and the CSRF token their forms and scripts must send."""

    user: User | None
    csrf: str | None


def visitor(request: Request) -> Visitor:
    """The signed-in user and their session's CSRF token, or an anonymous visitor."""
    services: Services = request.app.state.services
    cookie = request.cookies.get(SESSION_COOKIE)
    if not cookie:
        return Visitor(None, None)
    with services.sessions() as db:
        row = db.scalar(select(AuthSession).where(AuthSession.id == digest(cookie)))
        if row is None or aware(row.expires_at) <= now():
            return Visitor(None, None)
        return Visitor(quick_user(request, services), row.csrf_token)


@router.get("/", response_class=HTMLResponse)
def home(request: Request) -> HTMLResponse:
    """What the site is, the games, and how to start."""
    who = visitor(request)
    return page(request, "home.html", user=who.user, csrf=who.csrf)


@router.get("/games/{game_id}", response_class=HTMLResponse)
def board(request: Request, game_id: int) -> HTMLResponse:
    """A game's board (its ES module does the drawing and the moves)."""
    who = visitor(request)
    services: Services = request.app.state.services
    with services.read_conn() as conn:
        record = gameservice.fetch_game(conn, game_id)
    entry = gameservice.entry_of(record.kind)
    return page(
        request,
        "board.html",
        user=who.user,
        csrf=who.csrf,
        game_id=game_id,
        kind=record.kind,
        title=entry.game.title,
    )
