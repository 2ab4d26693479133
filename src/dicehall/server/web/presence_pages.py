"""Who is here? The members online now and those here in the last minutes, buddies first,
with what each is doing (a game's link when I may watch it). Visitors see it too, without
the members who hide (as members do), and with no buddies. The page refreshes itself
(static/js/here-page.js); the home page shows the counts."""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from starlette.concurrency import run_in_threadpool

from dicehall.server.domain.people import here
from dicehall.server.domain.services import Services
from dicehall.server.web.common import services_of, visitor
from dicehall.server.web.moments import Moment, ago
from dicehall.server.web.render import game_titles, page

router = APIRouter(include_in_schema=False)


def span_words(seconds: float) -> str:
    """A window as words: "2 minutes", "15 minutes", "45 seconds"."""
    whole = round(seconds)
    if whole >= 60 and whole % 60 == 0:
        minutes = whole // 60
        return f"{minutes} minute{'s' if minutes != 1 else ''}"
    return f"{whole} second{'s' if whole != 1 else ''}"


def refresh_seconds(services: Services) -> int:
    """How often the page asks again: 20 s, sooner when "online" is a short window."""
    return max(2, min(20, round(services.settings.presence_online_seconds / 6)))


def counts_sentence(online: int, recent: int, recent_span: str) -> str:
    """'3 players here now, 7 in the last 15 minutes.'"""
    players = f"{online} player{'s' if online != 1 else ''}"
    return f"{players} here now, {online + recent} in the last {recent_span}."


@dataclass(frozen=True)
class Shown:
    """A person as the page shows them."""

    user_id: str
    display_name: str
    buddy: bool
    #: playing, looking or idle; with the game's id and title when I may watch it.
    doing: str
    game: int | None
    game_title: str | None
    seen: Moment


def _shown(people: list[here.Present], titles: dict[str, str]) -> list[Shown]:
    return [
        Shown(
            p.user_id,
            p.display_name,
            p.buddy,
            p.doing.what,
            p.doing.game,
            p.doing.title or titles.get(p.doing.kind or "", p.doing.kind),
            Moment(p.seen_at.isoformat(), ago(p.seen_at)),
        )
        for p in people
    ]


def _read(services: Services, viewer_pk: int | None) -> here.Here:
    with services.read_conn() as conn:
        return here.who_is_here(conn, services, viewer_pk)


@router.get("/here", response_class=HTMLResponse)
async def here_page(request: Request) -> Response:
    """Who is here: online now, and recently here."""
    services = services_of(request)
    who = await run_in_threadpool(visitor, request)
    found = await run_in_threadpool(_read, services, None if who.user is None else who.user.id)
    titles = dict(game_titles())
    recent_span = span_words(services.settings.presence_recent_seconds)
    return page(
        request,
        "here.html",
        user=who.user,
        csrf=who.csrf,
        online=_shown(found.online, titles),
        recent=_shown(found.recent, titles),
        online_count=found.online_count,
        recent_count=found.recent_count,
        online_span=span_words(services.settings.presence_online_seconds),
        recent_span=recent_span,
        counts=counts_sentence(found.online_count, found.recent_count, recent_span),
        refresh=refresh_seconds(services),
    )
