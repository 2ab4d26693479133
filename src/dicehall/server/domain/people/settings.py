"""Each user's settings: how boards look and behave, who may write or challenge them, and
whether they show on Who is here. Stored as JSON on the user; a stored value that is no
longer valid falls back to its default, so old or damaged data never breaks a page."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Literal, cast

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from sqlalchemy import Connection, Table, select, update

from dicehall.server.core.models import User
from dicehall.server.core.txn import after_commit, publish_after_commit
from dicehall.server.domain.auth_cache import credentials_changed
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.notices import reminders as reminder_marks
from dicehall.server.domain.notices.kinds import KINDS, NoticeKind
from dicehall.server.domain.notices.zones import check_time_zone
from dicehall.server.domain.ratings import kinds as rating_kinds
from dicehall.server.domain.ratings.kinds import RatingKind
from dicehall.server.domain.write_rates import check_write_rate

if TYPE_CHECKING:
    from dicehall.server.domain.services import Services

USERS = cast(Table, User.__table__)

Audience = Literal["everyone", "buddies", "nobody"]


class UserSettings(BaseModel):
    """A user's settings; every field has the default a new account starts with."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    dice_style: Literal["pips", "numerals", "large"] = Field(
        "pips", description="How dice are drawn: pips, numerals, or large pips."
    )
    theme: Literal["light", "dark", "high-contrast"] = Field(
        "light", description="The colour theme of every page."
    )
    board_size: Literal["small", "medium", "large"] = Field(
        "medium", description="How large boards and dice are drawn."
    )
    hints_open: bool = Field(False, description="Boards open with the hints panel shown.")
    sounds: bool = Field(False, description="A short sound when it becomes my turn.")
    messages_from: Audience = Field(
        "everyone", description="Who may start a message thread with me."
    )
    challenges_from: Audience = Field(
        "everyone", description="Who may name me as an opponent or challenge me."
    )
    show_presence: bool = Field(True, description="I appear on Who is here.")
    confirm_moves: bool = Field(
        True,
        description="Moves that end a turn ask for a second click (Boatzee's 'confirm the "
        "box'); off: one click.",
    )
    ratings_shown: list[RatingKind] = Field(
        default_factory=lambda: list(rating_kinds.names()),
        description="The rating kinds my profile shows (page and API); the others stay off "
        "it, each named once or twice at most. Leaderboards and game boards show every "
        "rating. The kinds are those of `GET /api/v1/ratings`.",
    )
    hide_rating_while_playing: bool = Field(
        False,
        description="My own rating (and the table's chances) is left off the board of a "
        "game I sit in until that game is over.",
    )

    time_zone: str = Field(
        "UTC",
        description="The IANA time zone every time is shown in and the daily digest is "
        "timed by (for example `Europe/Paris`); guessed from the browser at sign-up.",
    )
    email_mode: Literal["off", "immediate", "digest"] = Field(
        "digest",
        description="E-mail: `immediate` (a mail per notice, once I have not had that game "
        "open for a while), `digest` (one mail a day at `digest_hour`), or `off`. Needs a "
        "verified address.",
    )
    digest_hour: int = Field(
        8, ge=0, le=23, description="The local hour (0-23) the daily digest is sent at."
    )
    email_kinds: list[NoticeKind] = Field(
        default_factory=lambda: list(KINDS),
        description="The kinds of notice that go to my e-mail.",
    )
    push_kinds: list[NoticeKind] = Field(
        default_factory=lambda: list(KINDS),
        description="The kinds of notice pushed to my browsers and phones (web push).",
    )
    webhook_kinds: list[NoticeKind] = Field(
        default_factory=lambda: list(KINDS),
        description="The kinds of notice posted to my webhook.",
    )
    reminders: list[str] = Field(
        default_factory=lambda: list(reminder_marks.DEFAULT),
        description="When I am reminded that my clock runs: each a share of the turn's time "
        "used (`50%`) or the time left (`1h`, `30m`, `2d`); at most 5.",
    )

    @field_validator("time_zone")
    @classmethod
    def _known_zone(cls, zone: str) -> str:
        return check_time_zone(zone)

    @field_validator("email_kinds", "push_kinds", "webhook_kinds")
    @classmethod
    def _kinds_in_order(cls, chosen: list[NoticeKind]) -> list[NoticeKind]:
        return [kind for kind in KINDS if kind in chosen]

    @field_validator("reminders")
    @classmethod
    def _reminders(cls, marks: list[str]) -> list[str]:
        return reminder_marks.check(marks)

    @field_validator("ratings_shown")
    @classmethod
    def _in_site_order(cls, chosen: list[RatingKind]) -> list[RatingKind]:
        # The kinds are the installed games' (a plug-in's too), so they are checked here
        # rather than by a type. Each kind once, in the site's order, whatever order they
        # were sent in.
        known = rating_kinds.names()
        if len(chosen) > 2 * len(known):
            raise ValueError(f"at most {2 * len(known)} kinds")
        for kind in chosen:
            rating_kinds.check(kind)
        return [kind for kind in known if kind in chosen]


#: The settings of a new account (read afresh by :func:`parse`: the rating kinds shown by
#: default are every installed game's).
DEFAULTS = UserSettings()


def parse(text: str | None) -> UserSettings:
    """Stored settings; keys that are unknown or no longer valid take their defaults."""
    try:
        raw = json.loads(text or "{}")
    except ValueError:
        return UserSettings()
    if not isinstance(raw, dict):
        return UserSettings()
    fields = UserSettings.model_fields
    kept: dict[str, Any] = {}
    for name, value in raw.items():
        if name not in fields:
            continue
        try:
            UserSettings(**{name: value})
        except ValidationError:
            continue
        kept[name] = value
    return UserSettings(**kept)


def of(conn: Connection, user_pk: int) -> UserSettings:
    """``user_pk``'s settings (the defaults for an unknown user)."""
    stored = conn.execute(select(USERS.c.settings).where(USERS.c.id == user_pk)).scalar()
    return parse(stored)


def reminders_of(conn: Connection, user_pk: int | None) -> list[str]:
    """When ``user_pk`` wants their clock reminders (the defaults for nobody)."""
    if user_pk is None:
        return list(reminder_marks.DEFAULT)
    return of(conn, user_pk).reminders


def reminders_in(stored: str | None) -> list[str]:
    """The clock reminders in settings as stored (the defaults for none)."""
    return list(reminder_marks.DEFAULT) if stored is None else parse(stored).reminders


def of_many(conn: Connection, user_pks: set[int]) -> dict[int, UserSettings]:
    """The settings of each of ``user_pks`` (those that exist)."""
    if not user_pks:
        return {}
    rows = conn.execute(select(USERS.c.id, USERS.c.settings).where(USERS.c.id.in_(user_pks)))
    return {row.id: parse(row.settings) for row in rows}


def change(conn: Connection, user_pk: int, changes: dict[str, Any]) -> UserSettings:
    """Apply ``changes`` (some fields) to ``user_pk``'s settings; nothing is stored unless
    every change is valid (422 ``invalid_settings`` names the first wrong field). Once it
    commits, every open page of the user is pushed ``{"type": "settings", "settings": ...}``
    so it applies the change at once; no changes: nothing is written or pushed."""
    current = of(conn, user_pk)
    unknown = sorted(set(changes) - set(UserSettings.model_fields))
    if unknown:
        raise Refused("invalid", "invalid_settings", f"there is no setting {unknown[0]!r}")
    try:
        updated = UserSettings(**{**current.model_dump(), **changes})
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "settings"
        raise Refused("invalid", "invalid_settings", f"{where}: {first['msg']}") from exc
    if not changes:
        return current
    conn.execute(
        update(USERS).where(USERS.c.id == user_pk).values(settings=updated.model_dump_json())
    )
    publish_after_commit(conn, user_pk, {"type": "settings", "settings": updated.model_dump()})
    after_commit(conn, credentials_changed)  # a remembered user row holds the old settings
    return updated


def save(services: Services, user_pk: int, changes: dict[str, Any]) -> UserSettings:
    """:func:`change` in its own transaction, counted by the rate limit on settings changes
    (:func:`~dicehall.server.domain.write_rates.check_write_rate`); a user who hides from
    Who is here leaves its lists and counts at once (not at their next request)."""
    check_write_rate(services, "settings", user_pk)
    with services.write_conn() as conn:
        updated = change(conn, user_pk, changes)
    if not updated.show_presence:
        services.presence.forget(user_pk)
    return updated
