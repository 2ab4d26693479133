"""What accounts may hold: user ids, passwords, display names, about texts and token names,
checked with a sentence a person can act on, and names that impersonate others refused."""

from __future__ import annotations

import re
import unicodedata

from sqlalchemy import select
from sqlalchemy.orm import Session

from dicehall.server.core.models import User
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.names import compact, fold, fold_sql, folds, hidden_character, words

USER_ID_MIN, USER_ID_MAX = 3, 20
PASSWORD_MIN, PASSWORD_MAX = 8, 128
DISPLAY_NAME_MAX = 40
ABOUT_MAX = 1000
TOKEN_NAME_MAX = 40
#: More tokens than this per user is a sign of a leak in some program, not a need.
TOKENS_PER_USER = 50

#: Names that would read as the site speaking, or that the seat syntax of games uses.
RESERVED_USER_IDS = frozenset(
    {
        "admin",
        "administrator",
        "anonymous",
        "api",
        "bot",
        "bots",
        "dicehall",
        "everyone",
        "guest",
        "help",
        "login",
        "logout",
        "me",
        "mod",
        "moderator",
        "new",
        "nobody",
        "none",
        "null",
        "official",
        "open",
        "root",
        "server",
        "signup",
        "staff",
        "support",
        "system",
        "undefined",
        "user",
        "users",
        "visitor",
    }
)

#: Words a display name may not hold anywhere, however written ("DiceHall Staff").
AUTHORITY_WORDS = frozenset(
    {"admin", "administrator", "dicehall", "moderator", "official", "staff", "sysop"}
)
_RESERVED_FOLDS = {fold(name): name for name in RESERVED_USER_IDS}
_AUTHORITY_FOLDS = {fold(word): word for word in AUTHORITY_WORDS}

_USER_ID_CHARS = re.compile(r"[A-Za-z0-9_-]+")
_USER_ID_SHAPE = re.compile(r"[A-Za-z][A-Za-z0-9_-]{2,19}")
_ABOUT_CONTROLS_ALLOWED = frozenset("\n\r\t")

WRONG_LOGIN = "wrong user id or password"


def user_key(user_id: str) -> str:
    """The case-folded form under which a user id is unique (user ids are ASCII)."""
    return user_id.lower()


def check_user_id(user_id: str) -> str:
    """The user id's unique key, or Refused ``invalid_user_id`` naming the broken rule."""
    if not USER_ID_MIN <= len(user_id) <= USER_ID_MAX:
        raise Refused(
            "invalid",
            "invalid_user_id",
            f"a user id must be {USER_ID_MIN} to {USER_ID_MAX} characters long",
        )
    if not _USER_ID_CHARS.fullmatch(user_id):
        raise Refused(
            "invalid",
            "invalid_user_id",
            "a user id may contain only letters (a-z, A-Z), digits, '_' and '-'",
        )
    if not user_id[0].isalpha():
        raise Refused("invalid", "invalid_user_id", "a user id must start with a letter")
    key = user_key(user_id)
    if key in RESERVED_USER_IDS:
        raise Refused(
            "invalid",
            "invalid_user_id",
            f"the user id {user_id!r} is reserved; please choose another",
        )
    reserved = _RESERVED_FOLDS.get(fold(user_id))
    if reserved is not None:
        raise Refused(
            "invalid",
            "invalid_user_id",
            f"the user id {user_id!r} looks too much like the reserved name {reserved!r}; "
            "please choose another",
        )
    return key


def check_password(password: str, user_id: str) -> None:
    """Refused ``invalid_password`` unless the password may be used for ``user_id``."""
    if len(password) < PASSWORD_MIN:
        raise Refused(
            "invalid",
            "invalid_password",
            f"a password must be at least {PASSWORD_MIN} characters long",
        )
    if len(password) > PASSWORD_MAX:
        raise Refused(
            "invalid",
            "invalid_password",
            f"a password must be at most {PASSWORD_MAX} characters long",
        )
    if password.casefold() == user_id.casefold():
        raise Refused("invalid", "invalid_password", "the password must not be the user id")


def _no_hidden(text: str, what: str, code: str) -> None:
    hidden = hidden_character(text)
    if hidden is not None:
        raise Refused(
            "invalid",
            code,
            f"{what} may not contain invisible or text-direction characters (it has {hidden})",
        )


def _printable_line(text: str, what: str, most: int, code: str) -> str:
    cleaned = text.strip()
    if not cleaned:
        raise Refused("invalid", code, f"{what} must not be empty")
    if len(cleaned) > most:
        raise Refused("invalid", code, f"{what} must be at most {most} characters long")
    _no_hidden(cleaned, what, code)
    if not cleaned.isprintable():
        raise Refused(
            "invalid",
            code,
            f"{what} may contain only printable characters (no line breaks or control characters)",
        )
    return cleaned


def check_display_name(name: str) -> str:
    """The display name without surrounding spaces: 1 to 40 printable characters, none
    hidden or reordering, not looking like a reserved name or holding an authority word."""
    cleaned = _printable_line(name, "a display name", DISPLAY_NAME_MAX, "invalid_display_name")
    for folded in folds(cleaned):
        reserved = _RESERVED_FOLDS.get(compact(folded)) or next(
            (_AUTHORITY_FOLDS[w] for w in words(folded) if w in _AUTHORITY_FOLDS), None
        )
        if reserved is None and fold("dicehall") in compact(folded):
            reserved = "dicehall"
        if reserved is not None:
            raise Refused(
                "invalid",
                "invalid_display_name",
                f"the display name {cleaned!r} looks too much like the reserved name "
                f"{reserved!r}; please choose another",
            )
    return cleaned


_ID_FOLD = re.compile(r"[a-z0-9_-]+")


def look_alike(db: Session, name: str, me: int | None) -> str | None:
    """The user id of another user (not ``me``) that ``name`` looks like, if any."""
    candidates = [f for f in folds(name) if _ID_FOLD.fullmatch(f)]
    if not candidates:
        return None
    query = select(User.user_id).where(fold_sql(User.user_id).in_(candidates))
    if me is not None:
        query = query.where(User.id != me)
    return db.scalar(query.limit(1))


def refuse_look_alike_name(db: Session, name: str, me: User) -> None:
    if folds(name) & folds(me.user_id):
        return  # one's own user id, in any case or spelling
    other = look_alike(db, name, me.id)
    if other is not None:
        raise Refused(
            "invalid",
            "invalid_display_name",
            f"the display name {name!r} looks too much like the user id {other!r} of "
            "another user; please choose another",
        )


def check_about(text: str) -> str:
    """The about text without surrounding spaces: up to 1000 characters, lines allowed."""
    cleaned = text.strip()
    if len(cleaned) > ABOUT_MAX:
        raise Refused(
            "invalid",
            "invalid_about",
            f"the about text must be at most {ABOUT_MAX} characters long",
        )
    _no_hidden(cleaned, "the about text", "invalid_about")
    for char in cleaned:
        if unicodedata.category(char) == "Cc" and char not in _ABOUT_CONTROLS_ALLOWED:
            raise Refused(
                "invalid",
                "invalid_about",
                "the about text may not contain control characters (line breaks and tabs are fine)",
            )
    return cleaned


def check_token_name(name: str) -> str:
    """The token's name without surrounding spaces: 1 to 40 printable characters."""
    return _printable_line(name, "a token name", TOKEN_NAME_MAX, "invalid_token_name")
