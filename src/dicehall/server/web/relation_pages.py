"""The buddy list and the ignore list: who I named, my private notes, adding and removing.

Both lists post to the same two routes; a form with a mistake (an unknown user, myself, a
note too long) is shown again with the message next to its field and what was typed kept.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from starlette.concurrency import run_in_threadpool

from dicehall.server.domain.errors import Refused
from dicehall.server.domain.people import relations
from dicehall.server.domain.people.relations import Kind
from dicehall.server.domain.write_rates import check_write_rate
from dicehall.server.web import forms
from dicehall.server.web.common import (
    EXPIRED,
    Member,
    SignedIn,
    held_up,
    member_token_ok,
    not_found,
    report,
    see,
    services_of,
)
from dicehall.server.web.forms import Form
from dicehall.server.web.render import page

router = APIRouter(include_in_schema=False)

#: Each list's page, by the kind of relation it holds.
PAGES: dict[Kind, str] = {"buddy": "/buddies", "ignore": "/ignored"}
#: Which field each refusal belongs next to.
FIELDS = {"unknown_user": "user_id", "yourself": "user_id", "invalid_note": "note"}


async def _list_page(
    request: Request, who: SignedIn, kind: Kind, form: Form | None = None, status: int = 200
) -> HTMLResponse:
    services = services_of(request)

    def listed() -> list[relations.Related]:
        with services.read_conn() as conn:
            return relations.listing(conn, who.user.id, kind)

    return page(
        request,
        "relations.html",
        user=who.user,
        csrf=who.csrf,
        status_code=status,
        kind=kind,
        people=await run_in_threadpool(listed),
        form=form or Form(),
        saved=request.query_params.get("saved"),
        removed=request.query_params.get("removed"),
    )


@router.get("/buddies", response_class=HTMLResponse)
async def buddies(request: Request, who: Member) -> Response:
    """My buddies (one-way; "mutual" when they name me too), with my notes."""
    return await _list_page(request, who, "buddy")


@router.get("/ignored", response_class=HTMLResponse)
async def ignored(request: Request, who: Member) -> Response:
    """The users I ignore: we never meet anywhere, and they are not told."""
    return await _list_page(request, who, "ignore")


def _kind_of(form: Form) -> Kind | None:
    value = form.get("kind")
    return next((kind for kind in PAGES if kind == value), None)


@router.post("/relations", response_class=HTMLResponse)
async def save(request: Request, who: Member) -> Response:
    """Name a user a buddy or ignore them, with a private note."""
    form = await forms.read_form(request)
    kind = _kind_of(form)
    if kind is None:
        return not_found(request, who, "There is no such list.")
    target = form.get("user_id").strip()
    if not target:
        form.error("user_id", "Type the user id of the player.")
    if not member_token_ok(who, form):
        form.problem = EXPIRED
    refused: Refused | None = None
    if form.ok:
        services = services_of(request)

        def work() -> str:
            check_write_rate(services, "relations", who.user.id)
            with services.write_conn() as conn:
                target_pk, user_id = relations.target_of(conn, who.user.id, target)
                relations.put(conn, who.user.id, target_pk, kind, form.get("note"))
                return user_id

        try:
            user_id = await run_in_threadpool(work)
        except Refused as exc:
            report(form, exc, FIELDS)
            refused = exc
        else:
            return see(_then(_back(form, PAGES[kind]), f"saved={user_id}"))
    return held_up(await _list_page(request, who, kind, form, status=422), refused)


@router.post("/relations/remove", response_class=HTMLResponse)
async def remove(request: Request, who: Member) -> Response:
    """Forget what I said about a user."""
    form = await forms.read_form(request)
    kind = _kind_of(form) or "buddy"
    if not member_token_ok(who, form):
        form.problem = EXPIRED
        return await _list_page(request, who, kind, form, status=422)
    services = services_of(request)
    target = form.get("user_id").strip()

    def work() -> None:
        with services.write_conn() as conn:
            target_pk, _ = relations.target_of(conn, who.user.id, target)
            relations.remove(conn, who.user.id, target_pk)

    try:
        await run_in_threadpool(work)
    except Refused as exc:
        report(form, exc, FIELDS)
        return await _list_page(request, who, kind, form, status=422)
    return see(_then(_back(form, PAGES[kind]), "removed=1"))


def _then(path: str, query: str) -> str:
    return f"{path}{'&' if '?' in path else '?'}{query}"


def _back(form: Form, default: str) -> str:
    """Where to go after a change: a page of this site the form names, else ``default``."""
    back = form.get("back")
    return back if back.startswith("/") and not back.startswith("//") else default
