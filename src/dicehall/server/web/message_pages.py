"""The messages pages: my threads, one thread with its compose form, and sending a message
to anyone by user id. Every form works without scripts (it posts and comes back); with
scripts the thread page shows new messages live and sends without a reload.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from markupsafe import Markup
from starlette.concurrency import run_in_threadpool

from dicehall.server.core.clock import now
from dicehall.server.core.ids import in_id_range
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.people import messages
from dicehall.server.domain.services import Services
from dicehall.server.web import forms
from dicehall.server.web.common import EXPIRED, Member, member_token_ok, see, sentence, services_of
from dicehall.server.web.forms import Form
from dicehall.server.web.linkify import linkify
from dicehall.server.web.moments import Moment, moment
from dicehall.server.web.render import page

router = APIRouter(include_in_schema=False)

#: Threads on one page of the list, and messages on one page of a thread.
THREADS_PAGE = 30
MESSAGES_PAGE = 50
#: Which field a refusal belongs next to (by its code); others go above the form.
FIELDS = {
    "invalid_body": "body",
    "unknown_user": "to",
    "yourself": "to",
    "unknown_game": "game",
}
LABELS = {"to": "To", "body": "Your message", "game": "Game number"}


def thread_path(user_id: str) -> str:
    """The thread page with ``user_id`` (a user called "new" is not the compose page)."""
    if user_id.lower() == "new":
        return f"/messages/with/{quote(user_id)}"
    return f"/messages/{quote(user_id)}"


@dataclass(frozen=True)
class ShownThread:
    """A thread as the list shows it."""

    user_id: str
    display_name: str
    href: str
    preview: str
    last_mine: bool
    when: Moment
    unread: int


@dataclass(frozen=True)
class ShownMessage:
    """A message as the thread page shows it."""

    id: int
    mine: bool
    html: Markup
    game: int | None
    when: Moment
    new: bool
    hidden: bool = False


def _older(before: str) -> int | None:
    return int(before) if before.isdigit() and in_id_range(int(before)) else None


# -- my threads --------------------------------------------------------------------------------


@router.get("/messages", response_class=HTMLResponse)
async def my_messages(request: Request, who: Member, before: str = "") -> Response:
    """My threads, newest first (``before=ID``: older ones), unread ones marked."""
    older = _older(before)
    services = services_of(request)

    def load() -> dict[str, Any]:
        with services.read_conn() as conn:
            return messages.threads(conn, who.user.id, older, THREADS_PAGE)

    found = await run_in_threadpool(load)
    shown = [
        ShownThread(
            t["user_id"],
            t["display_name"],
            thread_path(t["user_id"]),
            t["last"]["preview"],
            t["last"]["from"] != t["user_id"],
            moment(t["last"]["created_at"]),
            t["unread"],
        )
        for t in found["threads"]
    ]
    return page(
        request,
        "messages.html",
        user=who.user,
        csrf=who.csrf,
        threads=shown,
        unread=found["unread"],
        older=found["next"],
        paged=older is not None,
        hidden=request.query_params.get("hidden") == "1",
    )


# -- sending -----------------------------------------------------------------------------------


def _game_of(form: Form) -> int | None:
    """The game number the form names (None when left empty); a wrong one is marked."""
    text = form.get("game").strip().lstrip("#")
    if not text:
        return None
    if not text.isdigit() or not in_id_range(int(text)):
        form.error("game", "Type the number of a game (as in its address, /games/NUMBER).")
        return None
    return int(text)


async def _send(request: Request, who: Member, to: str, form: Form) -> str | None:
    """Send what ``form`` holds to ``to``; the thread page to go to, or None (the form
    holds what is wrong)."""
    try:
        messages.clean_body(form.get("body"))
    except Refused as exc:
        form.error("body", sentence(exc.message))
    game_id = _game_of(form)
    if not member_token_ok(who, form):
        form.problem = EXPIRED
    if not form.ok:
        return None
    services = services_of(request)

    def work() -> str:
        with services.write_conn() as conn:
            messages.send(conn, who.user.id, to, form.get("body"), game_id, now())
            return messages.other_side(conn, who.user.id, to).user_id

    try:
        other = await run_in_threadpool(work)
    except Refused as exc:
        field = FIELDS.get(exc.code)
        if field is not None and (field != "to" or "to" in form.values):
            form.error(field, sentence(exc.message))
        else:
            form.problem = sentence(exc.message)
        return None
    return thread_path(other) + "#compose"


def _compose_page(request: Request, who: Member, form: Form, status_code: int) -> HTMLResponse:
    return page(
        request,
        "message_new.html",
        user=who.user,
        csrf=who.csrf,
        form=form,
        labels=LABELS,
        most=messages.BODY_MOST,
        status_code=status_code,
    )


@router.get("/messages/new", response_class=HTMLResponse)
async def new_message(request: Request, who: Member, to: str = "", game: str = "") -> Response:
    """Send a message to anyone by user id (``?to=USER&game=ID`` fill the form in)."""
    form = Form({"to": to[:40], "game": game[:12]})
    return _compose_page(request, who, form, 200)


@router.post("/messages/new", response_class=HTMLResponse)
async def post_new_message(request: Request, who: Member) -> Response:
    """Send the compose form's message; on to its thread, or back with what is wrong."""
    form = await forms.read_form(request)
    to = form.get("to").strip()
    if not to:
        form.error("to", "Type the user id of whoever you are writing to.")
    target = await _send(request, who, to, form) if to else None
    if target is not None:
        return see(target)
    return _compose_page(request, who, form, 422)


# -- one thread --------------------------------------------------------------------------------


def _open_thread(
    services: Services, user_pk: int, other: str, before: int | None
) -> dict[str, Any]:
    """A page of my thread with ``other``; the first page is marked read as far as shown
    (in a write transaction only when something was unread)."""
    with services.read_conn() as conn:
        found = messages.thread(conn, user_pk, other, before, MESSAGES_PAGE)
    unread = [m["id"] for m in found["messages"] if m["unread"]]
    if unread and before is None:
        with services.write_conn() as conn:
            messages.mark_read(conn, user_pk, other, max(unread))
    return found


async def _thread_page(
    request: Request,
    who: Member,
    other: str,
    before: int | None = None,
    form: Form | None = None,
    status_code: int = 200,
) -> HTMLResponse:
    services = services_of(request)
    try:
        found = await run_in_threadpool(_open_thread, services, who.user.id, other, before)
    except Refused as exc:
        return page(
            request,
            "message.html",
            user=who.user,
            csrf=who.csrf,
            status_code=exc.status,
            heading="No such conversation",
            message=sentence(exc.message),
        )
    me = who.user.user_id
    shown = [
        ShownMessage(
            m["id"],
            m["from"] == me,
            linkify(m["body"]),
            m["game"],
            moment(m["created_at"]),
            m["unread"],
            m["hidden"],
        )
        for m in reversed(found["messages"])
    ]
    with_user = found["with"]
    return page(
        request,
        "message_thread.html",
        user=who.user,
        csrf=who.csrf,
        other=with_user,
        path=thread_path(with_user["user_id"]),
        shown=shown,
        older=found["next"],
        paged=before is not None,
        form=form or Form({"game": request.query_params.get("game", "")[:12]}),
        labels=LABELS,
        most=messages.BODY_MOST,
        status_code=status_code,
    )


@router.get("/messages/{user_id}", response_class=HTMLResponse)
@router.get("/messages/with/{user_id}", response_class=HTMLResponse)
async def thread_page(request: Request, who: Member, user_id: str, before: str = "") -> Response:
    """My thread with ``user_id``, the newest message at the bottom, and a form to write;
    opening it marks what it shows read."""
    return await _thread_page(request, who, user_id, _older(before))


@router.post("/messages/{user_id}", response_class=HTMLResponse)
@router.post("/messages/with/{user_id}", response_class=HTMLResponse)
async def post_in_thread(request: Request, who: Member, user_id: str) -> Response:
    """Send the thread's compose form; back to the thread, or the form with what is wrong."""
    form = await forms.read_form(request)
    target = await _send(request, who, user_id, form)
    if target is not None:
        return see(target)
    return await _thread_page(request, who, user_id, form=form, status_code=422)


@router.post("/messages/{user_id}/hide", response_class=HTMLResponse)
@router.post("/messages/with/{user_id}/hide", response_class=HTMLResponse)
async def hide_thread(request: Request, who: Member, user_id: str) -> Response:
    """Hide my thread with ``user_id`` from my list (the other side keeps it)."""
    form = await forms.read_form(request)
    if not member_token_ok(who, form):
        form.problem = EXPIRED
        return await _thread_page(request, who, user_id, form=form, status_code=422)
    services = services_of(request)

    def work() -> None:
        with services.write_conn() as conn:
            messages.hide(conn, who.user.id, user_id)

    try:
        await run_in_threadpool(work)
    except Refused:
        return await _thread_page(request, who, user_id)
    return see("/messages?hidden=1")
