"""The site's tables (SQLAlchemy 2 declarative models). Migrations mirror these exactly."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    """Base of every table."""


#: Tables whose ids appear in URLs or key a cache: SQLite must never hand a deleted row's id
#: to a new row (PostgreSQL's sequences never do).
NEVER_REUSE_IDS = {"sqlite_autoincrement": True}


class User(Base):
    """An account. ``user_id`` is the public handle; ``key`` its case-folded unique form."""

    __tablename__ = "users"
    __table_args__ = NEVER_REUSE_IDS

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[str] = mapped_column(String(20))
    key: Mapped[str] = mapped_column(String(20), unique=True)
    password_hash: Mapped[str] = mapped_column(String(200))
    display_name: Mapped[str] = mapped_column(String(40))
    about: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    #: Vacation allowance left (seconds) as of ``vacation_accrued_at`` (see ``vacation``).
    vacation_seconds: Mapped[float] = mapped_column(Float, default=7 * 24 * 3600.0)
    vacation_accrued_at: Mapped[datetime | None] = mapped_column(
        DateTime(timezone=True), nullable=True
    )
    #: The end of the hour of floating vacation last spent: deadlines before it are moved to it.
    vacation_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    #: An announced absence: deadlines before it are moved to it; any move ends it.
    away_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class AuthSession(Base):
    """A signed-in browser: the cookie holds a secret whose SHA-256 is ``id``."""

    __tablename__ = "auth_sessions"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_pk: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    csrf_token: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class ApiToken(Base):
    """A bearer token for programs and bots; only its SHA-256 is stored."""

    __tablename__ = "api_tokens"
    __table_args__ = NEVER_REUSE_IDS

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    user_pk: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(40))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class GameRow(Base):
    """A game: options, the snapshot of its state, its version, and who is waited on."""

    __tablename__ = "games"
    __table_args__ = NEVER_REUSE_IDS

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(20))
    options: Mapped[str] = mapped_column(Text)
    seats: Mapped[int] = mapped_column(Integer)
    #: waiting (open seats or invitations), active, finished, cancelled (never started),
    #: aborted (started, called off before every person moved: no result)
    status: Mapped[str] = mapped_column(String(10), index=True)
    version: Mapped[int] = mapped_column(Integer, default=0)
    snapshot: Mapped[str | None] = mapped_column(Text, nullable=True)
    #: The seat that must act next, or None (waiting, finished).
    to_act: Mapped[int | None] = mapped_column(Integer, nullable=True)
    result: Mapped[str | None] = mapped_column(Text, nullable=True)
    #: How many events the log holds (the next event's ``seq``).
    event_count: Mapped[int] = mapped_column(Integer, default=0)
    #: A bot must act or dice must be rolled with no human to wait for: the bot driver's work.
    bot_due: Mapped[bool] = mapped_column(Boolean, default=False, index=True)
    #: Until when a bot driver holds the game (several processes may run drivers).
    driver_lease: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    created_by: Mapped[int] = mapped_column(ForeignKey("users.id"))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    #: The pace (JSON of :class:`~dicehall.server.domain.games.pace.Pace`); None: no clock.
    pace: Mapped[str | None] = mapped_column(Text, nullable=True)
    #: Every seat's bank and whose runs since when (JSON of ``Clock``).
    clock: Mapped[str | None] = mapped_column(Text, nullable=True)
    #: When the running bank runs out: the sweeper's index.
    deadline: Mapped[datetime | None] = mapped_column(
        DateTime(timezone=True), nullable=True, index=True
    )
    #: When the running seat is next reminded of its clock.
    remind_at: Mapped[datetime | None] = mapped_column(
        DateTime(timezone=True), nullable=True, index=True
    )
    #: Whether a seat's vacation allowance may save it from a timeout.
    vacation: Mapped[bool] = mapped_column(Boolean, default=True)
    #: Only seated players and invited watchers may watch.
    private: Mapped[bool] = mapped_column(Boolean, default=False)
    #: When the game ended (finished, aborted, cancelled): history's order.
    ended_at: Mapped[datetime | None] = mapped_column(
        DateTime(timezone=True), nullable=True, index=True
    )


class SeatRow(Base):
    """One seat of a game: a user, a bot by name, or open (both empty)."""

    __tablename__ = "game_seats"
    __table_args__ = (
        UniqueConstraint("game_id", "seat"),
        Index("ix_game_seats_user", "user_pk"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    seat: Mapped[int] = mapped_column(Integer)
    user_pk: Mapped[int | None] = mapped_column(ForeignKey("users.id"), nullable=True)
    bot: Mapped[str | None] = mapped_column(String(30), nullable=True)
    #: A user named by the game's creator who has not accepted yet.
    invited: Mapped[bool] = mapped_column(Boolean, default=False)
    #: When a user took the seat by joining (for the joins-per-minute quota).
    joined_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    #: playing, resigned, timed_out (a 2-seat game lost on time), autopilot (the game's
    #: autopilot bot plays it after a timeout in a game of 3+ seats)
    status: Mapped[str] = mapped_column(String(10), default="playing")
    #: The user has made a move in this game (a game nobody-moved-in may be aborted).
    moved: Mapped[bool] = mapped_column(Boolean, default=False)
    #: The game's version when the seat resigned or timed out (later leavers rank higher).
    left_version: Mapped[int | None] = mapped_column(Integer, nullable=True)


class EventRow(Base):
    """One event of a game's log; ``dice_set`` names the pool set a roll came from."""

    __tablename__ = "game_events"

    game_id: Mapped[int] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    data: Mapped[str] = mapped_column(Text)
    dice_set: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class IdempotencyRow(Base):
    """A move request already applied: the same key from the same user gets the same answer.

    A key is bound to the game and the request's body (``request_hash``): the same key sent
    with another action or to another game is refused, never answered as a replay.
    """

    __tablename__ = "idempotency_keys"

    user_pk: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    key: Mapped[str] = mapped_column(String(100), primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    version: Mapped[int] = mapped_column(Integer)
    request_hash: Mapped[str] = mapped_column(String(64), default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class DiceBatch(Base):
    """A batch of pre-rolled sets, committed by ``commitment`` before its first set is served.

    ``salt`` stays secret until the batch is revealed.
    """

    __tablename__ = "dice_batches"
    __table_args__ = NEVER_REUSE_IDS

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    salt: Mapped[str] = mapped_column(String(64))
    commitment: Mapped[str] = mapped_column(String(64))
    size: Mapped[int] = mapped_column(Integer)
    first_set: Mapped[int] = mapped_column(BigInteger)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    revealed: Mapped[bool] = mapped_column(Boolean, default=False, index=True)
    revealed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class DiceSet(Base):
    """One pre-rolled set of six faces; ``id`` is its global place in the serving order."""

    __tablename__ = "dice_sets"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    batch_id: Mapped[int] = mapped_column(ForeignKey("dice_batches.id"), index=True)
    faces: Mapped[str] = mapped_column(String(6))
    game_id: Mapped[int | None] = mapped_column(Integer, nullable=True, index=True)
    #: Served to a chance outcome the table never saw (a folded Hold'em pocket): never revealed.
    withheld: Mapped[bool] = mapped_column(Boolean, default=False)


class DiceCursor(Base):
    """The single row that says which set is served next (row-locked while serving)."""

    __tablename__ = "dice_cursor"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    next_set: Mapped[int] = mapped_column(BigInteger)


class SeatTimeout(Base):
    """A seat that ran out of time: one row per timeout applied (counted on profiles)."""

    __tablename__ = "seat_timeouts"
    __table_args__ = (UniqueConstraint("game_id", "seat", "version"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    seat: Mapped[int] = mapped_column(Integer)
    #: The game's version the timeout was applied at.
    version: Mapped[int] = mapped_column(Integer)
    user_pk: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), nullable=True, index=True
    )
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class TurnTime(Base):
    """How long a person took over one whole turn (a profile shows the median)."""

    __tablename__ = "turn_times"
    __table_args__ = (Index("ix_turn_times_user", "user_pk", "id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_pk: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    seconds: Mapped[float] = mapped_column(Float)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class Notification(Base):
    """Something a user should know: a game became their turn, their clock runs low."""

    __tablename__ = "notifications"
    __table_args__ = (Index("ix_notifications_user", "user_pk", "id"), NEVER_REUSE_IDS)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_pk: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    #: your_turn, time_80, time_1h, timed_out, game_over, ...
    kind: Mapped[str] = mapped_column(String(20))
    game_id: Mapped[int | None] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), nullable=True
    )
    text: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    read: Mapped[bool] = mapped_column(Boolean, default=False)


class GameWatcher(Base):
    """A user the players invited to watch a private game."""

    __tablename__ = "game_watchers"

    game_id: Mapped[int] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    user_pk: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
