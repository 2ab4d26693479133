"""A player's history page: their games newest first with filters, a page at a time, and
their wins, losses and draws per game."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from dicehall import games
from dicehall.engine.errors import InvalidInput
from dicehall.server.domain import history
from dicehall.server.domain.errors import Refused
from dicehall.server.web.common import not_found, sentence, services_of, visitor
from dicehall.server.web.forms import Form
from dicehall.server.web.moments import moment
from dicehall.server.web.render import page

router = APIRouter(include_in_schema=False)

#: The filters of the page's form, as the API names its parameters.
FILTERS = ("state", "game", "result", "vs", "kind")
#: Which field a refusal belongs next to.
_FIELD_OF = {
    "invalid_state": "state",
    "unknown_game": "game",
    "invalid_result": "result",
    "unknown_user": "vs",
    "invalid_kind": "kind",
}
_RESULT_WORDS = {"win": "won", "loss": "lost", "draw": "shared the win"}


def _title(kind: str) -> str:
    try:
        return games.get(kind).title
    except InvalidInput:  # a game no longer installed on this site
        return kind


def _outcome(row: dict[str, Any], player: str) -> str:
    if row["result"] is not None:
        return str(_RESULT_WORDS[row["result"]])
    if row["status"] != "active":
        return str(row["status"])
    seat = next((s for s in row["seats"] if s["seat"] == row["to_act"]), None)
    if seat is None:
        return "in play"
    return f"{player}'s turn" if seat["user"] == player else f"waiting for {seat['name']}"


def _score(row: dict[str, Any]) -> str:
    standing = row.get("standing")
    if not standing:
        return ""
    scores = standing["scores"]
    return " · ".join(
        f"{seat['name']}: {scores[seat['seat']]:,}"
        for seat in row["seats"]
        if seat["seat"] < len(scores)
    )


def describe(rows: list[dict[str, Any]], player: str) -> list[dict[str, Any]]:
    """History rows as the page shows them: title, opponents, outcome, score, when."""
    return [
        {
            **row,
            "title": row["title"],
            "opponents": ", ".join(s["name"] for s in row["seats"] if s["user"] != player)
            or "nobody else",
            "outcome": _outcome(row, player),
            "score": _score(row),
            "when": moment(row["ended_at"] or row["updated_at"]),
        }
        for row in rows
    ]


@router.get("/users/{user_id}/games", response_class=HTMLResponse)
def history_page(request: Request, user_id: str) -> HTMLResponse:
    """A player's games, newest first, filtered by state, game, result and opponent, with
    a "More" link to the next page and their record per game."""
    who = visitor(request)
    params = request.query_params
    form = Form({name: params.get(name, "").strip()[:40] for name in FILTERS})
    viewer = None if who.user is None else who.user.id
    found: dict[str, Any] = {"games": [], "next": None}
    record: dict[str, Any] = {"games": {}}
    with services_of(request).read_conn() as conn:
        try:
            player = history.find_player(conn, user_id)
        except Refused:
            return not_found(request, who, "There is no user by that id.")
        try:
            query = history.history_query(
                conn,
                state=form.get("state"),
                game=form.get("game"),
                result=form.get("result"),
                vs=form.get("vs"),
                kind=form.get("kind"),
                cursor=params.get("cursor", "")[:200] or None,
            )
        except Refused as exc:
            field = _FIELD_OF.get(exc.code)
            if field in FILTERS:
                form.error(field, sentence(exc.message))
            else:
                form.problem = sentence(exc.message)
        else:
            found = history.history(conn, player, query, viewer)
            record = history.record(conn, player, viewer, query.vs)
    more = None
    if found["next"] is not None:
        kept = {name: form.get(name) for name in FILTERS if form.get(name)}
        more = f"/users/{player.user_id}/games?" + urlencode({**kept, "cursor": found["next"]})
    state = form.get("state") or "finished"
    return page(
        request,
        "history.html",
        user=who.user,
        csrf=who.csrf,
        status_code=200 if form.ok else 422,
        player=player,
        form=form,
        state=state,
        rows=describe(found["games"], player.user_id),
        record=[(kind, _title(kind), counts) for kind, counts in record["games"].items()],
        vs=form.get("vs"),
        more=more,
        first_page=not params.get("cursor"),
        results=[("", "Any result"), ("win", "Won"), ("loss", "Lost"), ("draw", "Shared win")],
        states=[("finished", "Finished"), ("active", "In progress")],
        kinds=[("", "All games"), ("ladder", "Ladder games only")],
    )
