"""Search user profiles, and a user's public profile with what I may do about them.

The search page is a plain GET form (works without scripts): a prefix of a user id or
display name, "online only", and a "More" link for the next page; when no name starts with
what was typed, the closest names are offered instead. The profile shows the account, the
day the user was last here, their ratings (each with a small chart), their games, my
head-to-head record with them, and for a
signed-in viewer who is someone else: New game, Message, and Buddy / Ignore / Remove with a
private note (forms that post to the routes below).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from sqlalchemy import Connection

from dicehall import games
from dicehall.engine.errors import InvalidInput
from dicehall.server.core.clock import now
from dicehall.server.core.models import User
from dicehall.server.domain import accounts, luck, reliability, vacation
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.people import online, profile, relations, search
from dicehall.server.domain.people.relations import Kind
from dicehall.server.domain.services import Services
from dicehall.server.domain.work import run_db, write
from dicehall.server.domain.write_rates import check_write_rate
from dicehall.server.web import forms
from dicehall.server.web.common import (
    EXPIRED,
    Member,
    Visitor,
    held_up,
    member_token_ok,
    not_found,
    report,
    see,
    services_of,
    visitor,
)
from dicehall.server.web.forms import Form
from dicehall.server.web.rating_chart import HEIGHT, MARGIN, WIDTH, RatingCard, rating_cards
from dicehall.server.web.render import page
from dicehall.server.web.tournament_words import results_of

router = APIRouter(include_in_schema=False)

#: What the page says once a relation form has been saved (``?saved=``).
SAVED = {
    "buddy": "is your buddy now",
    "ignore": "is ignored now: you will not meet anywhere on the site",
    "note": "has your note saved",
    "removed": "is no longer on your lists",
}
#: Which field a refusal of the relation form belongs next to.
_FIELD_OF = {"invalid_note": "note"}


# -- search --------------------------------------------------------------------------------------


@router.get("/users", response_class=HTMLResponse)
def search_page(request: Request) -> HTMLResponse:
    """Search user profiles by the start of a user id or display name."""
    who = visitor(request)
    params = request.query_params
    form = Form({"q": params.get("q", "")[:200], "online": params.get("online", "")})
    asked = form.get("q").strip()
    online_only = True if form.get("online") else None
    found: search.Results | None = None
    more = None
    if asked:
        services = services_of(request)
        try:
            with services.read_conn() as conn:
                found = search.search(
                    conn,
                    None if who.user is None else who.user.id,
                    asked,
                    online=online_only,
                    cursor=params.get("cursor", "")[:200] or None,
                    online_of=online.online_of(services),
                )
        except Refused as exc:
            report(form, exc, {"invalid_query": "q"})
        if found is not None and found.next is not None:
            kept = {"q": asked, **({"online": "1"} if online_only else {})}
            more = "/users?" + urlencode({**kept, "cursor": found.next})
    return page(
        request,
        "users.html",
        user=who.user,
        csrf=who.csrf,
        status_code=200 if form.ok else 422,
        form=form,
        asked=asked,
        found=found,
        more=more,
        first_page=not params.get("cursor"),
        most=search.QUERY_MAX,
    )


# -- the profile -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class CurrentGame:
    """A game in progress as the profile lists it."""

    id: int
    title: str
    players: str
    turn: str


def _title(kind: str) -> str:
    try:
        return games.get(kind).title
    except InvalidInput:  # a game no longer installed on this site
        return kind


def _luck_totals(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The luck report's totals, each with its game's title."""
    return [{**total, "title": _title(total["game"])} for total in report["totals"]]


def _measured_words() -> str:
    """The games a luck report can measure, by title: "A, B or C"."""
    titles = [_title(name) for name in luck.measured_games()]
    if len(titles) < 2:
        return "".join(titles)
    return f"{', '.join(titles[:-1])} or {titles[-1]}"


def _current(rows: list[dict[str, Any]]) -> list[CurrentGame]:
    shown = []
    for row in rows:
        seat = next((s for s in row["seats"] if s["seat"] == row["to_act"]), None)
        shown.append(
            CurrentGame(
                row["id"],
                row["title"],
                ", ".join(s["name"] for s in row["seats"]),
                "in play" if seat is None else f"{seat['name']} to play",
            )
        )
    return shown


@dataclass(frozen=True)
class ProfileView:
    """Everything the profile page shows about one user."""

    shown: User
    reliability: dict[str, Any]
    extras: dict[str, Any]
    last_seen: str
    ratings: list[RatingCard]
    tournaments: list[dict[str, Any]]
    luck: dict[str, Any]


#: The profile's luck section covers this many latest games (the API up to 50).
LUCK_GAMES = 20


def _view(services: Services, user_id: str, viewer_pk: int | None) -> ProfileView | None:
    """The profile of ``user_id`` as ``viewer_pk`` sees it (None: no such user)."""
    with services.sessions() as db:
        try:
            shown = accounts.find_user(db, user_id)
        except Refused:
            return None
        conn = db.connection()
        extras = profile.profile_extras(conn, shown.id, viewer_pk)
        seen = profile.last_seen_day(conn, shown.id)
        return ProfileView(
            shown,
            reliability.reliability(conn, shown.id),
            extras,
            profile.seen_words(seen, now().date()),
            rating_cards(conn, shown.id),
            results_of(conn, shown.id),
            luck.luck_report(conn, shown.user_id, LUCK_GAMES),
        )


async def _profile_page(
    request: Request,
    who: Visitor,
    user_id: str,
    form: Form | None = None,
    status_code: int = 200,
) -> Response:
    services = services_of(request)
    viewer_pk = None if who.user is None else who.user.id
    view = await run_db(services, _view, services, user_id, viewer_pk)
    if view is None:
        return not_found(request, who, "There is no user by that id.")
    relation = view.extras["relation"]
    saved = request.query_params.get("saved", "")
    return page(
        request,
        "user.html",
        user=who.user,
        csrf=who.csrf,
        status_code=status_code,
        shown=view.shown,
        reliability=view.reliability,
        luck=view.luck,
        luck_totals=_luck_totals(view.luck),
        luck_games=_measured_words(),
        away_until=vacation.away_until(view.shown, now()),
        last_seen=view.last_seen,
        current=_current(view.extras["current_games"]),
        head_to_head=view.extras["head_to_head"],
        relation=relation,
        form=form or Form({"note": "" if relation is None else relation["note"]}),
        saved=SAVED.get(saved) if status_code == 200 else None,
        mine=who.user is not None and who.user.id == view.shown.id,
        note_most=relations.NOTE_MOST,
        ratings=view.ratings,
        tournaments=view.tournaments,
        chart=(WIDTH, HEIGHT, MARGIN),
    )


@router.get("/users/{user_id}", response_class=HTMLResponse)
async def public_profile(request: Request, user_id: str) -> Response:
    """Anyone's public profile; a member also sees what they may do about them."""
    who = await run_db(services_of(request), visitor, request)
    return await _profile_page(request, who, user_id)


# -- buddy, ignore, note ---------------------------------------------------------------------------


def _say(conn: Connection, owner_pk: int, user_id: str, choice: str, note: str) -> str:
    """Save what the relation form chose (``buddy``, ``ignore``, or ``note``: the note
    alone, kept with what I said before); the target's user id."""
    target_pk, target_id = relations.target_of(conn, owner_pk, user_id)
    kind: Kind
    if choice == "note":
        had = relations.relation_of(conn, owner_pk, target_pk)
        if had is None:
            raise Refused(
                "invalid", "invalid_note", "choose Buddy or Ignore: a note goes with one of them"
            )
        kind = had[0]
    else:
        kind = "buddy" if choice == "buddy" else "ignore"
    relations.put(conn, owner_pk, target_pk, kind, note)
    return target_id


def _forget(conn: Connection, owner_pk: int, user_id: str, choice: str, note: str) -> str:
    """Forget what I said about ``user_id``; their user id."""
    del choice, note
    target_pk, target_id = relations.target_of(conn, owner_pk, user_id)
    relations.remove(conn, owner_pk, target_pk)
    return target_id


async def _relation_form(request: Request, who: Member, user_id: str, remove: bool) -> Response:
    form = await forms.read_form(request)
    choice = "removed" if remove else form.get("kind")
    if not member_token_ok(who, form):
        form.problem = EXPIRED
    elif choice not in ("buddy", "ignore", "note", "removed"):
        form.problem = "Choose Buddy, Ignore or Save note."
    refused: Refused | None = None
    if form.ok:
        services = services_of(request)
        work = _forget if remove else _say
        try:
            if not remove:
                await run_db(services, check_write_rate, services, "relations", who.user.id)
            target_id = await run_db(
                services,
                write,
                services,
                lambda conn: work(conn, who.user.id, user_id, choice, form.get("note")),
            )
        except Refused as exc:
            if exc.kind == "not_found":
                return not_found(request, who, "There is no user by that id.")
            report(form, exc, _FIELD_OF)
            refused = exc
        else:
            return see(f"/users/{target_id}?saved={choice}#relation")
    return held_up(await _profile_page(request, who, user_id, form, status_code=422), refused)


@router.post("/users/{user_id}/relation", response_class=HTMLResponse)
async def set_relation(request: Request, who: Member, user_id: str) -> Response:
    """Name the user a buddy or ignore them, with my private note (or save the note)."""
    return await _relation_form(request, who, user_id, remove=False)


@router.post("/users/{user_id}/relation/remove", response_class=HTMLResponse)
async def remove_relation(request: Request, who: Member, user_id: str) -> Response:
    """Forget what I said about the user (and my note)."""
    return await _relation_form(request, who, user_id, remove=True)
