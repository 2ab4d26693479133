"""The ladder pages: the ladders with Join buttons, one ladder's positions with Challenge
buttons for those within reach, my standing, my ladder games, ladder vacation and the
latest moves, and the full record of moves a page at a time.

Every action is a plain form (CSRF token in a field) that posts and comes back to the
ladder page with a notice; a refusal (too far, too many challenges, not accepted...) shows
the ladder page again with the sentence above it. static/js/ladder-live.js refreshes the
ladder when a push says a position or one of my games changed.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from sqlalchemy import Connection
from starlette.concurrency import run_in_threadpool

from dicehall.server.core.clock import now
from dicehall.server.core.txn import after_commit
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.ratings import kinds, ladder_challenges, ladders
from dicehall.server.domain.ratings.ladder_inactivity import VACATION_DAYS_A_YEAR
from dicehall.server.domain.reliability import limits_of
from dicehall.server.domain.work import notify
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

router = APIRouter(include_in_schema=False)

#: Latest moves on the ladder page; moves per page of the full record.
LATEST_MOVES = 15
MOVES_PAGE = 50
#: The notices a redirect back to the ladder page may ask for.
NOTICES = {
    "joined": "You joined the ladder at the bottom.",
    "left": "You left the ladder; everyone below you moved up one.",
    "vacation": "Ladder vacation taken: inactivity will not drop you while it runs.",
}


def _read(request: Request, work: Callable[[Connection], Any]) -> Any:
    with services_of(request).read_conn() as conn:
        return work(conn)


@router.get("/ladders", response_class=HTMLResponse)
async def ladders_page(request: Request) -> HTMLResponse:
    """Every ladder, how many play on it, my place or a Join button."""
    who = await run_in_threadpool(visitor, request)
    viewer = None if who.user is None else who.user.id
    listed = await run_in_threadpool(_read, request, lambda c: ladders.overview(c, viewer))
    return page(request, "ladders.html", user=who.user, csrf=who.csrf, ladders=listed)


def _move_text(move: dict[str, Any]) -> str:
    old, new = move["old_position"], move["new_position"]
    reason = move["reason"]
    if reason == "joined":
        return f"joined at {new}"
    if reason == "left":
        return f"left the ladder from {old}"
    words = {
        "won": "climbed by a win",
        "passed": "moved down by a win from below",
        "inactive": "dropped for inactivity",
        "moved_up": "moved up",
    }.get(reason, reason)
    return f"{old} → {new}: {words}"


def _moves(found: dict[str, Any], at: datetime) -> list[dict[str, Any]]:
    return [{**m, "text": _move_text(m), "when": moment(m["at"], at)} for m in found["moves"]]


def _idle_days(active_at: str, at: datetime) -> int:
    return max(0, int((at - datetime.fromisoformat(active_at)).total_seconds() // 86400))


async def _ladder_page(
    request: Request,
    who: Visitor,
    kind: str,
    start: int = 1,
    problem: str | None = None,
    status_code: int = 200,
    vacation_form: Form | None = None,
) -> HTMLResponse:
    at = now()
    viewer = None if who.user is None else who.user.id

    def work(conn: Connection) -> tuple[dict[str, Any], dict[str, Any]]:
        board = ladders.board(conn, kind, viewer, at, start)
        return board, ladders.history(conn, kind, None, LATEST_MOVES)

    try:
        board, moves = await run_in_threadpool(_read, request, work)
    except Refused:
        return not_found(request, who, "There is no such ladder.")
    for place in board["positions"]:
        place["idle_days"] = _idle_days(place["active_at"], at)
        place["mine"] = who.user is not None and place["user_id"] == who.user.user_id
    me = board["me"]
    around = None
    if me is not None and me["position"] is not None:
        first = max(1, me["position"] - ladders.REACH)
        if first != start:
            around = first
    notice = next((text for key, text in NOTICES.items() if request.query_params.get(key)), None)
    challenged = request.query_params.get("challenged", "")
    return page(
        request,
        "ladder.html",
        user=who.user,
        csrf=who.csrf,
        status_code=status_code,
        board=board,
        me=me,
        moves=_moves(moves, at),
        more_moves=moves["next"] is not None,
        notice=notice,
        challenged=int(challenged) if challenged.isdigit() and len(challenged) < 12 else None,
        problem=problem,
        around=around,
        earlier=max(1, start - ladders.PAGE) if start > 1 else None,
        vacation_form=vacation_form or Form({"days": "7"}),
        most_vacation=VACATION_DAYS_A_YEAR,
        drop_due=None if me is None or me["drop_due_at"] is None else moment(me["drop_due_at"]),
    )


@router.get("/ladders/{kind}", response_class=HTMLResponse)
async def ladder_page(request: Request, kind: str) -> HTMLResponse:
    """One ladder: its positions from ``start`` (100 a page), my standing and actions."""
    who = await run_in_threadpool(visitor, request)
    raw = request.query_params.get("start", "1")
    start = int(raw) if raw.isdigit() and 1 <= len(raw) <= 7 and int(raw) >= 1 else 1
    return await _ladder_page(request, who, kind, start)


async def _act(
    request: Request,
    who: Member,
    kind: str,
    work: Callable[[Connection, Form], str],
    days_codes: tuple[str, ...] = (),
) -> Response:
    """Run a ladder form's write; back to the ladder page with a notice, or the page again
    with the refusal (next to the vacation form's field for ``days_codes``, else above)."""
    form = await forms.read_form(request)
    if not member_token_ok(who, form):
        return await _ladder_page(request, who, kind, problem=EXPIRED, status_code=422)
    services = services_of(request)

    def run() -> str:
        with services.write_conn() as conn:
            return work(conn, form)

    try:
        query = await run_in_threadpool(run)
    except Refused as exc:
        if exc.code == "no_such_ladder":
            return not_found(request, who, "There is no such ladder.")
        by_field = exc.code in days_codes
        shown = Form(dict(form.values)) if by_field else None
        if shown is not None:
            shown.error("days", sentence(exc.message))
        return await _ladder_page(
            request,
            who,
            kind,
            problem=None if by_field else sentence(exc.message),
            status_code=exc.status,
            vacation_form=shown,
        )
    return see(f"/ladders/{kind}?{query}")


@router.post("/ladders/{kind}/join", response_class=HTMLResponse)
async def join(request: Request, who: Member, kind: str) -> Response:
    """Join the ladder at the bottom."""

    def work(conn: Connection, _form: Form) -> str:
        ladders.join(conn, kind, who.user.id, now())
        return "joined=1"

    return await _act(request, who, kind, work)


@router.post("/ladders/{kind}/leave", response_class=HTMLResponse)
async def leave(request: Request, who: Member, kind: str) -> Response:
    """Leave the ladder."""

    def work(conn: Connection, _form: Form) -> str:
        ladders.leave(conn, kind, who.user.id, now())
        return "left=1"

    return await _act(request, who, kind, work)


@router.post("/ladders/{kind}/challenge", response_class=HTMLResponse)
async def challenge(request: Request, who: Member, kind: str) -> Response:
    """Challenge the player the form names; their game starts at once."""
    services = services_of(request)

    def work(conn: Connection, form: Form) -> str:
        made = ladder_challenges.challenge(
            conn,
            services.pool,
            who.user,
            kind,
            form.get("opponent").strip(),
            now(),
            limits_of(services.settings),
        )
        # Pushed once committed (the players' boards and status pages update).
        after_commit(conn, lambda: notify(services, made.record, made.seats))
        return f"challenged={made.record.id}"

    return await _act(request, who, kind, work)


@router.post("/ladders/{kind}/vacation", response_class=HTMLResponse)
async def vacation(request: Request, who: Member, kind: str) -> Response:
    """Take the days of ladder vacation the form gives."""

    def work(conn: Connection, form: Form) -> str:
        text = form.get("days").strip()
        if not text.isdigit() or not 1 <= int(text) <= VACATION_DAYS_A_YEAR:
            raise Refused(
                "invalid",
                "invalid_days",
                f"type a whole number of days from 1 to {VACATION_DAYS_A_YEAR}",
            )
        ladders.take_vacation(conn, kind, who.user.id, int(text), now())
        return "vacation=1"

    return await _act(
        request, who, kind, work, days_codes=("invalid_days", "not_enough_ladder_vacation")
    )


@router.get("/ladders/{kind}/history", response_class=HTMLResponse)
async def history_page(request: Request, kind: str) -> HTMLResponse:
    """Every move on the ladder, newest first, a page at a time."""
    who = await run_in_threadpool(visitor, request)
    cursor = request.query_params.get("cursor", "")[:20] or None
    try:
        found = await run_in_threadpool(
            _read, request, lambda c: ladders.history(c, kind, cursor, MOVES_PAGE)
        )
    except Refused as exc:
        if exc.code == "no_such_ladder":
            return not_found(request, who, "There is no such ladder.")
        found = {"kind": kind, "moves": [], "next": None}
    return page(
        request,
        "ladder_history.html",
        user=who.user,
        csrf=who.csrf,
        kind=kind,
        title=kinds.title(kind),
        moves=_moves(found, now()),
        next=found["next"],
        first_page=cursor is None,
    )
