"""Tell a friend: personal invite links, to the site or to an open seat of one of my games.

A link carries the invite's id signed with the site's secret (``itsdangerous``, salted for
invites, stamped with the invite's creation): nobody can forge one or change its id, and it
is refused 14 days after it was made, by its signature and by its row alike. It can be
accepted once (the row's ``accepted_by`` is set only where it is still empty). Accepting
seats the friend through :func:`~dicehall.server.domain.games.seating.join_game` (its
checks and quotas), and makes the two buddies unless either opted out. An inviter and a
friend across an ignore never meet this way: the friend is told what anyone refused a game
is told. The site never sends e-mail: the inviter hands the link on.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal, cast

from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer
from sqlalchemy import Connection, Table, delete, func, insert, select, update

from dicehall.server.core.clock import aware, now
from dicehall.server.core.models import Invite, User
from dicehall.server.domain import notifications
from dicehall.server.domain.dice.pool import DicePool
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.games.quotas import GameLimits
from dicehall.server.domain.games.records import (
    GAMES,
    SEATS,
    USERS,
    GameRecord,
    SeatInfo,
    fetch_game,
    seats_of,
    variant_title,
)
from dicehall.server.domain.games.seating import join_game
from dicehall.server.domain.people import relations
from dicehall.server.domain.site_secrets import link_serializer

INVITES = cast(Table, Invite.__table__)

#: How long a link may be used.
LIFETIME = timedelta(days=14)
#: The most invites one user may make in a day.
PER_DAY = 50
#: The most invites a list answer holds.
PAGE = 50
#: Separates invite signatures from any other link the site signs with the same secret.
SALT = "invite"

State = Literal["open", "accepted", "expired"]


def _serializer(secret: str, stamp: int | None = None) -> URLSafeTimedSerializer:
    return link_serializer(secret, SALT, stamp)


def token_of(secret: str, invite_id: int, created_at: datetime) -> str:
    """The link's token of invite ``invite_id`` made at ``created_at``."""
    stamp = int(aware(created_at).timestamp())
    return str(_serializer(secret, stamp).dumps(invite_id))


def invite_id_of(secret: str, token: str) -> int:
    """The invite a token names; refused when it was not signed here or is too old."""
    try:
        found = _serializer(secret).loads(token, max_age=int(LIFETIME.total_seconds()))
    except SignatureExpired as exc:
        raise _expired() from exc
    except BadSignature as exc:
        raise Refused("not_found", "invalid_invite", "this invite link is not valid") from exc
    if not isinstance(found, int) or isinstance(found, bool):
        raise Refused("not_found", "invalid_invite", "this invite link is not valid")
    return found


def _expired() -> Refused:
    return Refused("conflict", "invite_expired", "this invite link has expired; ask for a new one")


# -- what an invite is -------------------------------------------------------------------------


@dataclass(frozen=True)
class InviteView:
    """An invite, as its inviter lists it and a friend's landing page shows it."""

    id: int
    inviter_pk: int
    inviter_id: str
    inviter_name: str
    game_id: int | None
    game_kind: str | None
    game_status: str | None
    seat: int | None
    make_buddies: bool
    created: datetime
    expires: datetime
    accepted_by: str | None
    accepted_at: datetime | None
    #: The game's name as its options make it ("Triple Boatzee"); None without a game.
    game_title: str | None = None

    def state(self, at: datetime | None = None) -> State:
        """Open (usable), accepted, or expired unused."""
        if self.accepted_at is not None:
            return "accepted"
        return "open" if self.expires > (at or now()) else "expired"

    def as_json(self, url: str | None) -> dict[str, Any]:
        """The API's answer; ``url`` is the link (given for an open invite only)."""
        state = self.state()
        return {
            "id": self.id,
            "url": url if state == "open" else None,
            "created": self.created.isoformat(),
            "expires": self.expires.isoformat(),
            "game_id": self.game_id,
            "game_kind": self.game_kind,
            "seat": self.seat,
            "make_buddies": self.make_buddies,
            "accepted_by": self.accepted_by,
            "accepted_at": None if self.accepted_at is None else self.accepted_at.isoformat(),
            "state": state,
        }


_INVITER = USERS.alias("inviter")
_FRIEND = USERS.alias("friend")
_VIEW = (
    select(
        INVITES,
        _INVITER.c.user_id.label("inviter_id"),
        _INVITER.c.display_name.label("inviter_name"),
        _FRIEND.c.user_id.label("friend_id"),
        GAMES.c.kind.label("game_kind"),
        GAMES.c.options.label("game_options"),
        GAMES.c.status.label("game_status"),
    )
    .join(_INVITER, _INVITER.c.id == INVITES.c.inviter_pk)
    .outerjoin(_FRIEND, _FRIEND.c.id == INVITES.c.accepted_by)
    .outerjoin(GAMES, GAMES.c.id == INVITES.c.game_id)
)


def _view_of(row: Any) -> InviteView:
    return InviteView(
        id=row.id,
        inviter_pk=row.inviter_pk,
        inviter_id=row.inviter_id,
        inviter_name=row.inviter_name,
        game_id=row.game_id,
        game_kind=row.game_kind,
        game_status=row.game_status,
        seat=row.seat,
        make_buddies=bool(row.make_buddies),
        created=aware(row.created_at),
        expires=aware(row.expires_at),
        accepted_by=row.friend_id,
        accepted_at=None if row.accepted_at is None else aware(row.accepted_at),
        game_title=None
        if row.game_kind is None
        else variant_title(row.game_kind, row.game_options),
    )


def view(conn: Connection, invite_id: int) -> InviteView | None:
    """Invite ``invite_id``, or None when there is none (never made, or withdrawn)."""
    row = conn.execute(_VIEW.where(INVITES.c.id == invite_id)).first()
    return None if row is None else _view_of(row)


def listing(
    conn: Connection, inviter_pk: int, before: int | None = None, limit: int = PAGE
) -> tuple[list[InviteView], int | None]:
    """A page of ``inviter_pk``'s invites, newest first, and the ``before`` of the next."""
    query = _VIEW.where(INVITES.c.inviter_pk == inviter_pk)
    if before is not None:
        query = query.where(INVITES.c.id < before)
    found = conn.execute(query.order_by(INVITES.c.id.desc()).limit(limit + 1)).all()
    shown = [_view_of(row) for row in found[:limit]]
    return shown, shown[-1].id if len(found) > limit else None


# -- making and withdrawing --------------------------------------------------------------------


def create(
    conn: Connection,
    inviter: User,
    game_id: int | None = None,
    seat: int | None = None,
    make_buddies: bool = True,
) -> InviteView:
    """A new invite from ``inviter``: to the site, or to an open seat (``seat``, or the
    first open one) of ``game_id``, a game waiting for players that ``inviter`` sits in.
    Caller commits; the link is :func:`token_of` the answer's id and creation."""
    # Lock the inviter's row so that parallel requests count one after another
    # (PostgreSQL; SQLite's writers are serialized anyway).
    conn.execute(select(USERS.c.id).where(USERS.c.id == inviter.id).with_for_update())
    moment = now()
    made = conn.execute(
        select(func.count())
        .select_from(INVITES)
        .where(
            INVITES.c.inviter_pk == inviter.id, INVITES.c.created_at > moment - timedelta(days=1)
        )
    ).scalar_one()
    if made >= PER_DAY:
        raise Refused(
            "too_many",
            "too_many_invites",
            f"you made {PER_DAY} invites in the last day; wait a little",
            retry_after=3600,
        )
    if game_id is not None:
        seat = _open_seat_of(conn, inviter, game_id, seat)
    elif seat is not None:
        raise Refused("invalid", "invalid_seat", "a seat can be given only with a game")
    new_id = conn.execute(
        insert(INVITES)
        .values(
            inviter_pk=inviter.id,
            game_id=game_id,
            seat=seat,
            created_at=moment,
            expires_at=moment + LIFETIME,
            make_buddies=make_buddies,
        )
        .returning(INVITES.c.id)
    ).scalar_one()
    found = view(conn, int(new_id))
    assert found is not None
    return found


def _open_seat_of(conn: Connection, inviter: User, game_id: int, seat: int | None) -> int:
    """The seat of ``game_id`` an invite may offer (checked as :func:`create` says)."""
    try:
        record = fetch_game(conn, game_id)
    except Refused:
        record = None
    seats = [] if record is None else seats_of(conn, game_id)
    if record is None or not any(s.user_pk == inviter.id for s in seats):
        # The same answer for a game that does not exist: a private game stays unseen.
        raise Refused("invalid", "not_your_game", f"you have no seat in game {game_id}")
    if record.status != "waiting":
        raise Refused(
            "conflict", "not_waiting", f"game {game_id} is not waiting for players any more"
        )
    if seat is not None and not 0 <= seat < len(seats):
        raise Refused("invalid", "invalid_seat", f"game {game_id} has seats 0 to {len(seats) - 1}")
    open_seats = [s.seat for s in seats if s.is_open and (seat is None or s.seat == seat)]
    if not open_seats:
        if seat is None:
            raise Refused("conflict", "no_open_seat", f"game {game_id} has no open seat")
        raise Refused("conflict", "seat_taken", f"seat {seat} of game {game_id} is not open")
    return open_seats[0]


@dataclass(frozen=True)
class OpenSeat:
    """An open seat of a game of mine waiting for players: what an invite may offer."""

    game_id: int
    game_kind: str
    seat: int
    seats: int
    #: The game's name as its options make it ("Triple Boatzee").
    game_title: str = ""


def open_seats_of_mine(conn: Connection, user_pk: int) -> list[OpenSeat]:
    """The open seats of the games ``user_pk`` sits in that wait for players, newest first."""
    mine = (
        select(GAMES.c.id, GAMES.c.kind, GAMES.c.options, GAMES.c.seats)
        .join(SEATS, SEATS.c.game_id == GAMES.c.id)
        .where(SEATS.c.user_pk == user_pk, GAMES.c.status == "waiting")
        .order_by(GAMES.c.id.desc())
    )
    found = []
    for game in conn.execute(mine).all():
        for seat in seats_of(conn, game.id):
            if seat.is_open:
                title = variant_title(game.kind, game.options)
                found.append(OpenSeat(game.id, game.kind, seat.seat, game.seats, title))
    return found


def withdraw(conn: Connection, inviter_pk: int, invite_id: int) -> None:
    """Withdraw one of my invites not yet accepted: its link stops working (404 for any
    other id, 409 ``invite_accepted`` for one accepted)."""
    found = view(conn, invite_id)
    if found is None or found.inviter_pk != inviter_pk:
        raise Refused("not_found", "no_such_invite", f"you have no invite {invite_id}")
    gone = conn.execute(
        delete(INVITES).where(INVITES.c.id == invite_id, INVITES.c.accepted_by.is_(None))
    ).rowcount
    if not gone:
        raise Refused("conflict", "invite_accepted", "this invite was accepted already")


# -- following a link --------------------------------------------------------------------------


def open_invite(conn: Connection, secret: str, token: str) -> InviteView:
    """The invite a link names while it can still be accepted; refused (with a code the
    landing page explains) when the link is not valid, withdrawn, expired or used."""
    invite_id = invite_id_of(secret, token)
    found = view(conn, invite_id)
    if found is None:
        raise Refused("not_found", "invite_withdrawn", "this invite was withdrawn")
    state = found.state()
    if state == "accepted":
        raise Refused("conflict", "invite_used", "this invite link has been used already")
    if state == "expired":
        raise _expired()
    return found


@dataclass(frozen=True)
class Accepted:
    """An invite accepted: from whom, the seat taken (if any, with the game and its seats
    to push), and whether the two are buddies now."""

    invite: InviteView
    seat: int | None
    buddies: bool
    game: tuple[GameRecord, list[SeatInfo]] | None = None

    @property
    def game_id(self) -> int | None:
        """The game the friend sits in now (None for an invite to the site)."""
        return None if self.game is None else self.game[0].id


def accept(
    conn: Connection,
    pool: DicePool,
    secret: str,
    token: str,
    user: User,
    make_buddies: bool = True,
    limits: GameLimits | None = None,
) -> Accepted:
    """``user`` accepts the invite a link names: takes its seat (or another open one of
    its game), and befriends the inviter unless either opted out. Caller commits, then
    pushes the game's change (:func:`~dicehall.server.domain.work.notify`)."""
    found = open_invite(conn, secret, token)
    if found.inviter_pk == user.id:
        raise Refused("invalid", "yourself", "this is your own invite; send it to a friend")
    relations.check_may_interact(conn, user.id, found.inviter_pk, "join", found.inviter_id)
    taken = conn.execute(
        update(INVITES)
        .where(INVITES.c.id == found.id, INVITES.c.accepted_by.is_(None))
        .values(accepted_by=user.id, accepted_at=now())
    ).rowcount
    if not taken:
        raise Refused("conflict", "invite_used", "this invite link has been used already")
    seat = game = None
    if found.game_id is not None:
        game = _take_seat(conn, pool, user, found.game_id, found.seat, limits)
        seat = next(s.seat for s in game[1] if s.user_pk == user.id)
    buddies = found.make_buddies and make_buddies
    if buddies:
        try:
            relations.befriend(conn, found.inviter_pk, user.id)
        except Refused:
            buddies = False  # a full buddy list never keeps a friend from the game
    where = f" and took a seat in game {found.game_id}" if found.game_id else ""
    notifications.add(
        conn,
        found.inviter_pk,
        "invite_accepted",
        found.game_id,
        f"{user.user_id} accepted your invite{where}",
    )
    return Accepted(found, seat, buddies, game)


def _take_seat(
    conn: Connection,
    pool: DicePool,
    user: User,
    game_id: int,
    seat: int | None,
    limits: GameLimits | None,
) -> tuple[GameRecord, list[SeatInfo]]:
    record = fetch_game(conn, game_id, lock=True)
    try:
        record, _ = join_game(conn, pool, user, record, seat, limits)
    except Refused as exc:
        if exc.code != "seat_taken":
            raise
        # Someone took the offered seat from the waiting room: another open one will do.
        record, _ = join_game(conn, pool, user, record, None, limits)
    # Read the seats back: joining builds only the seat it took.
    return record, seats_of(conn, game_id)
