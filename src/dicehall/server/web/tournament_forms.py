"""The create-a-tournament form: the game first (a small form that reloads the page with
that game's options), then the name, the game's options, the format, the number of players
or rounds, the seats at each table, the pace, rated or not, a start time or start when
full, and who may join. Anyone signed in may create one.

A mistake is shown next to its field with everything typed kept, and nothing is created.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from dicehall import games
from dicehall.engine.errors import InvalidInput, InvalidOptions
from dicehall.server.core.clock import now
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.tournaments import create, paces
from dicehall.server.domain.work import run_db, write
from dicehall.server.web import forms
from dicehall.server.web.common import (
    EXPIRED,
    Member,
    Visitor,
    member_token_ok,
    see,
    sentence,
    services_of,
)
from dicehall.server.web.forms import Form
from dicehall.server.web.render import page
from dicehall.server.web.tournament_words import FORMAT_HINTS, FORMATS, duration, title_of

router = APIRouter(include_in_schema=False)

#: The paces a tournament may have: (value, words). Each player has a fixed bank for a
#: whole game (no increment, no vacation), so every round has a known deadline.
PACES: tuple[tuple[str, str], ...] = tuple(
    (name, f"{name.capitalize()}: {duration(bank)} per player")
    for name, bank in paces.PRESETS.items()
)
#: Which field a refusal of the domain belongs next to, by its code (a code of the form
#: ``invalid_<field>`` finds its field by itself).
FIELD_OF = {"unknown_game": "game", "invalid_start": "starts_at"}
#: The form's fields by the names the domain's messages use.
FIELDS = ("name", "game", "format", "size", "rounds", "table", "pace", "starts_at", "who")
#: Labels of the fields, for the summary of problems above the form.
LABELS = {
    "name": "Name",
    "game": "Game",
    "format": "Format",
    "size": "Players",
    "rounds": "Rounds",
    "table": "Seats at each table",
    "pace": "Pace",
    "start": "Start",
    "starts_at": "Start time",
    "who": "Who may join",
}
NAME_MOST = create.NAME_MAX
#: The domain's names of fields, as the form says them.
WORDS = (
    (r"\bstarts_at\b", "the start time"),
    (r"^size\b", "the number of players"),
    (r"^rounds\b", "the number of rounds"),
    (r"^table\b", "the seats at each table"),
)


def table_sizes(game: str) -> list[int]:
    """The seats a table of ``game`` may have in a tournament (two or more)."""
    rules = games.get(game).game
    return list(range(max(2, rules.min_seats), rules.max_seats + 1))


def _default_form(game: str) -> Form:
    rules = games.get(game).game
    values = {f"opt_{spec.name}": spec.default for spec in forms.option_fields(game)}
    values = {k: v for k, v in values.items() if v != ""}
    values.update(
        {
            "game": game,
            "format": "swiss",
            "rounds": "3",
            "size": "",
            "table": str(max(2, rules.default_seats)),
            "pace": "daily",
            "rated": "on",
            "start": "full",
            "who": "anyone",
        }
    )
    return Form(values)


def _game_of(raw: str) -> str:
    chosen = raw.strip()
    return chosen if chosen in games.available() else games.available()[0]


def _form_page(
    request: Request, who: Visitor, game: str, form: Form, status_code: int = 200
) -> HTMLResponse:
    labels = dict(LABELS)
    options = forms.option_fields(game)
    labels.update({f"opt_{o.name}": o.label for o in options})
    return page(
        request,
        "tournament_new.html",
        user=who.user,
        csrf=who.csrf,
        status_code=status_code,
        form=form,
        game=game,
        title=title_of(game),
        choices=[(name, title_of(name)) for name in games.available()],
        options=options,
        formats=[(name, words, FORMAT_HINTS[name]) for name, words in FORMATS.items()],
        tables=table_sizes(game),
        paces=PACES,
        labels=labels,
        name_most=NAME_MOST,
    )


@router.get("/tournaments/new", response_class=HTMLResponse)
def new_tournament(request: Request, who: Member, game: str = "") -> Response:
    """The form for a new tournament of ``game`` (the first game when none is named)."""
    chosen = _game_of(game)
    return _form_page(request, who, chosen, _default_form(chosen))


def _whole(form: Form, name: str, words: str) -> int | None:
    """The whole number typed in ``name`` (None when empty); a field error otherwise."""
    text = form.get(name).strip()
    if not text:
        return None
    if not text.isdigit() or len(text) > 4:
        form.error(name, f"Type {words} as a whole number, or leave it empty.")
        return None
    return int(text)


def _start(form: Form) -> str | None:
    """The start time asked for, as ISO 8601 in UTC (None: start when full)."""
    if form.get("start", "full") != "at":
        return None
    text = form.get("starts_at").strip()
    if not text:
        form.error("starts_at", "Give the start time, or choose to start when full.")
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        form.error("starts_at", "Give the start time as a date and time, like 2030-05-01 18:00.")
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.isoformat()


def spec_of(game: str, form: Form) -> dict[str, Any]:
    """The tournament the form asks for, as the API's body (field errors recorded)."""
    raw = forms.raw_options(game, form)
    forms.option_errors(game, raw, form)
    chosen = form.get("format").strip()
    if chosen not in FORMATS:
        form.error("format", "Choose a cup, a Swiss tournament or a knockout.")
    table_text = form.get("table").strip()
    if not table_text.isdigit() or int(table_text) not in table_sizes(game):
        sizes = table_sizes(game)
        if len(sizes) == 1:
            form.error("table", f"Tables of this game have {sizes[0]} seats.")
        else:
            form.error("table", f"Choose {sizes[0]} to {sizes[-1]} seats at each table.")
    if form.get("pace") not in {value for value, _ in PACES}:
        form.error("pace", "Choose one of the paces in the list.")
    if form.get("who", "anyone") not in ("anyone", "buddies"):
        form.error("who", "Choose anyone, or your buddies only.")
    if form.get("start", "full") not in ("full", "at"):
        form.error("start", "Choose to start when full or at a time.")
    return {
        "name": form.get("name").strip(),
        "game": game,
        "options": raw,
        "format": chosen,
        "size": _whole(form, "size", "the number of players"),
        "rounds": _whole(form, "rounds", "the number of rounds") if chosen == "swiss" else None,
        "table": int(table_text) if table_text.isdigit() and len(table_text) < 3 else None,
        "pace": form.get("pace"),
        "rated": bool(form.get("rated")),
        "starts_at": _start(form),
        "buddies_only": form.get("who") == "buddies",
    }


def place_refusal(game: str, form: Form, exc: Refused) -> None:
    """Put the domain's refusal next to its field (by code, else by the field its message
    names first), else above the form."""
    field = FIELD_OF.get(exc.code)
    if field is None and exc.code.startswith("invalid_") and exc.code[8:] in FIELDS:
        field = exc.code[8:]
    if field is None and exc.code.startswith("invalid_option"):
        form.problem = forms.labelled(exc.message, forms.option_fields(game))
        return
    if field is not None:
        text = exc.message
        for pattern, words in WORDS:
            text = re.sub(pattern, words, text)
        form.error(field, sentence(text))
    else:
        form.problem = sentence(exc.message)


@router.post("/tournaments/new", response_class=HTMLResponse)
async def create_tournament(request: Request, who: Member) -> Response:
    """Create the tournament and go to its page."""
    form = await forms.read_form(request)
    raw_game = form.get("game").strip()
    game = _game_of(raw_game)
    if raw_game != game:
        form.values["game"] = game
        form.error("game", "Choose one of the site's games.")
    if not member_token_ok(who, form):
        form.problem = EXPIRED
    spec = spec_of(game, form)
    if form.ok:
        services = services_of(request)
        try:
            made = await run_db(
                services,
                write,
                services,
                lambda conn: create.create(conn, who.user, spec, now()),
            )
        except Refused as exc:
            place_refusal(game, form, exc)
        except (InvalidOptions, InvalidInput) as exc:
            form.problem = sentence(str(exc))
        else:
            return see(f"/tournaments/{made}?created=1")
    return _form_page(request, who, game, form, status_code=422)
