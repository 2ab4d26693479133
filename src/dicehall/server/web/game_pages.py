"""Game pages: game status, waiting room, answering invitations, the board (the new-game
pages are :mod:`dicehall.server.web.new_game_pages`)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from sqlalchemy import Connection

from dicehall import games
from dicehall.engine import codec
from dicehall.server.core.clock import now
from dicehall.server.core.ids import in_id_range
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.games.ending import time_left
from dicehall.server.domain.games.next_game import next_game
from dicehall.server.domain.games.privacy import seated, watchable
from dicehall.server.domain.games.reading import creator_of, my_games, open_games
from dicehall.server.domain.games.records import (
    GameRecord,
    SeatInfo,
    fetch_game,
    variant_title,
)
from dicehall.server.domain.games.seating import Answer, answer_game, join_game
from dicehall.server.domain.reliability import limits_of
from dicehall.server.domain.services import Services
from dicehall.server.domain.work import notify, run_db, write
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
from dicehall.server.web.forms import Form
from dicehall.server.web.moments import moment
from dicehall.server.web.render import page
from dicehall.server.web.tournament_words import game_marks

router = APIRouter(include_in_schema=False)


def _seat_label(seat: dict[str, Any]) -> str:
    return str(seat["name"])


def _describe_games(rows: list[dict[str, Any]], me: str | None) -> list[dict[str, Any]]:
    at = now()
    out = []
    for row in rows:
        others = [s for s in row["seats"] if me is None or s["user"] != me]
        invited = [s for s in row["seats"] if s.get("invited")]
        if row["invitation"]:
            state = f"{row['creator'] or 'someone'} invites you"
        elif row["status"] == "waiting" and invited:
            names = ", ".join(str(s["user"]) for s in invited)
            state = f"waiting for {names} to accept"
        elif row["status"] == "waiting":
            state = "waiting for players"
        elif row["status"] == "cancelled":
            state = "called off"
        elif row["status"] == "aborted":
            state = "aborted: no result"
        elif row["status"] == "finished":
            state = _outcome(row, me)
        elif row["your_turn"]:
            state = "your turn"
        else:
            to_act = row["to_act"]
            seat = next((s for s in row["seats"] if s["seat"] == to_act), None)
            state = f"waiting for {_seat_label(seat)}" if seat else "in play"
        out.append(
            {
                **row,
                "players": ", ".join(_seat_label(s) for s in others) or "nobody else",
                "state": state,
                "cancellable": row["status"] == "waiting"
                and me is not None
                and row["creator"] == me,
                "score": _score_line(row, me),
                "moved": moment(row["updated_at"]),
                "number": _number(row),
                "time_left": _time_left(row, at),
            }
        )
    return out


def _time_left(row: dict[str, Any], at: datetime) -> str:
    """The time the seat to act has left in a game in play ("2 d 4 h left"), or ""."""
    deadline = row.get("deadline")
    if not deadline or row["status"] != "active":
        return ""
    seconds = (datetime.fromisoformat(deadline) - at).total_seconds()
    return f"{time_left(seconds)} left"


def _outcome(row: dict[str, Any], me: str | None) -> str:
    """A finished game's result from my side ("you won"), or its winners' names."""
    winners = row.get("winners") or []
    seats = {s["seat"]: s for s in row["seats"]}
    mine = next((s["seat"] for s in row["seats"] if me is not None and s["user"] == me), None)
    if mine is not None and mine in winners:
        return "you won" if len(winners) == 1 else "you shared the win"
    if mine is not None:
        if not winners:
            return "nobody won"
        names = " and ".join(_seat_label(seats[w]) for w in winners if w in seats)
        return f"you lost ({names} won)"
    names = " and ".join(_seat_label(seats[w]) for w in winners if w in seats)
    return f"{names} won" if names else "finished"


def _score_line(row: dict[str, Any], me: str | None) -> str:
    """Each seat's score so far, mine first: "you: 3,450 · heuristic bot: 2,900"."""
    standing = row.get("standing")
    if not standing:
        return ""
    parts = []
    for seat in row["seats"]:
        index = seat["seat"]
        if index >= len(standing["scores"]):
            continue
        name = "you" if me is not None and seat["user"] == me else _seat_label(seat)
        parts.append((name != "you", index, f"{name}: {standing['scores'][index]:,}"))
    return " · ".join(text for _, _, text in sorted(parts))


def _number(row: dict[str, Any]) -> str:
    """The turn, hand or round being played ("hand 3"), for games in play."""
    standing = row.get("standing")
    if not standing or row["status"] != "active":
        return ""
    return f"{standing['noun']} {standing['number']}"


@router.get("/status", response_class=HTMLResponse)
def status_page(request: Request, who: Member) -> Response:
    """My games, those waiting on me first, with links to the boards."""
    return _status_page(request, who)


def _status_page(
    request: Request, who: Visitor, errors: dict[int, str] | None = None, status_code: int = 200
) -> Response:
    user = who.user
    assert user is not None
    with services_of(request).read_conn() as conn:
        rows = _describe_games(my_games(conn, user), user.user_id)
        marks = game_marks(conn, [r["id"] for r in rows])
    for row in rows:
        row["tournament"] = marks.get(row["id"])
    waiting = sum(1 for r in rows if r["invitation"] or r["your_turn"])
    sections = [
        ("Invitations to you", [r for r in rows if r["invitation"]]),
        ("Waiting on you", [r for r in rows if r["your_turn"]]),
        (
            "Waiting on others",
            [r for r in rows if r["status"] == "active" and not r["your_turn"]],
        ),
        (
            "Waiting for players",
            [r for r in rows if r["status"] == "waiting" and not r["invitation"]],
        ),
        ("Finished", [r for r in rows if r["status"] == "finished"]),
        ("Called off", [r for r in rows if r["status"] in ("cancelled", "aborted")]),
    ]
    return page(
        request,
        "status.html",
        user=user,
        csrf=who.csrf,
        sections=sections,
        count=len(rows),
        waiting_on_me=waiting,
        errors=errors or {},
        status_code=status_code,
    )


@router.get("/waiting", response_class=HTMLResponse)
def waiting_room(request: Request) -> HTMLResponse:
    """Open games anyone may join."""
    who = visitor(request)
    return _waiting_page(request, who)


def house_rules(kind: str, options: dict[str, object]) -> str:
    """The options of a game that differ from the defaults, or "standard rules"."""
    defaults = codec.encode(games.get(kind).game.options({}))
    changed = [
        f"{name.replace('_', ' ')} {value}"
        for name, value in options.items()
        if name != "type" and defaults.get(name) != value
    ]
    return ", ".join(changed) or "standard rules"


def _waiting_page(
    request: Request,
    who: Visitor,
    errors: dict[int, str] | None = None,
    status_code: int = 200,
) -> HTMLResponse:
    with services_of(request).read_conn() as conn:
        viewer_pk = who.user.id if who.user else None
        rows = _describe_games(open_games(conn, viewer_pk=viewer_pk), None)
    me = who.user.user_id if who.user else None
    for row in rows:
        row["mine"] = me is not None and any(s["user"] == me for s in row["seats"])
        seated = next((s["user"] for s in row["seats"] if s["user"]), None)
        row["creator"] = row["creator"] or seated
        row["cancellable"] = me is not None and row["creator"] == me
        row["open_count"] = sum(1 for s in row["seats"] if s["open"])
        row["house_rules"] = house_rules(row["game"], row["options"])
    return page(
        request,
        "waiting.html",
        user=who.user,
        csrf=who.csrf,
        rows=rows,
        errors=errors or {},
        status_code=status_code,
    )


@router.post("/waiting/{game_id}/join", response_class=HTMLResponse)
async def join(request: Request, game_id: int) -> Response:
    """Take the first open seat of a game from the waiting room."""
    form = await forms.read_form(request)
    who = visitor(request)
    if who.user is None:
        return see(f"/login?next={quote('/waiting')}")
    if not in_id_range(game_id):
        return not_found(request, who, f"There is no game {game_id}.")
    user = who.user
    services = services_of(request)
    return await _change_seats(
        request,
        who,
        form,
        game_id,
        lambda conn, record: join_game(
            conn, services.pool, user, record, None, limits_of(services.settings)
        ),
        on_error=_waiting_page,
        then=f"/games/{game_id}",
    )


Change = Callable[
    [Connection, GameRecord],
    tuple[GameRecord, list[SeatInfo]],
]


async def _change_seats(
    request: Request,
    who: Visitor,
    form: Form,
    game_id: int,
    change: Change,
    *,
    on_error: Callable[[Request, Visitor, dict[int, str], int], Response],
    then: str,
) -> Response:
    """Apply a seat change to a locked game from a member's form; on a refusal, the page
    again with the reason by the game; else pushes, and on to ``then``."""
    services = services_of(request)
    if not member_token_ok(who, form):
        return on_error(request, who, {game_id: EXPIRED}, 422)

    def work(conn: Connection) -> tuple[GameRecord, list[SeatInfo]]:
        return change(conn, fetch_game(conn, game_id, lock=True))

    try:
        record, seats = await run_db(services, write, services, work)
    except Refused as exc:
        return on_error(request, who, {game_id: sentence(exc.message)}, exc.status)
    notify(services, record, seats)
    return see(then)


#: The answers a status page button may give to a waiting game.
_ANSWERS: tuple[Answer, ...] = ("accept", "decline", "cancel")


@router.post("/games/{game_id}/{answer}", response_class=HTMLResponse)
async def answer(request: Request, game_id: int, answer: str) -> Response:
    """Accept or decline an invitation, or withdraw a game I created, from the status page."""
    form = await forms.read_form(request)
    who = visitor(request)
    if who.user is None:
        return see(f"/login?next={quote('/status')}")
    if answer not in _ANSWERS or not in_id_range(game_id):
        return not_found(request, who, f"There is no game {game_id} to {answer}.")
    user = who.user
    services = services_of(request)
    chosen = next(a for a in _ANSWERS if a == answer)
    # The waiting room's own "Call off" and the notifications page's "Decline" come back to
    # their page; only those local paths are taken.
    back = form.get("next") if form.get("next") in ("/waiting", "/notifications") else None
    return await _change_seats(
        request,
        who,
        form,
        game_id,
        lambda conn, record: answer_game(conn, services.pool, user, record, chosen),
        on_error=_waiting_page if back == "/waiting" else _status_page,
        # An accepted game is worth opening; a declined or withdrawn one is gone.
        then=f"/games/{game_id}" if chosen == "accept" else (back or "/status"),
    )


@router.get("/next", response_class=HTMLResponse)
def next_waiting(request: Request, who: Member, skip: str = "") -> Response:
    """The next game waiting on my move (least time left first, ``skip``: the game I am
    leaving), or my game list when none is."""
    left_out = int(skip) if skip.isdigit() and in_id_range(int(skip)) else None
    with services_of(request).read_conn() as conn:
        found = next_game(conn, who.user.id, left_out)["game"]
    return see("/status" if found is None else f"/games/{found}")


@router.get("/games/{game_id}", response_class=HTMLResponse)
def board(request: Request, game_id: int) -> HTMLResponse:
    """A game's board (its ES module does the drawing and the moves)."""
    who = visitor(request)
    # A page answers a visitor's out-of-range id with the 404 page, not the API's 422.
    if not in_id_range(game_id):
        return not_found(request, who, f"There is no game {game_id}.")
    services: Services = request.app.state.services
    with services.read_conn() as conn:
        try:
            # A private game is not found by those who may not watch it.
            record, seats = watchable(conn, game_id, who.user.id if who.user else None)
        except Refused:
            return not_found(request, who, f"There is no game {game_id}.")
        # Who may call the game off from its waiting board (the API's game has no creator).
        creator = creator_of(conn, game_id)
    return page(
        request,
        "board.html",
        user=who.user,
        csrf=who.csrf,
        game_id=game_id,
        kind=record.kind,
        title=variant_title(record.kind, record.options),
        creator=creator or "",
        spectator=not seated(seats, who.user.id if who.user else None),
    )
