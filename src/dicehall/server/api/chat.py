"""Chat in a game: the players' channel and the spectators' (see
:mod:`dicehall.server.domain.people.chat` for who writes and reads where).

A players' line is pushed whole to the seated players as ``{"type": "chat", "game": id,
"line": {...}}``; every socket following the game (``/api/v1/ws?watch=ID``) hears
``{"type": "chat_new", "game": id, "channel": ...}`` and reads the new lines it may see
with ``GET .../chat?after=``. Marking read pushes ``{"type": "chat_read", "game": id,
"unread": n}`` to my other pages.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query
from pydantic import BaseModel, ConfigDict, Field

from dicehall.server.api.deps import CurrentUser, ServicesDep
from dicehall.server.api.params import BodyId, Digits, GameId
from dicehall.server.api.rules import Rule, one_of, tidied_line
from dicehall.server.api.schemas import _Answer, _moment, errors
from dicehall.server.core.ids import DB_ID_MAX
from dicehall.server.domain.people import chat
from dicehall.server.domain.work import read, run_db, write

router = APIRouter(prefix="/api/v1", tags=["chat"])

ChannelName = Literal["players", "spectators"]


class ChatLineOut(_Answer):
    """One line of a game's chat."""

    id: int
    channel: ChannelName = Field(
        description="`players` (the seated players') or `spectators` (everyone else's)."
    )
    user_id: str = Field(description="Who wrote it.")
    display_name: str
    body: str = Field(description="The line, as written (plain text: show it escaped).")
    created_at: str = _moment()
    seat: int | None = Field(description="The writer's seat for a players' line; else null.")


class ChatPreset(_Answer):
    """A one-click line: send its ``key`` as ``preset``."""

    key: str
    text: str


class ChatPage(_Answer):
    """The lines of a game's chat I may read, oldest first."""

    lines: list[ChatLineOut] = Field(
        description=f"At most {chat.PAGE}: the newest, or with `after` the first after that "
        "line (a full page: ask again after its last line)."
    )
    channel: ChannelName = Field(description="The channel I write to.")
    sees: list[ChannelName] = Field(
        description="The channels I read now (the players read the spectators' channel "
        "once the game is over)."
    )
    presets: list[ChatPreset]
    unread: int = Field(description="Players' lines I have not marked read (players only).")


class ChatUnread(_Answer):
    """My unread count at a game after marking it read."""

    unread: int


class ChatPost(BaseModel):
    """A line to write: a ``body``, or a ``preset``'s key (exactly one of them)."""

    model_config = ConfigDict(extra="forbid", json_schema_extra=one_of("body", "preset"))

    body: Annotated[str, Rule(pattern=tidied_line(chat.BODY_MOST))] | None = Field(
        default=None,
        description=f"1 to {chat.BODY_MOST} characters once its spaces are tidied (every run "
        "of spaces and line breaks becomes one space).",
    )
    preset: Annotated[str, Field(max_length=20), Rule(enum=list(chat.PRESETS))] | None = Field(
        default=None,
        description="A preset's key: " + ", ".join(f"`{k}` ({v})" for k, v in chat.PRESETS.items()),
    )


class ChatRead(BaseModel):
    """How far I have read the players' channel."""

    model_config = ConfigDict(extra="forbid")

    up_to: BodyId | None = Field(
        default=None, description="The newest line I have seen; null or left out: every line."
    )


@router.get(
    "/games/{game_id}/chat",
    operation_id="games-chat",
    response_model=ChatPage,
    responses=errors(401, 404, 422),
)
async def chat_lines(
    game_id: GameId,
    user: CurrentUser,
    services: ServicesDep,
    after: Annotated[
        int | None, Query(ge=0, le=DB_ID_MAX, description="A line id."), Digits
    ] = None,
) -> dict[str, Any]:
    """The game's chat as I may read it (nothing by anyone across an ignore with me), my
    channel, the presets and my unread count. A game I may not watch is a 404."""
    return await run_db(
        services, read, services, lambda conn: chat.read(conn, user, game_id, after)
    )


@router.post(
    "/games/{game_id}/chat",
    operation_id="games-chat-post",
    status_code=201,
    response_model=ChatLineOut,
    responses=errors(400, 401, 403, 404, 422, 429, 503),
)
async def chat_post(
    game_id: GameId, body: ChatPost, user: CurrentUser, services: ServicesDep
) -> dict[str, Any]:
    """Write a line: to the players' channel if I sit at the game, else to the spectators'.
    422 `invalid_body` or `invalid_preset`; 403 `muted` (a moderator's mute, with `until`);
    429 `too_fast` (one line a second, twenty a minute, per game), with `retry_after`."""
    line: dict[str, Any] = await run_db(
        services,
        write,
        services,
        lambda conn: chat.post(conn, user, game_id, body.body, body.preset),
    )
    services.broker.publish_game(game_id, chat.watcher_hint(game_id, line["channel"]))
    return line


@router.post(
    "/games/{game_id}/chat/read",
    operation_id="games-chat-read",
    response_model=ChatUnread,
    responses=errors(400, 401, 403, 404, 422, 503),
)
async def chat_read(
    game_id: GameId, body: ChatRead, user: CurrentUser, services: ServicesDep
) -> dict[str, int]:
    """Mark the players' lines read up to ``up_to`` (all without it); players only (403
    `not_a_player`). My other pages are told my new unread count."""
    return await run_db(
        services, write, services, lambda conn: chat.mark_read(conn, user, game_id, body.up_to)
    )


__all__ = ["router"]
