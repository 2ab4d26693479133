"""HTML forms: CSRF tokens for visitors and members, field errors, and the new-game form.

A form that fails is shown again with each message next to its field and everything the
user typed kept (passwords aside), so nothing is lost.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass, field
from typing import Any, Literal, get_args, get_origin

from fastapi import Request, Response

from dicehall import games
from dicehall.server.security import new_secret, same

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

#: A label and a hint per option; options not listed get their name as label.
OPTION_TEXT: dict[str, dict[str, tuple[str, str]]] = {
    "tenthousand": {
        "target": ("Target score", "Points to win, 50 to 100000."),
        "entry_threshold": (
            "Entry threshold",
            "Points a player must bank in one turn to get on the board.",
        ),
        "four_and_pair_is_three_pairs": ("Four of a kind and a pair count as three pairs", ""),
        "ante": ("Ante (cents)", "Money each player puts in; 0 to 100000 cents."),
        "zero_penalty": ("Zero penalty (cents)", "Paid by a player who ends with no points."),
    },
    "boatzee": {
        "columns": ("Variant", "Each column scores its boxes once more, multiplied by 1, 2 or 3."),
        "ruleset": ("Ruleset", "Boatzee's scoring or the yahtzee variant (see the rules)."),
    },
    "boss": {
        "horses": ("Horses to win", "Hands a player must win to take the match, 1 to 25."),
        "max_pickups": (
            "Pick-ups per hand",
            "How often the Boss may pick 'em up; empty: no limit.",
        ),
    },
    "holdem": {
        "stack": ("Starting stack", "Chips each player starts with: a multiple of 10."),
        "max_flop_rerolls": ("Flop re-rolls", "A cap on flop re-rolls; empty: no cap."),
    },
    "bullseye": {
        "rounds": ("Rounds", "Empty: two leads per player; 0: no round limit (needs a target)."),
        "target_points": ("Target points", "Points that end the game; empty: none."),
        "bet_limit": ("Bet limit", "Most chips one bet may be, 0 to 1000 (0: no betting)."),
        "bank": ("Bank", "Chips each player starts with."),
        "allow_two_seats": ("Allow two players", "Bull's Eye is best with three or more."),
    },
}


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


#: Options better offered as a list of named choices than typed in.
OPTION_CHOICES: dict[tuple[str, str], tuple[tuple[str, str], ...]] = {
    ("boatzee", "columns"): (
        ("1", "Boatzee (1 column)"),
        ("2", "Double Boatzee (2 columns)"),
        ("3", "Triple Boatzee (3 columns)"),
    ),
    ("boatzee", "ruleset"): (
        ("boatzee", "Boatzee scoring"),
        ("yahtzee", "Yahtzee scoring"),
    ),
}


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
    texts = OPTION_TEXT.get(entry.name, {})
    out = []
    for f in dataclasses.fields(options_type):
        kind, values = _kind_of(hints[f.name])
        choices = tuple((v, v) for v in values)
        named = OPTION_CHOICES.get((entry.name, f.name))
        if named is not None:
            kind, choices = "choice", named
        label, hint = texts.get(f.name, (f.name.replace("_", " ").capitalize(), ""))
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
    """The options as the game parses them; a checkbox left unticked is false."""
    raw: dict[str, object] = {}
    for spec in option_fields(game):
        key = f"opt_{spec.name}"
        if spec.kind == "bool":
            raw[spec.name] = key in form.values
        else:
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


def option_error(game: str, message: str, form: Form) -> None:
    """Attach an options error to the field it names (or to the first option)."""
    fields = option_fields(game)
    for spec in sorted(fields, key=lambda s: -len(s.name)):
        if spec.name in message:
            form.error(f"opt_{spec.name}", message)
            return
    form.problem = message
