"""The tournament pages: the area (open to join, running, finished, filtered by game) and
one tournament's page (its facts, Join / Withdraw, the standings and the tables of each
round with links to their games). The create form is
:mod:`dicehall.server.web.tournament_forms`.

Join and Withdraw are plain forms (CSRF token in a field) that post and come back to the
tournament page with a notice; a refusal shows the page again with the sentence above it.
static/js/tournament.js follows the tournament over the push socket and re-renders the
standings and rounds from ``GET /api/v1/tournaments/{id}`` when it changes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from sqlalchemy import Connection
from starlette.concurrency import run_in_threadpool

from dicehall import games
from dicehall.server.core.clock import now
from dicehall.server.core.ids import in_id_range
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.tournaments import entry, views
from dicehall.server.domain.work import write
from dicehall.server.web import forms
from dicehall.server.web.common import (
    EXPIRED,
    Member,
    Visitor,
    member_token_ok,
    not_found,
    see,
    sentence,
    services_of,
    visitor,
)
from dicehall.server.web.game_pages import house_rules
from dicehall.server.web.render import page
from dicehall.server.web.tournament_words import (
    FORMAT_HINTS,
    PLAYER_STATES,
    STATES,
    format_words,
    pace_words,
    players_words,
    points,
    start_words,
    summary_row,
    title_of,
    when,
)

router = APIRouter(include_in_schema=False)

#: The area's sections: (status, heading), and how many tournaments each lists.
SECTIONS = (("open", "Open to join"), ("running", "Running"), ("finished", "Finished"))
LISTED = 50
#: The notices a redirect back to the tournament page may ask for.
NOTICES = {
    "created": "Tournament created. Share its address so that others can join.",
    "joined": "You joined the tournament.",
    "withdrawn": "You withdrew from the tournament.",
}
#: The notices that are news only while the tournament is open to join.
OPEN_ONLY = ("created", "joined")
NO_TOURNAMENT = "There is no such tournament."


def _read(request: Request, work: Callable[[Connection], Any]) -> Any:
    with services_of(request).read_conn() as conn:
        return work(conn)


@router.get("/tournaments", response_class=HTMLResponse)
async def area(request: Request) -> HTMLResponse:
    """Tournaments open to join, running and finished, filtered by game (``?game=``)."""
    who = await run_in_threadpool(visitor, request)
    viewer = None if who.user is None else who.user.id
    kind = request.query_params.get("game", "").strip()[:40]
    known = kind in games.available()

    def work(conn: Connection) -> list[tuple[str, str, list[dict[str, Any]]]]:
        return [
            (
                status,
                heading,
                [
                    summary_row(s)
                    for s in views.listing(conn, viewer, status, kind if known else None, LISTED)
                ],
            )
            for status, heading in SECTIONS
        ]

    sections = await run_in_threadpool(_read, request, work)
    return page(
        request,
        "tournaments.html",
        user=who.user,
        csrf=who.csrf,
        status_code=200 if known or not kind else 422,
        sections=sections,
        kind=kind if known else "",
        unknown=kind if kind and not known else "",
        choices=[(name, title_of(name)) for name in games.available()],
    )


def _tournament_id(raw: str) -> int | None:
    return int(raw) if raw.isdigit() and len(raw) <= 10 and in_id_range(int(raw)) else None


def _names(found: dict[str, Any]) -> dict[str, str]:
    return {s["user_id"]: s["display_name"] for s in found["standings"]}


def shown_rounds(found: dict[str, Any]) -> list[dict[str, Any]]:
    """The rounds, newest first, each table's players with their names and points."""
    names = _names(found)
    out = []
    for played in reversed(found["rounds"]):
        tables = []
        for table in played["tables"]:
            scored = table.get("points") if table["done"] else None
            seats = [
                {
                    "user_id": user_id,
                    "display_name": names.get(user_id, user_id),
                    "points": None if scored is None else points(scored[i]),
                }
                for i, user_id in enumerate(table["seats"])
            ]
            tables.append({**table, "players": seats, "bye": table["game_id"] is None})
        out.append({**played, "tables": tables})
    return out


def player_state(tournament: str, player: str) -> str:
    """A player's state in words ("playing"; "finished" once the tournament is over)."""
    if player == "active" and tournament in ("finished", "cancelled"):
        return tournament
    return PLAYER_STATES.get(player, player)


def _state_words(found: dict[str, Any]) -> str:
    status = str(found["status"])
    if status != "running":
        return STATES.get(status, status)
    planned = found.get("rounds_planned")
    return f"round {found['round']}" + (f" of {planned}" if planned else "")


async def _tournament_page(
    request: Request,
    who: Visitor,
    tournament_id: int | None,
    problem: str | None = None,
    status_code: int = 200,
) -> HTMLResponse:
    viewer = None if who.user is None else who.user.id
    if tournament_id is None:
        return not_found(request, who, NO_TOURNAMENT)
    try:
        found = await run_in_threadpool(
            _read, request, lambda c: views.detail(c, tournament_id, viewer)
        )
    except Refused:
        return not_found(request, who, NO_TOURNAMENT)
    for standing in found["standings"]:
        standing["points_words"] = points(standing["points"])
        standing["tiebreak_words"] = points(standing["tiebreak"])
        standing["status_words"] = player_state(found["status"], standing["status"])
    asked = next((key for key in NOTICES if request.query_params.get(key)), None)
    # "Created" and "joined" are news while the tournament is open; once its first round
    # has begun, an old address (a bookmark, a reload) shows them no more.
    if asked in OPEN_ONLY and found["status"] != "open":
        asked = None
    options = found.get("options") or {}
    return page(
        request,
        "tournament.html",
        user=who.user,
        csrf=who.csrf,
        status_code=status_code,
        t=found,
        title=found["title"],
        rules=house_rules(found["game"], options) if found["game"] in games.available() else "",
        format_words=format_words(found),
        format_hint=FORMAT_HINTS.get(found["format"], ""),
        state_words=_state_words(found),
        deadline=when(found.get("round_deadline")) if found["status"] == "running" else None,
        players_words=players_words(found),
        start_words=start_words(found),
        pace_words=pace_words(found.get("pace"), found.get("bank_s")),
        rounds=shown_rounds(found),
        notice=None if asked is None else NOTICES[asked],
        notice_key=asked,
        problem=problem,
    )


@router.get("/tournaments/{tournament_id}", response_class=HTMLResponse)
async def tournament_page(request: Request, tournament_id: str) -> HTMLResponse:
    """One tournament: its facts, Join / Withdraw, the standings and every round's tables."""
    who = await run_in_threadpool(visitor, request)
    return await _tournament_page(request, who, _tournament_id(tournament_id))


async def _act(
    request: Request, who: Member, raw_id: str, work: Callable[[Connection, int], None], done: str
) -> Response:
    """Run Join or Withdraw; back to the tournament page with a notice, or the page again
    with the refusal above it."""
    tournament_id = _tournament_id(raw_id)
    if tournament_id is None:
        return not_found(request, who, NO_TOURNAMENT)
    form = await forms.read_form(request)
    if not member_token_ok(who, form):
        return await _tournament_page(request, who, tournament_id, problem=EXPIRED, status_code=422)
    services = services_of(request)
    try:
        await run_in_threadpool(write, services, lambda conn: work(conn, tournament_id))
    except Refused as exc:
        if exc.kind == "not_found":
            return not_found(request, who, NO_TOURNAMENT)
        return await _tournament_page(
            request, who, tournament_id, problem=sentence(exc.message), status_code=exc.status
        )
    return see(f"/tournaments/{tournament_id}?{done}=1")


@router.post("/tournaments/{tournament_id}/join", response_class=HTMLResponse)
async def join(request: Request, who: Member, tournament_id: str) -> Response:
    """Join the tournament."""

    def work(conn: Connection, found: int) -> None:
        entry.join(conn, who.user, found, now())

    return await _act(request, who, tournament_id, work, "joined")


@router.post("/tournaments/{tournament_id}/withdraw", response_class=HTMLResponse)
async def withdraw(request: Request, who: Member, tournament_id: str) -> Response:
    """Withdraw from the tournament (from its later rounds, once it runs)."""

    def work(conn: Connection, found: int) -> None:
        entry.withdraw(conn, who.user, found, now())

    return await _act(request, who, tournament_id, work, "withdrawn")
