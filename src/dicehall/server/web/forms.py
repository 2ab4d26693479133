"""HTML forms: CSRF tokens for visitors and members, field errors, and the new-game form.

A form that fails is shown again with each message next to its field and everything the
user typed kept (passwords aside), so nothing is lost.
"""

from __future__ import annotations

import dataclasses
import re
import types
import typing
from dataclasses import dataclass, field
from typing import Any, Literal, get_args, get_origin

from fastapi import Request, Response

from dicehall import games
from dicehall.engine.errors import InvalidOptions
from dicehall.engine.options import option_text
from dicehall.server.core.security import new_secret, same
from dicehall.server.domain.games.pace import parse_pace, vacation_saves

#: The double-submit cookie protecting the forms of visitors (sign up, log in).
FORM_COOKIE = "dicehall_form"
CSRF_FIELD = "csrf_token"
#: How many opponent rows the new-game form shows at most.
MAX_OPPONENT_ROWS = 7
#: Text fields longer than this are refused before anything else looks at them.
FIELD_MAX = 2000


@dataclass
class Form:
    """What a user sent and what is wrong with it, field by field."""

    values: dict[str, str] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    #: A message for the whole form (shown above it), e.g. an expired form.
    problem: str | None = None

    def get(self, name: str, default: str = "") -> str:
        """The value sent for ``name`` (what to show in the field again)."""
        return self.values.get(name, default)

    def error(self, name: str, message: str) -> None:
        """Attach ``message`` to field ``name`` (the first message wins)."""
        self.errors.setdefault(name, message)

    @property
    def ok(self) -> bool:
        """Nothing is wrong."""
        return not self.errors and self.problem is None


async def read_form(request: Request, *, secret: tuple[str, ...] = ()) -> Form:
    """The posted fields as text; fields named in ``secret`` (passwords) are kept only in
    ``Form.values`` for this request and must never be rendered back."""
    data = await request.form()
    values: dict[str, str] = {}
    for key, value in data.multi_items():
        if isinstance(value, str) and key not in values:
            values[key] = value[:FIELD_MAX] if key not in secret else value
    return Form(values)


def visitor_token(request: Request) -> str:
    """The double-submit token of a visitor's forms (the cookie's, or a new one)."""
    existing = request.cookies.get(FORM_COOKIE, "")
    return existing if 20 <= len(existing) <= 100 else new_secret()


def set_visitor_token(response: Response, token: str, secure: bool) -> None:
    """Keep the visitor's form token in a cookie that scripts cannot read."""
    response.set_cookie(
        FORM_COOKIE, token, max_age=3600 * 24, path="/", httponly=True, samesite="strict",
        secure=secure,
    )  # fmt: skip


def visitor_token_ok(request: Request, form: Form) -> bool:
    """The posted token matches the visitor's cookie (another site can read neither)."""
    cookie = request.cookies.get(FORM_COOKIE, "")
    sent = form.get(CSRF_FIELD)
    return bool(cookie) and bool(sent) and same(cookie, sent)


def safe_next(target: str | None, default: str = "/status") -> str:
    """A local path to go to after signing in (never another site)."""
    if target and target.startswith("/") and not target.startswith(("//", "/\\")):
        return target
    return default


# -- the new-game form -------------------------------------------------------------------------


@dataclass(frozen=True)
class OptionField:
    """One option of a game as a form field."""

    name: str
    label: str
    hint: str
    kind: Literal["bool", "int", "optional_int", "choice", "text"]
    default: str
    #: (value, label) pairs for a choice.
    choices: tuple[tuple[str, str], ...] = ()


def _kind_of(annotation: Any) -> tuple[str, tuple[str, ...]]:
    origin = get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        members = [m for m in get_args(annotation) if m is not type(None)]
        if len(members) == 1 and members[0] is int:
            return "optional_int", ()
        return "text", ()
    if origin is Literal:
        return "choice", tuple(str(a) for a in get_args(annotation))
    if annotation is bool:
        return "bool", ()
    if annotation is int:
        return "int", ()
    return "text", ()


def _shown(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "on" if value else ""
    return str(value)


def option_fields(game: str) -> list[OptionField]:
    """The game's options as form fields, with their defaults."""
    entry = games.get(game)
    options_type = entry.game.options_type
    defaults = entry.game.options({})
    hints = typing.get_type_hints(options_type)
    out = []
    for f in dataclasses.fields(options_type):
        kind, values = _kind_of(hints[f.name])
        text = option_text(f)
        choices = text.choices or tuple((v, v) for v in values)
        if text.choices:
            kind = "choice"
        label, hint = text.label, text.help
        out.append(
            OptionField(
                f.name,
                label,
                hint,
                kind,  # type: ignore[arg-type]
                _shown(getattr(defaults, f.name)),
                choices,
            )
        )
    return out


def raw_options(game: str, form: Form) -> dict[str, object]:
    """The options as the game parses them; a checkbox left unticked is false, and a field
    not sent at all (a form from before the option existed) keeps the default."""
    raw: dict[str, object] = {}
    for spec in option_fields(game):
        key = f"opt_{spec.name}"
        if spec.kind == "bool":
            raw[spec.name] = key in form.values
        elif key in form.values:
            raw[spec.name] = form.get(key).strip()
    return raw


def opponent_rows(game: str) -> int:
    """How many opponent rows the form offers for ``game``."""
    return max(1, min(games.get(game).game.max_seats - 1, MAX_OPPONENT_ROWS))


def seat_specs(game: str, form: Form) -> list[str]:
    """The seats the form asks for (``me`` first), recording errors on the rows' fields."""
    entry = games.get(game)
    specs = ["me"]
    for row in range(1, opponent_rows(game) + 1):
        choice = form.get(f"opp{row}").strip()
        handle = form.get(f"user{row}").strip()
        if choice in ("", "none"):
            if handle:
                form.error(f"opp{row}", "Choose 'a user' here to invite the user you typed.")
            continue
        if handle and choice != "user":
            shown = "an open seat" if choice == "open" else choice.replace(":", ": ", 1)
            form.error(
                f"user{row}",
                f"You typed a user id but chose {shown} above: choose 'a user' to invite "
                f"{handle}, or clear the user id.",
            )
            continue
        if choice == "open":
            specs.append("open")
        elif choice == "user":
            if not handle:
                form.error(f"user{row}", "Type the user id of the player to invite.")
                continue
            specs.append(f"user:{handle}")
        elif choice.startswith("bot:") and choice[4:] in entry.bots:
            specs.append(choice)
        else:
            form.error(f"opp{row}", "Choose a bot, a user, an open seat or nobody.")
    game_def = entry.game
    if not form.errors and not game_def.min_seats <= len(specs) <= game_def.max_seats:
        low = game_def.min_seats - 1
        high = game_def.max_seats - 1
        need = f"{low}" if low == high else f"{low} to {high}"
        noun = "opponent" if high == 1 else "opponents"
        form.error("opp1", f"{game_def.title} needs {need} {noun}, not {len(specs) - 1}.")
    return specs


def option_errors(game: str, raw: dict[str, object], form: Form) -> None:
    """Attach every options problem to its field, worded with the form's labels.

    The game's options check stops at its first problem, so each field is first checked
    alone (the others at their defaults); a problem that names another option too depends
    on the combination, and is reported by the check of all of them together.
    """
    options_of = games.get(game).game.options
    fields = option_fields(game)
    for spec in fields:
        if spec.name not in raw:
            continue
        try:
            options_of({spec.name: raw[spec.name]})
        except InvalidOptions as exc:
            if not any(other.name in str(exc) for other in fields if other is not spec):
                form.error(f"opt_{spec.name}", labelled(str(exc), fields))
    # The combination is checked once each option is fine alone (other fields' problems
    # are their own, and do not hold it back).
    if any(f"opt_{spec.name}" in form.errors for spec in fields):
        return
    try:
        options_of(raw)
    except InvalidOptions as exc:
        message = labelled(str(exc), fields)
        for spec in sorted(fields, key=lambda s: -len(s.name)):
            if spec.name in str(exc):
                form.error(f"opt_{spec.name}", message)
                return
        form.problem = message


def labelled(message: str, fields: list[OptionField]) -> str:
    """``message`` with each option's internal name replaced by its label on the form."""
    text = message.strip().replace(", not ''", "")
    for spec in sorted(fields, key=lambda s: -len(s.name)):
        text = re.sub(rf"'?(?<!\w){re.escape(spec.name)}(?!\w)'?", f"“{spec.label}”", text)
    text = re.sub(r"\boption “", "“", text)
    return text[:1].upper() + text[1:] + ("" if text.endswith((".", "?", "!")) else ".")


#: The new-game form's paces: (value, words); "" is the default (daily between people,
#: none against bots only).
PACE_CHOICES: tuple[tuple[str, str], ...] = (
    ("", "Default: 3 days a move between people, no clock against bots"),
    ("live", "Live: 3 minutes, +20 s a turn"),
    ("brisk", "Brisk: 1 day, +4 h a turn, at most 2 days"),
    ("daily", "Daily: 3 days, +12 h a turn, at most 5 days"),
    ("relaxed", "Relaxed: 5 days, +1 day a turn, at most 7 days"),
    *((f"days-{n}", f"{n} day{'s' if n > 1 else ''} per move") for n in range(1, 15)),
    ("none", "No clock"),
)


def pace_choice(form: Form) -> str | None:
    """The pace chosen on the new-game form (None: the default); an unknown one is marked
    as the field's error."""
    chosen = form.get("pace").strip()
    if chosen not in {value for value, _ in PACE_CHOICES}:
        form.error("pace", "Choose one of the paces in the list.")
        return None
    return chosen or None


#: The paces at which vacation cannot save a seat (under a day): the form's box is off there.
NO_VACATION_PACES = frozenset(
    value
    for value, _ in PACE_CHOICES
    if value not in ("", "none") and not vacation_saves(True, parse_pace(value))
)


def vacation_choice(form: Form) -> bool | None:
    """What the new-game form's "Vacation" box asks: ticked, vacation wherever the pace
    allows it (a day or more); unticked, none."""
    return None if form.get("vacation") else False


def rated_choice(form: Form) -> bool | None:
    """What the new-game form's "Rated" box asks: ticked, the site's rule (rated when every
    seat is a person, so a game with a bot is simply unrated); unticked, unrated."""
    return None if form.get("rated") else False
