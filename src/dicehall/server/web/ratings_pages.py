"""The leaderboards: ``/ratings`` (which rating, and how ratings work) and ``/ratings/{kind}``
(rank, player, rating, games), a page at a time with a "More" link. Plain pages: no script."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from dicehall.server.domain.errors import Refused
from dicehall.server.domain.ratings import kinds, leaderboard
from dicehall.server.domain.services import Services
from dicehall.server.domain.work import run_db
from dicehall.server.web.common import not_found, services_of, visitor
from dicehall.server.web.render import page

router = APIRouter(include_in_schema=False)

#: How many players one page of a leaderboard lists.
PAGE = 50


@router.get("/ratings", response_class=HTMLResponse)
def ratings_page(request: Request) -> HTMLResponse:
    """Which leaderboard to open, and how ratings work."""
    who = visitor(request)
    return page(
        request,
        "ratings.html",
        user=who.user,
        csrf=who.csrf,
        kinds=leaderboard.kinds_listing(),
        listed_games=leaderboard.LISTED_GAMES,
        active_days=leaderboard.ACTIVE_DAYS,
    )


def _board(services: Services, kind: str, cursor: str | None) -> dict[str, Any]:
    with services.read_conn() as conn:
        try:
            return leaderboard.leaderboard(conn, kind, cursor, PAGE)
        except Refused as exc:
            if exc.code != "invalid_cursor":
                raise
            # A damaged "More" link: the top of the board rather than an error.
            return leaderboard.leaderboard(conn, kind, None, PAGE)


def _parts(players: list[dict[str, Any]]) -> list[tuple[str, list[dict[str, Any]]]]:
    """The page's players in the board's parts: settled, then provisional (fewer games)."""
    settled = [p for p in players if p["games"] >= leaderboard.LISTED_GAMES]
    provisional = [p for p in players if p["games"] < leaderboard.LISTED_GAMES]
    return [
        (name, part) for name, part in (("settled", settled), ("provisional", provisional)) if part
    ]


@router.get("/ratings/{kind}", response_class=HTMLResponse)
async def leaderboard_page(request: Request, kind: str, cursor: str = "") -> Response:
    """The leaderboard of ``kind``, best first; ``cursor``: the next page."""
    services = services_of(request)
    who = await run_db(services, visitor, request)
    if kind not in kinds.names():
        return not_found(request, who, f"There is no rating called {kind[:40]!r}.")
    board = await run_db(services, _board, services, kind, cursor[:200] or None)
    more = f"/ratings/{kind}?" + urlencode({"cursor": board["next"]}) if board["next"] else None
    return page(
        request,
        "leaderboard.html",
        user=who.user,
        csrf=who.csrf,
        board=board,
        parts=_parts(board["players"]),
        kinds=leaderboard.kinds_listing(),
        more=more,
        first_page=not cursor,
        listed_games=leaderboard.LISTED_GAMES,
        active_days=leaderboard.ACTIVE_DAYS,
    )
