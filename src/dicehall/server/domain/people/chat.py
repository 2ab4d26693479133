"""Chat in a game: the players' channel, and the spectators' own, which the players see only
once the game is over.

Who writes where: a user seated at the game (:func:`~dicehall.server.domain.games.privacy.
seated`: an invited player, and one who resigned, ran out of time or is played by the
autopilot, all still count) writes to the players' channel; anyone else who may watch the
game writes to the spectators'. A signed-out visitor neither reads nor writes. Chat stays
open in every status of a game: before the start (players agree on a time), during it, and
after it ("Good game").

Who reads what: the spectators read both channels; the players read their own, and the
spectators' too once the game is over (finished, aborted or cancelled). Nobody reads a
line written by someone across an ignore (:func:`~dicehall.server.domain.people.relations.
others_across_an_ignore`, in either direction).

The players' channel is between the game's seated players: a line is refused (403
``not_accepted``, naming nobody) while the writer and another player are across an ignore
(one made after they sat down together), either way, rather than stored and shown to its
writer as sent when it would never reach that player. The spectators' channel has no set
audience: its lines are taken, and only not shown to readers across an ignore.

Pushes: a players' line goes, whole, to each seated user
(:func:`~dicehall.server.domain.people.relations.may_interact_many`, the meeting "chat");
the sockets following the game (spectators' and players' boards alike) are told only that
a channel has a new line (:func:`watcher_hint`), and read it through :func:`read`, which
applies every rule above: a hint carries no text, so no line can reach the wrong reader.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any, Literal, cast

from sqlalchemy import Connection, Table, func, insert, select, update

from dicehall.server.core.clock import aware, now
from dicehall.server.core.models import ChatLine, User
from dicehall.server.core.txn import publish_after_commit
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.games.privacy import seated, watchable
from dicehall.server.domain.games.records import SEATS, USERS, GameRecord, SeatInfo
from dicehall.server.domain.moderation.content import HIDDEN_TEXT
from dicehall.server.domain.moderation.standing import may_write
from dicehall.server.domain.people.relations import (
    may_interact_many,
    not_accepted,
    others_across_an_ignore,
)

CHAT = cast(Table, ChatLine.__table__)

Channel = Literal["players", "spectators"]
CHANNELS: tuple[Channel, ...] = ("players", "spectators")
#: A game is over (its players may read the spectators) in these statuses.
OVER = frozenset({"finished", "aborted", "cancelled"})
#: The longest line, in characters, once its spaces are tidied.
BODY_MOST = 300
#: One-click lines, by the key a client sends as ``preset``.
PRESETS: dict[str, str] = {"gl": "Good luck", "gg": "Good game", "ty": "Thanks"}
#: Pace: a line at most every ``SECONDS_APART`` seconds, and ``PER_MINUTE`` a minute, per
#: user and game.
SECONDS_APART = 1.0
PER_MINUTE = 20
#: The most lines one answer holds.
PAGE = 200

#: Characters that reorder the text around them (bidirectional embeddings, overrides and
#: isolates): a line could show something other than what was written.
_REORDERING = frozenset(
    [chr(c) for c in range(0x202A, 0x202F)] + [chr(c) for c in range(0x2066, 0x206A)]
)


def presets_json() -> list[dict[str, str]]:
    """The one-click lines, as the API lists them."""
    return [{"key": key, "text": text} for key, text in PRESETS.items()]


def tidy_body(body: str | None, preset: str | None) -> str:
    """The line to store: a preset's text, or ``body`` on one line (every run of spaces and
    line breaks becomes one space), 1 to ``BODY_MOST`` characters (422 ``invalid_body``)."""
    if (body is None) == (preset is None):
        raise Refused("invalid", "invalid_body", "send either a body or a preset")
    if preset is not None:
        text = PRESETS.get(preset)
        if text is None:
            known = ", ".join(PRESETS)
            raise Refused("invalid", "invalid_preset", f"a preset is one of: {known}")
        return text
    assert body is not None
    line = " ".join(body.split())
    if not line:
        raise Refused("invalid", "invalid_body", "a chat line must not be empty")
    if len(line) > BODY_MOST:
        raise Refused(
            "invalid", "invalid_body", f"a chat line is at most {BODY_MOST} characters long"
        )
    try:
        line.encode("utf-8")
    except UnicodeEncodeError:
        raise Refused("invalid", "invalid_body", "a chat line must be valid Unicode") from None
    for char in line:
        if unicodedata.category(char) == "Cc" or char in _REORDERING:
            raise Refused(
                "invalid",
                "invalid_body",
                f"a chat line may not contain control characters (it has U+{ord(char):04X})",
            )
    return line


def channel_of(seats: Sequence[SeatInfo], user_pk: int) -> Channel:
    """The channel ``user_pk`` writes to at a game with ``seats``."""
    return "players" if seated(seats, user_pk) else "spectators"


def channels_seen(record: GameRecord, channel: Channel) -> tuple[Channel, ...]:
    """The channels a writer to ``channel`` reads at game ``record`` now."""
    if channel == "spectators" or record.status in OVER:
        return CHANNELS
    return ("players",)


def watcher_hint(game_id: int, channel: Channel) -> dict[str, Any]:
    """What the sockets following game ``game_id`` are told of a new line (no text: each
    reads the lines it may see through :func:`read`)."""
    return {"type": "chat_new", "game": game_id, "channel": channel}


def _check_pace(conn: Connection, game_id: int, user_pk: int, at: datetime) -> None:
    """Refused (429, with ``retry_after``) when ``user_pk`` writes too fast at the game."""
    recent = [
        aware(moment)
        for moment in conn.execute(
            select(CHAT.c.created_at)
            .where(
                CHAT.c.game_id == game_id,
                CHAT.c.user_pk == user_pk,
                CHAT.c.created_at > at - timedelta(minutes=1),
            )
            .order_by(CHAT.c.id)
        ).scalars()
    ]
    if recent and (at - recent[-1]).total_seconds() < SECONDS_APART:
        raise Refused("too_many", "too_fast", "one chat line a second, please", retry_after=1)
    if len(recent) >= PER_MINUTE:
        free = recent[-PER_MINUTE] + timedelta(minutes=1)
        wait = max(1, math.ceil((free - at).total_seconds()))
        raise Refused(
            "too_many",
            "too_fast",
            f"at most {PER_MINUTE} chat lines a minute; wait {wait} s",
            retry_after=wait,
        )


def _line_json(
    line_id: int,
    channel: str,
    user_id: str,
    display_name: str,
    body: str,
    created_at: datetime,
    seat: int | None,
) -> dict[str, Any]:
    return {
        "id": line_id,
        "channel": channel,
        "user_id": user_id,
        "display_name": display_name,
        "body": body,
        "created_at": aware(created_at).isoformat(),
        "seat": seat,
    }


def _seat_of(seats: Sequence[SeatInfo], user_pk: int) -> int | None:
    return next((s.seat for s in seats if s.user_pk == user_pk), None)


def post(
    conn: Connection,
    user: User,
    game_id: int,
    body: str | None = None,
    preset: str | None = None,
) -> dict[str, Any]:
    """``user`` writes a line at game ``game_id`` (a 404 to one who may not watch it); the
    line as :func:`read` shows it. A players' line is pushed, after the commit, to each
    seated user who may meet ``user``; the caller tells the game's sockets
    (:func:`watcher_hint`)."""
    text = tidy_body(body, preset)
    _record, seats = watchable(conn, game_id, user.id)
    channel = channel_of(seats, user.id)
    at = now()
    may_write(conn, user.id, at)
    people = {s.user_pk for s in seats if s.user_pk is not None}
    reached = may_interact_many(conn, user.id, people, "chat") if channel == "players" else people
    if people - reached:
        # A line some player would never see is not taken (not shown to its writer as sent).
        raise not_accepted(None, "chat")
    _check_pace(conn, game_id, user.id, at)
    line_id = conn.execute(
        insert(CHAT)
        .values(game_id=game_id, user_pk=user.id, channel=channel, body=text, created_at=at)
        .returning(CHAT.c.id)
    ).scalar_one()
    seat = _seat_of(seats, user.id) if channel == "players" else None
    line = _line_json(int(line_id), channel, user.user_id, user.display_name, text, at, seat)
    if channel == "players":
        for pk in sorted(reached):
            publish_after_commit(conn, pk, {"type": "chat", "game": game_id, "line": line})
    return line


def read(conn: Connection, viewer: User, game_id: int, after: int | None = None) -> dict[str, Any]:
    """The lines ``viewer`` may read at game ``game_id`` (a 404 to one who may not watch it),
    oldest first: the newest ``PAGE`` of them, or with ``after`` (a line id) the first
    ``PAGE`` after it (a full page: ask again after its last line). With them: the channel
    ``viewer`` writes to, the channels they read, the presets, and their unread count."""
    record, seats = watchable(conn, game_id, viewer.id)
    channel = channel_of(seats, viewer.id)
    sees = channels_seen(record, channel)
    query = (
        select(
            CHAT.c.id,
            CHAT.c.channel,
            CHAT.c.user_pk,
            CHAT.c.body,
            CHAT.c.hidden_at,
            CHAT.c.created_at,
            USERS.c.user_id,
            USERS.c.display_name,
        )
        .join(USERS, USERS.c.id == CHAT.c.user_pk)
        .where(CHAT.c.game_id == game_id, CHAT.c.channel.in_(sees))
    )
    hidden = others_across_an_ignore(conn, viewer.id)
    if hidden:
        query = query.where(CHAT.c.user_pk.not_in(hidden))
    if after is not None:
        rows = conn.execute(query.where(CHAT.c.id > after).order_by(CHAT.c.id).limit(PAGE)).all()
    else:
        rows = conn.execute(query.order_by(CHAT.c.id.desc()).limit(PAGE)).all()[::-1]
    lines = [
        _line_json(
            r.id,
            r.channel,
            r.user_id,
            r.display_name,
            HIDDEN_TEXT if r.hidden_at is not None else r.body,
            r.created_at,
            _seat_of(seats, r.user_pk) if r.channel == "players" else None,
        )
        for r in rows
    ]
    unread = unread_counts(conn, viewer.id, [game_id]).get(game_id, 0)
    return {
        "lines": lines,
        "channel": channel,
        "sees": list(sees),
        "presets": presets_json(),
        "unread": unread,
    }


def unread_counts(conn: Connection, user_pk: int, game_ids: Sequence[int]) -> dict[int, int]:
    """For each of ``game_ids`` where ``user_pk`` sits, how many players' lines by others
    (none across an ignore) are newer than the last one they marked read; games with none
    are left out."""
    if user_pk <= 0 or not game_ids:
        return {}
    marks = (
        select(SEATS.c.game_id, func.max(SEATS.c.chat_read).label("mark"))
        .where(SEATS.c.user_pk == user_pk, SEATS.c.game_id.in_(sorted(set(game_ids))))
        .group_by(SEATS.c.game_id)
        .subquery()
    )
    query = (
        select(CHAT.c.game_id, func.count())
        .join(marks, marks.c.game_id == CHAT.c.game_id)
        .where(
            CHAT.c.channel == "players",
            CHAT.c.id > marks.c.mark,
            CHAT.c.user_pk != user_pk,
        )
        .group_by(CHAT.c.game_id)
    )
    hidden = others_across_an_ignore(conn, user_pk)
    if hidden:
        query = query.where(CHAT.c.user_pk.not_in(hidden))
    return {int(game_id): int(count) for game_id, count in conn.execute(query)}


def mark_read(
    conn: Connection, user: User, game_id: int, up_to: int | None = None
) -> dict[str, int]:
    """A seated ``user`` has read the players' lines of game ``game_id`` up to line
    ``up_to`` (all of them when None); a mark never moves back. Their unread count after
    it, also pushed to their pages (after the commit) as ``{"type": "chat_read"}``."""
    _record, seats = watchable(conn, game_id, user.id)
    if not seated(seats, user.id):
        raise Refused("forbidden", "not_a_player", "only the game's players keep a read mark")
    newest = conn.execute(
        select(func.max(CHAT.c.id)).where(CHAT.c.game_id == game_id, CHAT.c.channel == "players")
    ).scalar_one_or_none()
    mark = min(int(newest or 0), up_to if up_to is not None else int(newest or 0))
    conn.execute(
        update(SEATS)
        .where(
            SEATS.c.game_id == game_id,
            SEATS.c.user_pk == user.id,
            SEATS.c.chat_read < mark,
        )
        .values(chat_read=mark)
    )
    left = unread_counts(conn, user.id, [game_id]).get(game_id, 0)
    publish_after_commit(conn, user.id, {"type": "chat_read", "game": game_id, "unread": left})
    return {"unread": left}
