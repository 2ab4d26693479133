"""The auto-match page: one button per game and variant (Boatzee, Double and Triple
Boatzee apart; its table sizes, pace, rated and bots folded away under sensible defaults),
my tickets with Cancel buttons, and each variant's queue with an estimated wait.

Every action is a plain form (CSRF token in a field) that posts and comes back to the
page; a refusal shows the page again with the sentence above it. static/js/automatch.js
keeps the counts and my tickets current (it polls ``GET /api/v1/automatch`` and listens
for the ``automatch`` push) and opens the game as soon as a ticket of mine finds it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from sqlalchemy import Connection
from starlette.concurrency import run_in_threadpool

from dicehall import games
from dicehall.engine import codec
from dicehall.server.core.clock import now
from dicehall.server.core.txn import after_commit
from dicehall.server.domain.automatch import estimate, tickets
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.ratings import kinds
from dicehall.server.domain.reliability import limits_of
from dicehall.server.domain.work import notify
from dicehall.server.web import forms
from dicehall.server.web.common import (
    EXPIRED,
    Member,
    Visitor,
    member_token_ok,
    see,
    sentence,
    services_of,
    visitor,
)
from dicehall.server.web.forms import Form
from dicehall.server.web.render import page

router = APIRouter(include_in_schema=False)

#: The paces offered (the API takes any pace), and when bots may come.
PACES = (
    ("live", "Live: 3 min, +20 s a move"),
    ("brisk", "Brisk: 1 day, +4 h a move"),
    ("daily", "Daily: 3 days, +12 h a move"),
    ("relaxed", "Relaxed: 5 days, +1 day a move"),
)
BOTS_AFTER = (
    ("", "Never: wait for people"),
    ("1", "After a minute"),
    ("5", "After 5 minutes"),
    ("15", "After 15 minutes"),
    ("60", "After an hour"),
    ("1440", "After a day"),
)
NOTICES = {
    "cancelled": "Ticket cancelled.",
}


def duration(seconds: int) -> str:
    """A span of time in words, to the largest unit: "under a minute", "3 minutes"."""
    if seconds < 60:
        return "under a minute"
    minutes = round(seconds / 60)
    if minutes < 90:
        return f"{minutes} minute{'s' if minutes != 1 else ''}"
    hours = round(seconds / 3600)
    if hours < 36:
        return f"{hours} hours"
    return f"{round(seconds / 86400)} days"


def wait_text(seconds: int | None) -> str:
    """An estimated wait in words."""
    if seconds is None:
        return "not known yet"
    return "under a minute" if seconds < 60 else f"about {duration(seconds)}"


def _cards(queues: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One card per game and variant: its queue, the table sizes it can take, the
    defaults."""
    cards = []
    for queue in queues:
        entry = games.get(queue["game"])
        for variant in queue["variants"]:
            options = codec.decode(variant["options"], entry.game.options_type)
            sizes = tickets.seat_counts(entry.name, codec.dumps(options))
            if not sizes:
                continue
            seats = entry.game.default_seats
            cards.append(
                {
                    **variant,
                    "game": entry.name,
                    "sizes": sizes,
                    "default_seats": seats if seats in sizes else sizes[0],
                    "rateable": kinds.kind_of(entry.name, options) is not None,
                    "wait": wait_text(variant["estimated_wait_s"]),
                }
            )
    return cards


def _shown(ticket: dict[str, Any]) -> dict[str, Any]:
    """A ticket of mine as the page words it."""
    low, high = ticket["seats"]
    return {
        **ticket,
        "sizes": f"{low} seats" if low == high else f"{low} to {high} seats",
        "pace_name": (ticket["pace"] or {}).get("name", "none"),
        "waited": duration(ticket["waited_s"]),
        "wait": wait_text(ticket["estimated_wait_s"]),
    }


async def _page(
    request: Request,
    who: Visitor,
    problem: str | None = None,
    status_code: int = 200,
    follow: int | None = None,
) -> HTMLResponse:
    at = now()
    viewer = None if who.user is None else who.user.id

    def work() -> dict[str, Any]:
        with services_of(request).read_conn() as conn:
            return tickets.listing(conn, viewer, at)

    listed = await run_in_threadpool(work)
    mine = [_shown(t) for t in listed["tickets"]]
    watching = [t["id"] for t in mine if t["status"] == "waiting"]
    if follow is not None and follow not in watching:
        watching.append(follow)
    notice = next((text for key, text in NOTICES.items() if request.query_params.get(key)), None)
    return page(
        request,
        "automatch.html",
        user=who.user,
        csrf=who.csrf,
        status_code=status_code,
        cards=_cards(listed["queues"]),
        tickets=mine,
        watching=" ".join(str(i) for i in watching),
        filed=follow,
        notice=notice,
        problem=problem,
        paces=PACES,
        bots_after=BOTS_AFTER,
    )


@router.get("/automatch", response_class=HTMLResponse)
async def automatch_page(request: Request) -> HTMLResponse:
    """Every game with its Auto-match button and queue, and my tickets."""
    who = await run_in_threadpool(visitor, request)
    raw = request.query_params.get("filed", "")
    follow = int(raw) if raw.isdigit() and len(raw) < 12 else None
    return await _page(request, who, follow=follow)


def _number(form: Form, name: str, what: str) -> int | None:
    text = form.get(name).strip()
    if not text:
        return None
    if not text.isdigit() or len(text) > 5:
        raise Refused("invalid", f"invalid_{name}", f"{what} must be a whole number")
    return int(text)


def _variant_options(game: str, key: str) -> dict[str, Any]:
    """The options of the variant a card's button names (none named: the defaults)."""
    if not key:
        return {}
    chosen = estimate.variant(key)
    if chosen is None or chosen.game != game:
        raise Refused("invalid", "unknown_variant", f"auto-match offers no {key!r} here")
    return dict(chosen.options)


def _wish(form: Form) -> tickets.Wish:
    low = _number(form, "seats_min", "the smallest table")
    high = _number(form, "seats_max", "the largest table")
    if low is None or high is None:
        raise Refused("invalid", "invalid_seats", "choose the smallest and largest table")
    game = form.get("game").strip()[:30]
    return tickets.check(
        game,
        _variant_options(game, form.get("variant").strip()[:40]),
        [low, high],
        form.get("pace").strip()[:20] or "daily",
        form.get("rated") == "on",
        _number(form, "bots_after", "the minutes before bots come"),
    )


async def _act(request: Request, who: Member, work: Callable[[Connection, Form], str]) -> Response:
    """Run the form's write; back to the page (``?`` + what ``work`` returns), or the page
    again with the refusal above it."""
    form = await forms.read_form(request)
    if not member_token_ok(who, form):
        return await _page(request, who, problem=EXPIRED, status_code=422)
    services = services_of(request)

    def run() -> str:
        with services.write_conn() as conn:
            return work(conn, form)

    try:
        query = await run_in_threadpool(run)
    except Refused as exc:
        return await _page(request, who, problem=sentence(exc.message), status_code=exc.status)
    return see(f"/automatch?{query}")


@router.post("/automatch", response_class=HTMLResponse)
async def file_ticket(request: Request, who: Member) -> Response:
    """File a ticket for the game the pressed button names."""
    services = services_of(request)

    def work(conn: Connection, form: Form) -> str:
        wish = _wish(form)
        filed = tickets.file(
            conn, services.pool, who.user, wish, now(), limits_of(services.settings)
        )

        def pushed() -> None:
            for record, seats in filed.changed:  # a seat taken at once: the game changed
                notify(services, record, seats)

        after_commit(conn, pushed)
        return f"filed={filed.ticket['id']}"

    return await _act(request, who, work)


@router.post("/automatch/{ticket_id}/cancel", response_class=HTMLResponse)
async def cancel_ticket(request: Request, who: Member, ticket_id: str) -> Response:
    """Cancel one of my waiting tickets."""

    def work(conn: Connection, _form: Form) -> str:
        if not ticket_id.isdigit() or len(ticket_id) > 10:
            raise Refused("not_found", "not_found", "there is no such ticket")
        tickets.cancel(conn, who.user.id, int(ticket_id), now())
        return "cancelled=1"

    return await _act(request, who, work)
