"""The messages API: my threads, one thread, sending, marking read and hiding.

One thread per pair of users. A new message is pushed through the WebSocket to its recipient
and to the sender's other pages as ``{"type": "message", ...}``; marking read (or hiding)
pushes ``{"type": "messages_read", "thread_with": user_id, "unread": n}`` to my pages.
See :mod:`dicehall.server.domain.people.messages` for the rules and limits.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Query, status
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import Connection

from dicehall.server.api.deps import CurrentUser, ServicesDep
from dicehall.server.api.params import BodyId, Digits
from dicehall.server.api.rules import REORDERING, Rule, stripped_text
from dicehall.server.api.schemas import _Answer, _moment, errors
from dicehall.server.core.clock import now
from dicehall.server.core.ids import DB_ID_MAX
from dicehall.server.domain.people import messages
from dicehall.server.domain.work import read, run_db, write

router = APIRouter(prefix="/api/v1", tags=["messages"])

#: The most threads or messages one page may hold.
MOST = 100

Before = Annotated[
    int | None,
    Query(
        ge=1,
        le=DB_ID_MAX,
        description="The `next` of the page before: only what is older than it.",
    ),
    Digits,
]


# -- what is sent ------------------------------------------------------------------------------


class NewMessage(BaseModel):
    """A message: its text, and the game it is about (optional)."""

    model_config = ConfigDict(extra="forbid")

    body: Annotated[
        str,
        Rule(pattern=stripped_text(messages.BODY_MOST, least=1, never=REORDERING, crlf=True)),
    ] = Field(
        description=f"The text: 1 to {messages.BODY_MOST} characters once trimmed; line "
        "breaks and tabs allowed, other control characters not."
    )
    game_id: BodyId | None = Field(
        default=None, description="A game the message is about; it must be one I may see."
    )


class MarkThreadRead(BaseModel):
    """How far to mark the thread read: up to a message id, or all of it."""

    model_config = ConfigDict(extra="forbid")

    up_to: BodyId | None = Field(
        default=None,
        description="Mark read the messages with this id or lower; null or left out: all.",
    )


# -- what is answered --------------------------------------------------------------------------


class Correspondent(_Answer):
    """The other side of a thread."""

    user_id: str
    display_name: str


class SentMessage(_Answer):
    """A message as stored."""

    id: int
    sender: str = Field(alias="from", description="The user id of whoever wrote it.")
    body: str = Field(description="The text as written (render it escaped).")
    game: int | None = Field(description="The game it is about, if any.")
    created_at: str = _moment()


class ThreadMessage(SentMessage):
    """A message of a thread as I see it."""

    unread: bool = Field(description="Written to me and not read yet.")
    hidden: bool = Field(
        description="A moderator hid it: `body` says so instead of what was written."
    )


class ThreadPage(_Answer):
    """A page of my thread with someone, newest first."""

    other: Correspondent = Field(alias="with", description="Who the thread is with.")
    messages: list[ThreadMessage]
    unread: int = Field(description="How many messages to me are unread, in all my threads.")
    next: int | None = Field(
        description="Send it as `before` for the next (older) page; null on the last page."
    )


class LastMessage(_Answer):
    """The newest message of a thread, in short."""

    id: int
    sender: str = Field(alias="from", description="The user id of whoever wrote it.")
    preview: str = Field(description="Its start on one line (at most 140 characters).")
    created_at: str = _moment()


class ThreadSummary(_Answer):
    """One of my threads in the list."""

    user_id: str = Field(description="Who the thread is with.")
    display_name: str
    last: LastMessage
    unread: int = Field(description="Messages to me in this thread not read yet.")


class ThreadList(_Answer):
    """A page of my threads, the one with the newest message first."""

    threads: list[ThreadSummary]
    unread: int = Field(description="How many messages to me are unread, in all my threads.")
    next: int | None = Field(
        description="Send it as `before` for the next (older) page; null on the last page."
    )


class ThreadRead(_Answer):
    """How many messages were marked read, and how many are left unread."""

    marked: int = Field(description="Messages of this thread that were unread and are read now.")
    unread: int = Field(description="How many messages to me are unread, in all my threads.")


class ThreadHidden(_Answer):
    """Whether the thread was hidden."""

    hidden: bool = Field(description="False when nothing of it was shown to me.")
    unread: int = Field(description="How many messages to me are unread, in all my threads.")


# -- routes ------------------------------------------------------------------------------------


@router.get(
    "/messages",
    operation_id="messages-list",
    response_model=ThreadList,
    responses=errors(401, 422),
)
async def my_threads(
    user: CurrentUser,
    services: ServicesDep,
    before: Before = None,
    limit: Annotated[int, Query(ge=1, le=MOST)] = messages.THREADS_PAGE,
) -> dict[str, Any]:
    """My threads, the one with the newest message first, each with its last message and
    unread count, and my total of unread messages (``limit=1`` for just the count). Threads
    I hid are left out until a newer message comes."""
    return await run_db(
        services, read, services, lambda conn: messages.threads(conn, user.id, before, limit)
    )


@router.get(
    "/messages/{user_id}",
    operation_id="messages-thread",
    response_model=ThreadPage,
    responses=errors(401, 404, 422),
)
async def one_thread(
    user_id: str,
    user: CurrentUser,
    services: ServicesDep,
    before: Before = None,
    limit: Annotated[int, Query(ge=1, le=MOST)] = messages.PAGE,
) -> dict[str, Any]:
    """My thread with ``user_id``, newest first (empty when we never wrote); what I hid is
    left out. Reading does not mark it read: `POST /messages/{user_id}/read` does."""
    return await run_db(
        services,
        read,
        services,
        lambda conn: messages.thread(conn, user.id, user_id, before, limit),
    )


@router.post(
    "/messages/{user_id}",
    status_code=status.HTTP_201_CREATED,
    operation_id="messages-send",
    response_model=SentMessage,
    responses=errors(400, 401, 403, 404, 422, 429, 503),
)
async def send(
    user_id: str, body: NewMessage, user: CurrentUser, services: ServicesDep
) -> dict[str, Any]:
    """Send ``user_id`` a message. Starting a thread needs their leave (their
    `messages_from` setting: everyone, buddies, nobody); a reply in a thread that exists is
    always allowed; across an ignore, either way, nothing is (403 `not_accepted`, the same
    answer in every case). 403 `muted` while a moderator's mute lasts (with `until`), except
    to a moderator: an appeal (a first message to the moderator who acted opens a thread
    whatever their settings). 422 `invalid_body`, `yourself`, `unknown_game`; 404
    `unknown_user`; 429 `rate_limited` (one message every 2 seconds) or `too_many_threads`
    (10 new threads a day for accounts younger than 7 days, 30 after), with `retry_after`."""
    return await run_db(
        services,
        write,
        services,
        lambda conn: messages.send(conn, user.id, user_id, body.body, body.game_id, now()),
    )


@router.post(
    "/messages/{user_id}/read",
    operation_id="messages-read",
    response_model=ThreadRead,
    responses=errors(400, 401, 403, 404, 422, 503),
)
async def mark_read(
    user_id: str,
    user: CurrentUser,
    services: ServicesDep,
    body: Annotated[MarkThreadRead | None, Body()] = None,
) -> dict[str, int]:
    """Mark my thread with ``user_id`` read (up to ``up_to``, or all); my pages are told
    the new unread total."""
    up_to = body.up_to if body is not None else None

    def work(conn: Connection) -> dict[str, int]:
        marked = messages.mark_read(conn, user.id, user_id, up_to)
        return {"marked": marked, "unread": messages.unread(conn, user.id)}

    answer: dict[str, int] = await run_db(services, write, services, work)
    return answer


@router.delete(
    "/messages/{user_id}",
    operation_id="messages-hide",
    response_model=ThreadHidden,
    responses=errors(401, 403, 404, 422, 503),
)
async def hide(user_id: str, user: CurrentUser, services: ServicesDep) -> dict[str, Any]:
    """Hide my thread with ``user_id`` from me (for me only; it is marked read too). A
    newer message brings it back, showing only what came after."""

    def work(conn: Connection) -> dict[str, Any]:
        hidden = messages.hide(conn, user.id, user_id)
        return {"hidden": hidden, "unread": messages.unread(conn, user.id)}

    answer: dict[str, Any] = await run_db(services, write, services, work)
    return answer


__all__ = ["router"]
