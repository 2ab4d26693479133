"""The replay page: a game that is over, stepped through event by event (its ES module
fetches ``GET /api/v1/games/{id}/replay`` and draws each frame with the game's board)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from dicehall.server.core.ids import in_id_range
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.games.privacy import watchable
from dicehall.server.domain.games.records import entry_of, load_options
from dicehall.server.domain.games.replay import OVER
from dicehall.server.web.common import not_found, services_of, visitor
from dicehall.server.web.render import page

router = APIRouter(include_in_schema=False)


@router.get("/games/{game_id}/replay", response_class=HTMLResponse)
def replay_page(request: Request, game_id: int) -> HTMLResponse:
    """Step through a finished or aborted game: buttons, the arrow keys and a slider."""
    who = visitor(request)
    if not in_id_range(game_id):
        return not_found(request, who, f"There is no game {game_id}.")
    with services_of(request).read_conn() as conn:
        try:
            record, _seats = watchable(conn, game_id, who.user.id if who.user else None)
        except Refused:
            return not_found(request, who, f"There is no game {game_id}.")
    try:
        entry = entry_of(record.kind)
    except Refused:
        return not_found(request, who, f"Game {game_id} is of a game this site no longer has.")
    if record.status not in OVER or record.snapshot is None:
        return page(
            request,
            "message.html",
            user=who.user,
            csrf=who.csrf,
            status_code=409,
            heading="No replay yet",
            message=f"Game {game_id} is not over: its replay comes once it has ended.",
        )
    return page(
        request,
        "replay.html",
        user=who.user,
        csrf=who.csrf,
        game_id=game_id,
        kind=record.kind,
        title=entry.game.variant_title(load_options(record)),
        status=record.status,
    )
