"""The page of games in progress anyone may watch (the API's ``GET /games/live``)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from dicehall import games
from dicehall.server.core.ids import in_id_range
from dicehall.server.domain.games import watching
from dicehall.server.web.common import services_of, visitor
from dicehall.server.web.history_pages import describe
from dicehall.server.web.render import page

router = APIRouter(include_in_schema=False)

#: Games on one page.
PAGE = 30


@router.get("/live", response_class=HTMLResponse)
def live_page(request: Request) -> HTMLResponse:
    """Games being played now that I may watch, newest first, filtered by game."""
    who = visitor(request)
    params = request.query_params
    kind = params.get("game", "").strip()
    known = kind in games.available()
    raw_before = params.get("before", "")
    before = int(raw_before) if raw_before.isdigit() and in_id_range(int(raw_before)) else None
    with services_of(request).read_conn() as conn:
        rows = watching.live_games(conn, who.user, kind if known else None, PAGE, before)
    more = None
    if len(rows) == PAGE:
        more = f"/live?before={rows[-1]['id']}" + (f"&game={kind}" if known else "")
    return page(
        request,
        "live.html",
        user=who.user,
        csrf=who.csrf,
        status_code=200 if known or not kind else 422,
        # Games in progress have no result nor end yet: shown like a history's rows.
        rows=describe([{**row, "result": None, "ended_at": None} for row in rows], ""),
        kind=kind if known else "",
        unknown=kind if kind and not known else "",
        choices=[(name, games.get(name).title) for name in games.available()],
        more=more,
        first_page=before is None,
    )
