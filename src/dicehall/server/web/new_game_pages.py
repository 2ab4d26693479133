"""The new-game pages: pick a game, then its form (opponents, options, pace, vacation,
privacy, and whether it is rated); creating the game opens its board."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from dicehall import games
from dicehall.engine.errors import InvalidInput, InvalidOptions
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.games.opponents import opponent_problems
from dicehall.server.domain.games.seating import create_game
from dicehall.server.domain.reliability import limits_of
from dicehall.server.domain.work import notify, read, run_db, write
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
)
from dicehall.server.web.forms import Form
from dicehall.server.web.render import page

router = APIRouter(include_in_schema=False)


def _opponent(raw: str) -> str:
    """A user id asked for in the address (a profile's New game button), if it looks like one."""
    handle = raw.strip()
    return handle if 0 < len(handle) <= 40 and handle.isprintable() else ""


@router.get("/new", response_class=HTMLResponse)
def new_pick(request: Request, who: Member, opponent: str = "") -> Response:
    """Which game to start (``opponent``: a user to invite, passed on to the game's form)."""
    return page(
        request,
        "new_pick.html",
        user=who.user,
        csrf=who.csrf,
        blurbs={name: games.get(name).blurb for name in games.available()},
        opponent=_opponent(opponent),
    )


def _new_game_page(
    request: Request, who: Visitor, game: str, form: Form, status_code: int = 200
) -> HTMLResponse:
    entry = games.get(game)
    rows = forms.opponent_rows(game)
    return page(
        request,
        "new_game.html",
        user=who.user,
        csrf=who.csrf,
        form=form,
        game=entry.name,
        title=entry.title,
        blurb=entry.blurb,
        options=forms.option_fields(entry.name),
        bots=entry.ranked_bots(),
        rows=rows,
        min_opponents=entry.game.min_seats - 1,
        max_opponents=entry.game.max_seats - 1,
        paces=forms.PACE_CHOICES,
        no_vacation=forms.NO_VACATION_PACES,
        status_code=status_code,
    )


def _default_new_game_form(game: str) -> Form:
    entry = games.get(game)
    values = {f"opt_{spec.name}": spec.default for spec in forms.option_fields(game)}
    values = {k: v for k, v in values.items() if v != ""}
    bot = "heuristic" if "heuristic" in entry.bots else sorted(entry.bots)[0]
    # As many bot opponents as the game's usual table has (Bull's Eye: three players).
    for row in range(1, max(2, entry.game.default_seats)):
        values[f"opp{row}"] = f"bot:{bot}"
    values["vacation"] = "on"
    values["rated"] = "on"
    return Form(values)


@router.get("/new/{game}", response_class=HTMLResponse)
def new_game_form(request: Request, who: Member, game: str, opponent: str = "") -> Response:
    """The form for a new game of ``game``: its options and the opponents (``opponent``: a
    user invited in the first row)."""
    try:
        entry = games.get(game)
    except InvalidInput:
        return not_found(request, who, f"There is no game called {game!r}.")
    form = _default_new_game_form(entry.name)
    if _opponent(opponent):
        form.values.update({"opp1": "user", "user1": _opponent(opponent)})
    return _new_game_page(request, who, entry.name, form)


@router.post("/new/{game}", response_class=HTMLResponse)
async def new_game(request: Request, who: Member, game: str) -> Response:
    """Create the game and go to its board."""
    form = await forms.read_form(request)
    try:
        entry = games.get(game)
    except InvalidInput:
        return not_found(request, who, f"There is no game called {game!r}.")
    user = who.user
    services = services_of(request)
    if not member_token_ok(who, form):
        form.problem = EXPIRED
    specs = forms.seat_specs(entry.name, form)
    named: dict[str, str] = {}
    for row in range(1, forms.opponent_rows(entry.name) + 1):
        handle = form.get(f"user{row}").strip()
        if form.get(f"opp{row}") != "user" or not handle or f"user{row}" in form.errors:
            continue
        if handle.lower() == user.user_id.lower():
            form.error(f"user{row}", "That is you; invite someone else.")
        else:
            named[f"user{row}"] = handle
    raw = forms.raw_options(entry.name, form)
    forms.option_errors(entry.name, raw, form)
    pace = forms.pace_choice(form)
    # Every user named is looked up now, whatever else is wrong: one answer says it all.
    if named:
        found = await run_db(
            services, read, services, lambda conn: opponent_problems(conn, user.id, named)
        )
        for field, problem in found.items():
            form.error(field, sentence(problem))
    if form.ok:
        try:
            record, seats = await run_db(
                services,
                write,
                services,
                lambda conn: create_game(
                    conn,
                    services.pool,
                    user,
                    entry.name,
                    raw,
                    specs,
                    pace=pace,
                    vacation=forms.vacation_choice(form),
                    private=bool(form.get("private")),
                    rated=forms.rated_choice(form),
                    limits=limits_of(services.settings),
                ),
            )
        except Refused as exc:
            _place_seat_error(entry.name, exc, form)
        except (InvalidOptions, InvalidInput) as exc:
            form.problem = sentence(str(exc))
        else:
            notify(services, record, seats)
            return see(f"/games/{record.id}")
    return _new_game_page(request, who, entry.name, form, status_code=422)


def _place_seat_error(game: str, exc: Refused, form: Form) -> None:
    if exc.code == "unknown_user":
        for row in range(1, forms.opponent_rows(game) + 1):
            handle = form.get(f"user{row}").strip()
            if form.get(f"opp{row}") == "user" and repr(handle) in exc.message:
                form.error(f"user{row}", sentence(exc.message))
                return
    if exc.code == "invalid_seats":
        form.error("opp1", sentence(exc.message))
        return
    form.problem = sentence(exc.message)
