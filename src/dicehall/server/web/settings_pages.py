"""The settings page: how game boards behave, how the site looks, who may reach me, which
ratings my profile shows, and (its own forms: notice_settings_pages) my notifications.

One form with every setting; it works without scripts (it posts with the session's CSRF
token and shows the saved state). The saved settings reach every open page of mine at once
(the domain pushes them; static/js/settings-live.js applies them); with scripts, choosing a
theme, dice or board size previews it on this page before it is saved.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, get_args

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from starlette.concurrency import run_in_threadpool

from dicehall.server.domain.errors import Refused
from dicehall.server.domain.people import settings
from dicehall.server.domain.ratings import kinds
from dicehall.server.domain.services import Services
from dicehall.server.web import forms, notice_view
from dicehall.server.web.common import (
    EXPIRED,
    Member,
    held_up,
    member_token_ok,
    see,
    sentence,
    services_of,
)
from dicehall.server.web.forms import Form
from dicehall.server.web.render import page

router = APIRouter(include_in_schema=False)


@dataclass(frozen=True)
class Choice:
    """One value of a setting offered as a radio button."""

    value: str
    label: str
    hint: str = ""


@dataclass(frozen=True)
class ChoiceGroup:
    """A setting offered as a group of radio buttons (a fieldset with its legend)."""

    name: str
    legend: str
    choices: tuple[Choice, ...]


@dataclass(frozen=True)
class Toggle:
    """A yes-or-no setting offered as a checkbox."""

    name: str
    label: str
    hint: str


_EVERYONE = Choice("everyone", "Everyone")
_BUDDIES = Choice("buddies", "Only my buddies")

#: "Edit game boards": how boards behave.
BOARD_CHOICES = (
    ChoiceGroup(
        "board_size",
        "Board size",
        (
            Choice("small", "Small", "More of the board fits on the screen."),
            Choice("medium", "Medium"),
            Choice("large", "Large", "Bigger dice and text on every board."),
        ),
    ),
)
BOARD_TOGGLES = (
    Toggle(
        "confirm_moves",
        "Confirm moves that end my turn",
        "Boatzee: choose a box, see what it scores, then Confirm. Off: one click on a box "
        "scores it (every open box shows its points).",
    ),
    Toggle(
        "hints_open",
        "Open the odds and hints panel on every board",
        "A board where you switched the hints on or off yourself keeps your choice.",
    ),
    Toggle(
        "sounds",
        "Play a short sound when it becomes my turn",
        "On a page of the site that you have clicked or typed on (browsers allow sound "
        "only after that).",
    ),
)
#: "Edit game graphics": how the site and its dice look.
GRAPHICS_CHOICES = (
    ChoiceGroup(
        "theme",
        "Colours",
        (
            Choice("light", "Light", "Dark text on a light page."),
            Choice("dark", "Dark", "Light text on a dark page."),
            Choice("high-contrast", "High contrast", "White on black; yellow links and focus."),
        ),
    ),
    ChoiceGroup(
        "dice_style",
        "Dice",
        (
            Choice("pips", "Pips", "The usual dots."),
            Choice("numerals", "Numerals", "Each die shows its number."),
            Choice("large", "Large pips", "Bigger dots, read at a glance."),
        ),
    ),
)
#: Who may reach me, and whether I show on Who is here.
PRIVACY_CHOICES = (
    ChoiceGroup(
        "messages_from",
        "Who may start a conversation with me",
        (
            _EVERYONE,
            _BUDDIES,
            Choice("nobody", "Nobody", "Replies in a conversation we already have still come."),
        ),
    ),
    ChoiceGroup(
        "challenges_from",
        "Who may invite me to a game or challenge me",
        (_EVERYONE, _BUDDIES, Choice("nobody", "Nobody")),
    ),
)
PRIVACY_TOGGLES = (
    Toggle("show_presence", "Show me on Who is here", "Off: nobody sees that you are here."),
)
#: "Edit ratings": which ratings my profile shows (a checkbox per kind, ``rating_<kind>``, see
#: :func:`rating_kinds`), and whether I see my own rating while I play.
RATING_TOGGLES = (
    Toggle(
        "hide_rating_while_playing",
        "Hide my rating while I play",
        "On the board of a game you sit in, your own rating and the chances to finish first "
        "are left out until the game is over; then you see your new rating and its change. "
        "Your profile and the leaderboards still show it.",
    ),
)

_GROUPS = (*BOARD_CHOICES, *GRAPHICS_CHOICES, *PRIVACY_CHOICES)
_TOGGLES = (*BOARD_TOGGLES, *PRIVACY_TOGGLES, *RATING_TOGGLES)
#: Each setting's label, for the summary of a form's problems.
LABELS = {
    **{g.name: g.legend for g in _GROUPS},
    **{t.name: t.label for t in _TOGGLES},
    "ratings_shown": "Ratings my profile shows",
}


def rating_kinds() -> tuple[tuple[str, str], ...]:
    """Every rating kind (a plug-in game's too) with its title, in the site's order."""
    return tuple((spec.name, spec.title) for spec in kinds.specs())


def _offered(name: str) -> set[str]:
    """The values the settings accept for the radio group ``name``."""
    return {str(value) for value in get_args(settings.UserSettings.model_fields[name].annotation)}


def changes_of(form: Form) -> dict[str, Any]:
    """Every setting as the form sent it; a radio value not offered is an error on its field
    (only a forged form sends one). A checkbox left unticked is not sent: off."""
    changes: dict[str, Any] = {}
    for group in _GROUPS:
        value = form.get(group.name)
        if value in _offered(group.name):
            changes[group.name] = value
        else:
            form.error(group.name, "Choose one of the options.")
    for toggle in _TOGGLES:
        changes[toggle.name] = form.get(toggle.name) == "on"
    changes["ratings_shown"] = [
        kind for kind in kinds.names() if form.get(f"rating_{kind}") == "on"
    ]
    return changes


def _load(services: Services, user_pk: int) -> settings.UserSettings:
    with services.read_conn() as conn:
        return settings.of(conn, user_pk)


def _save(services: Services, user_pk: int, changes: dict[str, Any]) -> None:
    settings.save(services, user_pk, changes)


def _page(
    request: Request,
    who: Member,
    shown: dict[str, Any],
    form: Form,
    status_code: int | None = None,
    **context: Any,
) -> HTMLResponse:
    return page(
        request,
        "settings.html",
        user=who.user,
        csrf=who.csrf,
        shown=shown,
        form=form,
        labels=LABELS,
        board_choices=BOARD_CHOICES,
        board_toggles=BOARD_TOGGLES,
        graphics_choices=GRAPHICS_CHOICES,
        privacy_choices=PRIVACY_CHOICES,
        privacy_toggles=PRIVACY_TOGGLES,
        rating_kinds=rating_kinds(),
        rating_toggles=RATING_TOGGLES,
        status_code=status_code or (200 if form.ok else 422),
        **context,
    )


async def full_page(
    request: Request, who: Member, status_code: int, **section: Any
) -> HTMLResponse:
    """The page with the stored settings, and the Notifications section's ``section``
    context (a failed form of that section: see notice_settings_pages)."""
    current = await run_in_threadpool(_load, services_of(request), who.user.id)
    return _page(request, who, current.model_dump(), Form(), status_code, **section)


@router.get("/settings", response_class=HTMLResponse)
async def settings_page(
    request: Request, who: Member, saved: str = "", notices: str = ""
) -> Response:
    """My settings, in one form, and the Notifications section's forms."""
    services = services_of(request)
    current = await run_in_threadpool(_load, services, who.user.id)
    section = await notice_view.section(services, who.user, done=notices)
    return _page(request, who, current.model_dump(), Form(), saved=saved == "1", **section)


@router.post("/settings", response_class=HTMLResponse)
async def settings_save(request: Request, who: Member) -> Response:
    """Save every setting the form sends; my open pages follow at once."""
    form = await forms.read_form(request)
    changes = changes_of(form)
    if not member_token_ok(who, form):
        form.problem = EXPIRED
    services = services_of(request)
    refused: Refused | None = None
    if form.ok:
        try:
            await run_in_threadpool(_save, services, who.user.id, changes)
        except Refused as exc:
            form.problem = sentence(exc.message)
            refused = exc
        else:
            return see("/settings?saved=1")
    current = await run_in_threadpool(_load, services, who.user.id)
    section = await notice_view.section(services, who.user)
    shown = _page(request, who, {**current.model_dump(), **changes}, form, **section)
    return held_up(shown, refused)
