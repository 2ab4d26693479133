"""The site's tables (SQLAlchemy 2 declarative models). Migrations mirror these exactly.

(Longer than most modules on purpose: it is the whole schema in one place, declarations
only, read beside the migrations and compared with them by ``alembic check``; the tables
reference one another, so splitting them would only scatter one picture.)
"""

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

#: Text compared byte by byte on both databases (SQLite's default; PostgreSQL's "C"), so that
#: a prefix is one index range: ``term >= prefix AND term < prefix + U+10FFFF``.
BYTEWISE_TEXT = String(80).with_variant(String(80, collation="C"), "postgresql")


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
    #: Board, graphics, message and presence settings (JSON of ``domain.settings.UserSettings``).
    settings: Mapped[str] = mapped_column(Text, default="{}")
    #: When the user was last here, written at most once a day (profiles show the day).
    last_seen_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    #: The account's e-mail address (optional) and when it was proved by its link (None: not
    #: yet); see ``domain.notices.email_address``.
    email: Mapped[str | None] = mapped_column(String(254), nullable=True, index=True)
    email_verified_at: Mapped[datetime | None] = mapped_column(
        DateTime(timezone=True), nullable=True
    )
    #: "" (a member) or "moderator" (see ``domain.moderation``).
    role: Mapped[str] = mapped_column(String(12), default="", server_default="")
    #: Moderation: no writing others read until then; no signing in until then; closed for good.
    muted_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    suspended_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    closed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


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
    #: A seat order the site drew (auto-match, tournaments, ladder challenges): JSON
    #: ``{"sets": [dice set numbers], "before": [seat labels before the draw]}``; None: the
    #: players chose the order.
    seat_draw: Mapped[str | None] = mapped_column(Text, nullable=True)
    #: Scheme 3 (games from migration 0014 on): the next dice key and bag shuffle of the
    #: game's decks it will use; None for a game whose dice come from the old pool.
    next_key: Mapped[int | None] = mapped_column(Integer, nullable=True)
    next_shuffle: Mapped[int | None] = mapped_column(Integer, nullable=True)
    #: The rating kind a rated game counts for (``domain.ratings.kinds``); None: unrated.
    rating_kind: Mapped[str | None] = mapped_column(String(24), nullable=True)
    #: A ladder challenge's game (in the ladder of its rating kind).
    ladder: Mapped[bool] = mapped_column(Boolean, default=False)
    #: The version of its game's rules it was made under (``GameEntry.rules_version``);
    #: it is played and replayed with that version's rulings (migration 0013).
    rules: Mapped[int] = mapped_column(Integer, server_default="1")


class SeatRow(Base):
    """One seat of a game: a user, a bot by name, or open (both empty)."""

    __tablename__ = "game_seats"
    __table_args__ = (
        UniqueConstraint("game_id", "seat"),
        #: A player's seats by game: "is this player seated in this game" is one probe.
        Index("ix_game_seats_user", "user_pk", "game_id"),
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
    #: The newest line of the players' chat this seat's player has seen.
    chat_read: Mapped[int] = mapped_column(Integer, default=0)


class SeatResult(Base):
    """A person's seat in a finished game and how it came out: the history's and the
    record's index, written with the game's end, so neither sorts nor decodes a player's
    whole history."""

    __tablename__ = "seat_results"
    __table_args__ = (
        Index("ix_seat_results_user", "user_pk", "ended_at", "game_id"),
        Index("ix_seat_results_user_kind", "user_pk", "kind", "ended_at", "game_id"),
        Index("ix_seat_results_user_outcome", "user_pk", "outcome", "ended_at", "game_id"),
        #: A player's private games (the few a signed-in viewer may share), by game.
        Index("ix_seat_results_private", "user_pk", "private", "kind", "outcome"),
    )

    game_id: Mapped[int] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_pk: Mapped[int] = mapped_column(ForeignKey("users.id"))
    kind: Mapped[str] = mapped_column(String(20))
    #: win (the only winner), draw (a shared win), loss; None: the game kept no result.
    outcome: Mapped[str | None] = mapped_column(String(4), nullable=True)
    #: The seat's score in the game's own measure (points, horses, chips), when it has one.
    score: Mapped[int | None] = mapped_column(Integer, nullable=True)
    ended_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    #: The game's own flags, copied: who may see it, and whether it was a ladder game.
    private: Mapped[bool] = mapped_column(Boolean, default=False)
    ladder: Mapped[bool] = mapped_column(Boolean, default=False)


class SeatRecord(Base):
    """How many finished games a person has, by game, outcome and privacy: the record and
    the games-finished count without counting a history (kept with ``seat_results``)."""

    __tablename__ = "seat_records"

    user_pk: Mapped[int] = mapped_column(ForeignKey("users.id"), primary_key=True)
    kind: Mapped[str] = mapped_column(String(20), primary_key=True)
    #: win, loss, draw, or none (the game kept no result).
    outcome: Mapped[str] = mapped_column(String(4), primary_key=True)
    private: Mapped[bool] = mapped_column(Boolean, primary_key=True)
    games: Mapped[int] = mapped_column(Integer)


class EventRow(Base):
    """One event of a game's log; ``dice_set`` names the first pool set a roll came from,
    ``bag_shuffle`` the committed shuffle a bag draw came from (its prefix, in order)."""

    __tablename__ = "game_events"
    #: The moves of the last hour (Singularity's count) are one index range.
    __table_args__ = (Index("ix_game_events_created", "created_at"),)

    game_id: Mapped[int] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    data: Mapped[str] = mapped_column(Text)
    dice_set: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    bag_shuffle: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    #: Scheme 3: the game's dice key a roll used, or the game's shuffle a hand drew from.
    dice_key: Mapped[int | None] = mapped_column(Integer, nullable=True)
    hand_shuffle: Mapped[int | None] = mapped_column(Integer, nullable=True)
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
    """A batch of pre-rolled sets, committed before its first set is served.

    Scheme 2 (every batch since migration 0007): ``root`` is the Merkle root over the sets'
    salted leaves (``commitment`` repeats it, ``salt`` is empty) and ``log_seq`` its record
    in the public log; a finished game's proof reveals its own leaves. Scheme 1 (before):
    ``commitment`` is SHA-256 over ``salt`` and every set, and ``salt`` stays secret until
    the whole batch is revealed.
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
    scheme: Mapped[int] = mapped_column(Integer, default=2, server_default="1")
    root: Mapped[str | None] = mapped_column(String(64), nullable=True)
    log_seq: Mapped[int | None] = mapped_column(Integer, nullable=True)


class DiceSet(Base):
    """One pre-rolled set of six faces; ``id`` is its global place in the serving order."""

    __tablename__ = "dice_sets"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    batch_id: Mapped[int] = mapped_column(ForeignKey("dice_batches.id"), index=True)
    faces: Mapped[str] = mapped_column(String(6))
    game_id: Mapped[int | None] = mapped_column(Integer, nullable=True, index=True)
    #: Served to a chance outcome the table never saw (a folded Hold'em pocket): never revealed.
    withheld: Mapped[bool] = mapped_column(Boolean, default=False)
    #: The leaf's own salt (hex; scheme 2 only), published only in its game's proof.
    salt: Mapped[str | None] = mapped_column(String(64), nullable=True)


class DiceCursor(Base):
    """The single row that says which set is served next (row-locked while serving)."""

    __tablename__ = "dice_cursor"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    next_set: Mapped[int] = mapped_column(BigInteger)


class BagBatch(Base):
    """A batch of pre-shuffled Hold'em bags, committed by its Merkle ``root`` (logged as
    record ``log_seq``) before its first shuffle is served."""

    __tablename__ = "bag_batches"
    __table_args__ = NEVER_REUSE_IDS

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    root: Mapped[str] = mapped_column(String(64))
    size: Mapped[int] = mapped_column(Integer)
    first_shuffle: Mapped[int] = mapped_column(BigInteger)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    log_seq: Mapped[int] = mapped_column(Integer)


class BagShuffle(Base):
    """One shuffle of the 20 coloured dice; ``id`` is its global place in the serving order.

    ``colours`` in drawing order; ``salt`` is the leaf's salt and ``secret`` derives each
    position's salt (never published: a proof shows single positions)."""

    __tablename__ = "bag_shuffles"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    batch_id: Mapped[int] = mapped_column(ForeignKey("bag_batches.id"), index=True)
    colours: Mapped[str] = mapped_column(String(20))
    salt: Mapped[str] = mapped_column(String(64))
    secret: Mapped[str] = mapped_column(String(64))
    game_id: Mapped[int | None] = mapped_column(Integer, nullable=True, index=True)


class BagCursor(Base):
    """The single row that says which shuffle is served next (row-locked while serving)."""

    __tablename__ = "bag_cursor"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    next_shuffle: Mapped[int] = mapped_column(BigInteger)


class Deck(Base):
    """A deck (scheme 3): dice keys and bag shuffles made from one secret, committed in the
    public log before it is bound, in order, to one game (see ``dicehall.fairness.decks``)."""

    __tablename__ = "decks"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    #: Whether it holds bag shuffles (decks of games that draw from a bag).
    bags: Mapped[bool] = mapped_column(Boolean, default=False)
    secret: Mapped[str] = mapped_column(String(64))
    keys: Mapped[int] = mapped_column(Integer)
    shuffles: Mapped[int] = mapped_column(Integer)
    root: Mapped[str] = mapped_column(String(64))
    shuffles_root: Mapped[str | None] = mapped_column(String(64), nullable=True)
    log_seq: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    #: The game it was bound to (None: not yet).
    game_id: Mapped[int | None] = mapped_column(Integer, nullable=True, index=True)


class GameDeck(Base):
    """A deck bound to a game: the first from its start, more if it used up a deck."""

    __tablename__ = "game_decks"

    game_id: Mapped[int] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    part: Mapped[int] = mapped_column(Integer, primary_key=True)
    deck_id: Mapped[int] = mapped_column(ForeignKey("decks.id"))
    #: The game's first key and shuffle this deck covers.
    first_key: Mapped[int] = mapped_column(Integer)
    first_shuffle: Mapped[int] = mapped_column(Integer)
    log_seq: Mapped[int] = mapped_column(Integer)


class GameSeed(Base):
    """A seat's seed: mixed into every roll and hand of the game from ``from_key`` and
    ``from_shuffle`` on (the game's next key and shuffle when it arrived)."""

    __tablename__ = "game_seeds"

    game_id: Mapped[int] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    seed: Mapped[str] = mapped_column(String(128))
    from_key: Mapped[int] = mapped_column(Integer)
    from_shuffle: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class GameFaces(Base):
    """How often each face came up in a finished deck game's shown rolls (the fairness
    statistics; an old game's dice are counted from its dice sets)."""

    __tablename__ = "game_faces"

    game_id: Mapped[int] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    f1: Mapped[int] = mapped_column(Integer)
    f2: Mapped[int] = mapped_column(Integer)
    f3: Mapped[int] = mapped_column(Integer)
    f4: Mapped[int] = mapped_column(Integer)
    f5: Mapped[int] = mapped_column(Integer)
    f6: Mapped[int] = mapped_column(Integer)


class FairnessRecord(Base):
    """One record of the public, hash-chained log of batch commitments (append-only).

    ``body`` is the record's canonical JSON (what ``hash`` covers); appended only under the
    dice pool's cursor lock, so records are numbered without gaps."""

    __tablename__ = "fairness_log"
    __table_args__ = (UniqueConstraint("kind", "batch_id"),)

    seq: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    kind: Mapped[str] = mapped_column(String(8))
    batch_id: Mapped[int] = mapped_column(Integer)
    body: Mapped[str] = mapped_column(Text)
    hash: Mapped[str] = mapped_column(String(64))


class LogTreeNode(Base):
    """A perfect subtree of the public log's RFC 9162 Merkle tree: level 0 is record
    ``index + 1``'s leaf hash; level ``L`` covers leaves ``index * 2**L`` up to ``(index + 1) *
    2**L``. Added with each record (same transaction), so tree heads and proofs are read from
    O(log² n) rows (``domain.dice.logtree``)."""

    __tablename__ = "fairness_tree"

    level: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    index: Mapped[int] = mapped_column("idx", Integer, primary_key=True, autoincrement=False)
    hash: Mapped[str] = mapped_column(String(64))


class LogCosignature(Base):
    """A witness's latest cosignature of one of the log's checkpoints (one row per witness
    key, replaced when the witness cosigns a larger tree)."""

    __tablename__ = "fairness_cosignatures"

    #: The witness's verifier key (signed-note vkey text).
    witness_key: Mapped[str] = mapped_column(String(200), primary_key=True)
    size: Mapped[int] = mapped_column(Integer, index=True)
    #: The cosignature line, as the witness made it (with its newline).
    line: Mapped[str] = mapped_column(Text)
    cosigned_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    received_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


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
    __table_args__ = (
        Index("ix_notifications_user", "user_pk", "id"),
        # A game's unread line is found (and replaced) by user and game.
        Index("ix_notifications_user_game", "user_pk", "game_id"),
        NEVER_REUSE_IDS,
    )

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
    #: How many events this unread line sums up (a game's notices share one line).
    events: Mapped[int] = mapped_column(Integer, default=1, server_default="1")


class GameWatcher(Base):
    """A user the players invited to watch a private game."""

    __tablename__ = "game_watchers"

    game_id: Mapped[int] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    user_pk: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )


class Relation(Base):
    """What one user has said about another: ``buddy`` or ``ignore``, and a private note.

    One-way: a row says nothing to its target. ``domain.relations.may_interact`` reads it
    in both directions wherever two people can meet.
    """

    __tablename__ = "relations"
    __table_args__ = (Index("ix_relations_target", "target_pk"),)

    owner_pk: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    target_pk: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    #: buddy, ignore
    kind: Mapped[str] = mapped_column(String(6))
    note: Mapped[str] = mapped_column(String(200), default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class MessageThread(Base):
    """The one conversation between two users (``low_pk`` < ``high_pk``), with each side's
    read mark and hiding mark (message ids: what is at or below is read, or hidden)."""

    __tablename__ = "message_threads"
    __table_args__ = (
        UniqueConstraint("low_pk", "high_pk"),
        Index("ix_message_threads_low", "low_pk", "last_id"),
        Index("ix_message_threads_high", "high_pk", "last_id"),
        Index("ix_message_threads_writer", "created_by", "created_at"),
        NEVER_REUSE_IDS,
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    low_pk: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    high_pk: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    #: Who wrote first (new threads a day are limited per writer).
    created_by: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    last_id: Mapped[int] = mapped_column(Integer, default=0)
    last_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    low_read: Mapped[int] = mapped_column(Integer, default=0)
    high_read: Mapped[int] = mapped_column(Integer, default=0)
    low_hidden: Mapped[int] = mapped_column(Integer, default=0)
    high_hidden: Mapped[int] = mapped_column(Integer, default=0)


class Message(Base):
    """One message of a thread; it may point to a game (as a note attached to a move)."""

    __tablename__ = "messages"
    __table_args__ = (
        Index("ix_messages_thread", "thread_id", "id"),
        Index("ix_messages_sender", "sender_pk", "id"),
        NEVER_REUSE_IDS,
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    thread_id: Mapped[int] = mapped_column(ForeignKey("message_threads.id", ondelete="CASCADE"))
    sender_pk: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    body: Mapped[str] = mapped_column(Text)
    game_id: Mapped[int | None] = mapped_column(
        ForeignKey("games.id", ondelete="SET NULL"), nullable=True
    )
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    #: When a moderator hid it (the audit log says who and why); None: shown.
    hidden_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class ChatLine(Base):
    """A line of a game's chat: the players' channel, or the spectators' (which the players
    see only once the game is over)."""

    __tablename__ = "game_chat"
    __table_args__ = (Index("ix_game_chat_game", "game_id", "id"), NEVER_REUSE_IDS)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    user_pk: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    #: players, spectators
    channel: Mapped[str] = mapped_column(String(10))
    body: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    #: When a moderator hid it (the audit log says who and why); None: shown.
    hidden_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class Invite(Base):
    """A personal invite link (signed, single use): to the site, or to a game's seat."""

    __tablename__ = "invites"
    __table_args__ = (Index("ix_invites_inviter", "inviter_pk", "id"), NEVER_REUSE_IDS)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    inviter_pk: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    game_id: Mapped[int | None] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), nullable=True
    )
    seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    accepted_by: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL"), nullable=True
    )
    accepted_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    #: Inviter and invitee become buddies when it is accepted (either may opt out).
    make_buddies: Mapped[bool] = mapped_column(Boolean, default=True)


class UserSearchTerm(Base):
    """A prefix-searchable name of a user: their folded user id, and their folded display
    name from each word on ("ann lee" and "lee")."""

    __tablename__ = "user_search"
    __table_args__ = (Index("ix_user_search_user", "user_pk"),)

    term: Mapped[str] = mapped_column(BYTEWISE_TEXT, primary_key=True)
    user_pk: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )


class SiteSecret(Base):
    """A secret every server process of the site shares (made once, on first need)."""

    __tablename__ = "site_secrets"

    name: Mapped[str] = mapped_column(String(40), primary_key=True)
    value: Mapped[str] = mapped_column(String(128))


class Rating(Base):
    """A user's rating of one kind (openskill's mu and sigma) and how many rated games made it."""

    __tablename__ = "ratings"
    __table_args__ = (Index("ix_ratings_kind", "kind", "user_pk"),)

    user_pk: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    kind: Mapped[str] = mapped_column(String(24), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer, default=0)
    #: When the last rated game of this kind ended (inactivity widens sigma from then).
    last_game_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class RatingChange(Base):
    """What one rated game did to one seat's rating: before and after, and the place."""

    __tablename__ = "rating_changes"
    __table_args__ = (
        UniqueConstraint("game_id", "user_pk"),
        Index("ix_rating_changes_user", "user_pk", "kind", "id"),
        NEVER_REUSE_IDS,
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    user_pk: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(24))
    #: 1 for first; seats that tie share a place.
    place: Mapped[int] = mapped_column(Integer)
    mu_before: Mapped[float] = mapped_column(Float)
    sigma_before: Mapped[float] = mapped_column(Float)
    mu_after: Mapped[float] = mapped_column(Float)
    sigma_after: Mapped[float] = mapped_column(Float)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class LadderPosition(Base):
    """A user's place on the ladder of one 2-seat rating kind (1 is the top)."""

    __tablename__ = "ladder_positions"
    __table_args__ = (UniqueConstraint("kind", "position"),)

    kind: Mapped[str] = mapped_column(String(24), primary_key=True)
    user_pk: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    position: Mapped[int] = mapped_column(Integer)
    joined_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    #: The last ladder game finished or in progress (inactivity counts from it).
    active_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    #: When the inactivity rule last moved this player down.
    dropped_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    #: Ladder vacation: paused until then; days used in ``vacation_year``.
    vacation_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    vacation_days: Mapped[int] = mapped_column(Integer, default=0)
    vacation_year: Mapped[int] = mapped_column(Integer, default=0)


class LadderChallenge(Base):
    """A challenge on a ladder (accepted at once: its game starts when it is made)."""

    __tablename__ = "ladder_challenges"
    __table_args__ = (
        Index("ix_ladder_challenges_open", "kind", "challenger_pk", "open"),
        NEVER_REUSE_IDS,
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(24))
    challenger_pk: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    opponent_pk: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), unique=True)
    #: Until its game ends.
    open: Mapped[bool] = mapped_column(Boolean, default=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class LadderMove(Base):
    """One change of one position on a ladder, and why (joined, won, passed, inactive, left)."""

    __tablename__ = "ladder_moves"
    __table_args__ = (Index("ix_ladder_moves_kind", "kind", "id"), NEVER_REUSE_IDS)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(24))
    user_pk: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    #: None: not on the ladder (before joining, after leaving).
    old_position: Mapped[int | None] = mapped_column(Integer, nullable=True)
    new_position: Mapped[int | None] = mapped_column(Integer, nullable=True)
    reason: Mapped[str] = mapped_column(String(12))
    game_id: Mapped[int | None] = mapped_column(
        ForeignKey("games.id", ondelete="SET NULL"), nullable=True
    )
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class AutomatchTicket(Base):
    """A player waiting to be matched: the game they want, the table sizes they accept."""

    __tablename__ = "automatch_tickets"
    __table_args__ = (
        Index("ix_automatch_waiting", "status", "game"),
        Index("ix_automatch_user", "user_pk", "status"),
        NEVER_REUSE_IDS,
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_pk: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    game: Mapped[str] = mapped_column(String(24))
    #: The game's options as the codec writes them (canonical: equal options, equal text).
    options: Mapped[str] = mapped_column(Text)
    seats_min: Mapped[int] = mapped_column(Integer)
    seats_max: Mapped[int] = mapped_column(Integer)
    #: The pace as stored on games (None: no clock).
    pace: Mapped[str | None] = mapped_column(Text, nullable=True)
    rated: Mapped[bool] = mapped_column(Boolean)
    #: Minutes after which bots fill the missing seats (None: never).
    bots_after: Mapped[int | None] = mapped_column(Integer, nullable=True)
    #: waiting, matched or cancelled.
    status: Mapped[str] = mapped_column(String(12))
    game_id: Mapped[int | None] = mapped_column(
        ForeignKey("games.id", ondelete="SET NULL"), nullable=True
    )
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    matched_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class Tournament(Base):
    """A tournament: its game and format, who may join, and where it stands."""

    __tablename__ = "tournaments"
    __table_args__ = (Index("ix_tournaments_status", "status", "starts_at"), NEVER_REUSE_IDS)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(80))
    game: Mapped[str] = mapped_column(String(24))
    options: Mapped[str] = mapped_column(Text)
    #: cup, swiss or knockout.
    format: Mapped[str] = mapped_column(String(12))
    #: Seats at each table.
    table_seats: Mapped[int] = mapped_column(Integer)
    #: Players it starts with when full (None: starts at ``starts_at`` with whoever joined).
    size: Mapped[int | None] = mapped_column(Integer, nullable=True)
    #: Rounds of a Swiss (cups and knockouts have as many as their players need).
    rounds: Mapped[int | None] = mapped_column(Integer, nullable=True)
    #: The tournament's pace as given (a name or the figures, JSON).
    pace: Mapped[str] = mapped_column(Text)
    #: Seconds each player has for a whole game (no increment, no vacation).
    bank: Mapped[int] = mapped_column(Integer)
    rated: Mapped[bool] = mapped_column(Boolean)
    starts_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    buddies_only: Mapped[bool] = mapped_column(Boolean, default=False)
    created_by: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL"), nullable=True
    )
    #: Scheduled tournaments: which slot of the schedule made it (one per slot, ever).
    schedule_key: Mapped[str | None] = mapped_column(String(80), nullable=True, unique=True)
    #: open, running, finished or cancelled.
    status: Mapped[str] = mapped_column(String(12))
    #: The round being played (0 before the start).
    round: Mapped[int] = mapped_column(Integer, default=0)
    round_deadline: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    #: Bumped by every change (live pages compare it).
    version: Mapped[int] = mapped_column(Integer, default=0)


class TournamentPlayer(Base):
    """A player in a tournament: points so far and whether they still play."""

    __tablename__ = "tournament_players"
    __table_args__ = (Index("ix_tournament_players_user", "user_pk"),)

    tournament_id: Mapped[int] = mapped_column(
        ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True
    )
    user_pk: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    joined_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    #: active, withdrawn, timed_out or out (knocked out).
    status: Mapped[str] = mapped_column(String(12))
    points: Mapped[float] = mapped_column(Float, default=0.0)
    #: The rating the player started with (seeding and the last tie-break).
    seed: Mapped[float] = mapped_column(Float, default=0.0)
    #: The round after which the player stopped playing (None: still in).
    left_round: Mapped[int | None] = mapped_column(Integer, nullable=True)
    #: The final place, once the tournament has finished.
    place: Mapped[int | None] = mapped_column(Integer, nullable=True)


class TournamentTable(Base):
    """One table of one round: who sits where, its game (none for a bye) and its points."""

    __tablename__ = "tournament_tables"
    __table_args__ = (UniqueConstraint("tournament_id", "round", "number"), NEVER_REUSE_IDS)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id", ondelete="CASCADE"))
    round: Mapped[int] = mapped_column(Integer)
    number: Mapped[int] = mapped_column(Integer)
    game_id: Mapped[int | None] = mapped_column(
        ForeignKey("games.id", ondelete="SET NULL"), nullable=True, unique=True
    )
    #: The players' user pks by seat (JSON list).
    players: Mapped[str] = mapped_column(Text)
    #: The points each seat scored (JSON list, by seat), once the table is done.
    points: Mapped[str | None] = mapped_column(Text, nullable=True)
    done: Mapped[bool] = mapped_column(Boolean, default=False)


class BotTable(Base):
    """A slow bot's tables for one set of options, as the bot workers report them: so a
    web process without bot workers of its own can tell a player that a bot is warming up."""

    __tablename__ = "bot_tables"

    kind: Mapped[str] = mapped_column(String(20), primary_key=True)
    bot: Mapped[str] = mapped_column(String(30), primary_key=True)
    #: The game's options as canonical JSON (what the tables depend on).
    options: Mapped[str] = mapped_column(String(400), primary_key=True)
    #: When a worker first started building them, and when one had them (None: not yet).
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    ready_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    #: The fraction of the build done and the seconds left at its pace, as a worker last
    #: told them, and when (None: the build tells no progress).
    progress: Mapped[float | None] = mapped_column(Float, nullable=True)
    left_s: Mapped[float | None] = mapped_column(Float, nullable=True)
    told_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class Delivery(Base):
    """One notice on its way to one of a user's channels (e-mail, push, webhook): written in
    the transaction that made the notice, sent by the ``deliveries`` job. ``event`` names
    the event (``your_turn:24:37``), so a notice is queued at most once per channel."""

    __tablename__ = "deliveries"
    __table_args__ = (
        UniqueConstraint("user_pk", "channel", "event", name="uq_deliveries_event"),
        Index("ix_deliveries_due", "status", "due_at"),
        NEVER_REUSE_IDS,
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_pk: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    #: email, push or webhook.
    channel: Mapped[str] = mapped_column(String(10))
    event: Mapped[str] = mapped_column(String(80))
    #: The notice's kind (your_turn, invitation, game_over, ...).
    kind: Mapped[str] = mapped_column(String(20))
    game_id: Mapped[int | None] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), nullable=True
    )
    title: Mapped[str] = mapped_column(String(200))
    text: Mapped[str] = mapped_column(String(400))
    #: The site path a click opens (``/games/24``).
    path: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    #: pending (due at ``due_at``), digest (kept for the daily mail due at ``due_at``), sent,
    #: skipped (the game was open: the player saw it), failed (retries spent, or no target).
    status: Mapped[str] = mapped_column(String(10))
    due_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    #: A process sending it holds it until then (a process killed mid-send lets it go).
    claimed_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    sent_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    last_error: Mapped[str | None] = mapped_column(String(300), nullable=True)


class PushSubscription(Base):
    """A browser's Web Push subscription (RFC 8030): where to post, and the keys (RFC 8291)
    that encrypt what is posted."""

    __tablename__ = "push_subscriptions"
    __table_args__ = NEVER_REUSE_IDS

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_pk: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    endpoint: Mapped[str] = mapped_column(String(1000), unique=True)
    p256dh: Mapped[str] = mapped_column(String(200))
    auth: Mapped[str] = mapped_column(String(100))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    last_error: Mapped[str | None] = mapped_column(String(300), nullable=True)


class Webhook(Base):
    """A user's webhook: the URL their notices are posted to, in which format, and how the
    last delivery went (shown on the settings page)."""

    __tablename__ = "webhooks"

    user_pk: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    url: Mapped[str] = mapped_column(String(1000))
    #: json, discord, slack or ntfy.
    format: Mapped[str] = mapped_column(String(10))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    last_ok_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    last_error: Mapped[str | None] = mapped_column(String(300), nullable=True)
    last_error_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class GameView(Base):
    """A game open in a signed-in user's tab (a push socket following it): notices about
    that game are not sent to their channels while it is, nor e-mailed soon after."""

    __tablename__ = "game_views"
    __table_args__ = (Index("ix_game_views_user_game", "user_pk", "game_id"),)

    #: The socket's own random id.
    socket: Mapped[str] = mapped_column(String(32), primary_key=True)
    user_pk: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    #: Refreshed while the socket lives; a row not refreshed for a while is a dead socket's.
    seen_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    #: When the socket closed (None: open).
    closed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class Report(Base):
    """A member's report of a user, a profile, a message, a chat line or a testimonial,
    with what the content said when it was reported, and what became of it."""

    __tablename__ = "reports"
    __table_args__ = (
        Index("ix_reports_status", "status", "id"),
        Index("ix_reports_target", "target_kind", "target_id", "reporter_pk"),
        NEVER_REUSE_IDS,
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    reporter_pk: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    #: user, profile, message, chat or testimonial.
    target_kind: Mapped[str] = mapped_column(String(12))
    #: The user's, message's, chat line's or testimonial's id.
    target_id: Mapped[int] = mapped_column(Integer)
    #: Who wrote or is the reported thing.
    target_user_pk: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), index=True
    )
    #: spam, abuse, cheating, inappropriate or other.
    reason: Mapped[str] = mapped_column(String(16))
    text: Mapped[str] = mapped_column(String(500), default="")
    #: The reported text as it was then (a profile's name and about text, a message...).
    content: Mapped[str] = mapped_column(Text, default="")
    #: open, resolved or dismissed.
    status: Mapped[str] = mapped_column(String(10))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    handled_by: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL"), nullable=True
    )
    handled_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class ModerationAction(Base):
    """One entry of the moderation audit log (append-only): who did what to whom, why,
    until when, and to which content."""

    __tablename__ = "moderation_actions"
    __table_args__ = (Index("ix_moderation_actions_target", "target_pk", "id"), NEVER_REUSE_IDS)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    #: None: the site's administrator (``dicehall admin``).
    moderator_pk: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL"), nullable=True
    )
    target_pk: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL"), nullable=True
    )
    #: warn, mute, unmute, hide, unhide, suspend, lift, close, dismiss, approve, grant, revoke.
    action: Mapped[str] = mapped_column(String(12))
    reason: Mapped[str] = mapped_column(String(500))
    until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    #: The content acted on (message, chat, testimonial, profile) and its text then.
    content_kind: Mapped[str | None] = mapped_column(String(12), nullable=True)
    content_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    content_text: Mapped[str | None] = mapped_column(Text, nullable=True)
    report_id: Mapped[int | None] = mapped_column(
        ForeignKey("reports.id", ondelete="SET NULL"), nullable=True
    )
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class Testimonial(Base):
    """A member's testimonial about the site (one each), shown once a moderator approved it."""

    __tablename__ = "testimonials"
    __table_args__ = (Index("ix_testimonials_status", "status", "id"), NEVER_REUSE_IDS)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_pk: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), unique=True)
    body: Mapped[str] = mapped_column(Text)
    #: pending, approved or hidden.
    status: Mapped[str] = mapped_column(String(10))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    approved_by: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL"), nullable=True
    )
    approved_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class Highlight(Base):
    """A moment worth a look on Singularity, written as its game or tournament ends:
    something a seat did in a finished public game (a Boatzee, a big pot, a record), or a
    tournament's winner; unshown rows are the scores later games' records are measured
    against (``record`` names the record, ``value`` is the figure)."""

    __tablename__ = "highlights"
    __table_args__ = (
        #: The feed: the latest shown moments, newest first.
        Index("ix_highlights_shown", "shown", "id"),
        #: A record: the best value under one key.
        Index("ix_highlights_record", "record", "value"),
        NEVER_REUSE_IDS,
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int | None] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), nullable=True, index=True
    )
    #: The game's seat the moment is about.
    seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    tournament_id: Mapped[int | None] = mapped_column(
        ForeignKey("tournaments.id", ondelete="CASCADE"), nullable=True
    )
    #: A tournament's winner.
    user_pk: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), nullable=True
    )
    #: The game's kind of highlight (boatzee, pot, ...), record, or tournament.
    what: Mapped[str] = mapped_column(String(20))
    #: The game's name as its options make it ("Triple Boatzee"), or the tournament's name.
    title: Mapped[str] = mapped_column(String(80))
    #: What was done, in words that follow the seat's or winner's name.
    text: Mapped[str] = mapped_column(String(300))
    value: Mapped[int] = mapped_column(BigInteger)
    record: Mapped[str | None] = mapped_column(String(80), nullable=True)
    shown: Mapped[bool] = mapped_column(Boolean)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class RestoreRow(Base):
    """One restore from a backup (``dicehall restore``), kept as its audit record: how far the
    backup's public log reached, what the saved log added, and what was moved past."""

    __tablename__ = "restores"
    __table_args__ = NEVER_REUSE_IDS

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    restored_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    #: The backup's file name (never a database URL: it may hold a password).
    source: Mapped[str] = mapped_column(String(300))
    #: Records of the public log in the backup, and after the saved log's were imported.
    backup_log_size: Mapped[int] = mapped_column(Integer)
    log_size: Mapped[int] = mapped_column(Integer)
    #: JSON of ``domain.restore.RestoreReport``: cursors and id floors before and after.
    details: Mapped[str] = mapped_column(Text)
