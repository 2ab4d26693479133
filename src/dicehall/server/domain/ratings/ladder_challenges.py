"""Challenging a player on a ladder: the checks, then a rated ladder game that starts at once.

A ladder challenge is accepted automatically: the game is created with the opponent named
(the same checks as naming anyone as an opponent: their ``challenges_from`` setting and
any ignore, through :func:`relations.check_may_interact`) and the opponent's seat is taken
for them in the same transaction, so the game starts before the request answers. Who sits
first is drawn at random.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, insert, select, update

from dicehall.server.core.models import User
from dicehall.server.core.txn import publish_after_commit
from dicehall.server.domain import notifications
from dicehall.server.domain.account_checks import USER_ID_MAX, user_key
from dicehall.server.domain.dice.pool import DicePool
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.games import quotas, seating
from dicehall.server.domain.games.records import SEATS, USERS, GameRecord, SeatInfo
from dicehall.server.domain.games.seat_draw import claim, draw_seats
from dicehall.server.domain.people import relations
from dicehall.server.domain.ratings import kinds, ladder_moves, ladders
from dicehall.server.domain.ratings.ladder_inactivity import not_on_ladder
from dicehall.server.domain.ratings.ladder_moves import CHALLENGES, POSITIONS


@dataclass(frozen=True)
class Challenged:
    """A challenge made: the challenge as the API shows it, and its game (started)."""

    challenge: dict[str, Any]
    record: GameRecord
    seats: list[SeatInfo]


def _opponent(conn: Connection, user_id: str) -> Any:
    handle = user_id.strip()
    found = None
    if 0 < len(handle) <= USER_ID_MAX:
        found = conn.execute(
            select(USERS.c.id, USERS.c.user_id).where(USERS.c.key == user_key(handle))
        ).first()
    if found is None:
        raise Refused("invalid", "unknown_user", f"there is no user {user_id[:40]!r}")
    return found


def challenge(
    conn: Connection,
    pool: DicePool,
    challenger: User,
    kind: str,
    opponent_id: str,
    at: datetime,
    limits: quotas.GameLimits | None = None,
) -> Challenged:
    """``challenger`` challenges ``opponent_id`` on ladder ``kind``; the game starts at
    once. Refused: no such ladder (404), no such user or myself (422), either of us not on
    the ladder (409), the opponent does not accept challenges from me (403, the same answer
    for an ignore either way), more than :data:`ladders.REACH` places apart (409
    ``too_far``), :data:`ladders.MOST_OPEN` challenges of mine open already (429
    ``too_many_challenges``). Caller commits."""
    ladders.check_kind(kind)
    opponent = _opponent(conn, opponent_id)
    if opponent.id == challenger.id:
        raise Refused("invalid", "yourself", "you cannot challenge yourself")
    _check(conn, challenger, opponent, kind)
    record, seats = _start(conn, pool, challenger, kind, opponent.user_id, limits)
    # The ladder's lock only now, and everything checked again under it (a challenge or a
    # leave at the same moment; a refusal rolls the new game back too). Starting a game
    # takes the dice pool's cursor, and a move that finishes a ladder game holds that
    # cursor when it takes the ladder's lock: taken in the same order here, never the
    # other way round, the two never deadlock on PostgreSQL.
    ladder_moves.lock(conn, kind)
    _check(conn, challenger, opponent, kind)
    challenge_id = conn.execute(
        insert(CHALLENGES)
        .values(
            kind=kind,
            challenger_pk=challenger.id,
            opponent_pk=opponent.id,
            game_id=record.id,
            open=True,
            created_at=at,
        )
        .returning(CHALLENGES.c.id)
    ).scalar_one()
    conn.execute(
        update(POSITIONS)
        .where(POSITIONS.c.kind == kind, POSITIONS.c.user_pk.in_((challenger.id, opponent.id)))
        .values(active_at=at)
    )
    notifications.add(
        conn,
        opponent.id,
        "ladder",
        record.id,
        f"{challenger.user_id} challenged you on the {kinds.title(kind)} ladder: "
        f"game {record.id} has started.",
    )
    for user_pk in (challenger.id, opponent.id):
        publish_after_commit(conn, user_pk, {"type": "ladder", "kind": kind, "game": record.id})
    row = conn.execute(select(CHALLENGES).where(CHALLENGES.c.id == challenge_id)).one()
    return Challenged(
        ladders.challenge_json(row, challenger.user_id, opponent.user_id), record, seats
    )


def _check(conn: Connection, challenger: User, opponent: Any, kind: str) -> None:
    # Every rule of a challenge but the first ones (the ladder, the user, myself).
    mine = ladder_moves.position_of(conn, kind, challenger.id)
    if mine is None:
        raise not_on_ladder(kind)
    theirs = ladder_moves.position_of(conn, kind, opponent.id)
    if theirs is None:
        raise Refused(
            "conflict",
            "opponent_not_on_ladder",
            f"{opponent.user_id} is not on the {kinds.title(kind)} ladder",
        )
    relations.check_may_interact(conn, challenger.id, opponent.id, "challenge", opponent.user_id)
    if abs(mine - theirs) > ladders.REACH:
        raise Refused(
            "conflict",
            "too_far",
            f"{opponent.user_id} is {abs(mine - theirs)} places from you; you may challenge "
            f"players up to {ladders.REACH} places above or below you",
        )
    if ladders.open_challenges(conn, kind, challenger.id) >= ladders.MOST_OPEN:
        raise Refused(
            "too_many",
            "too_many_challenges",
            f"you have {ladders.MOST_OPEN} challenges open on this ladder; finish one first",
        )


def _start(
    conn: Connection,
    pool: DicePool,
    challenger: User,
    kind: str,
    opponent_id: str,
    limits: quotas.GameLimits | None,
) -> tuple[GameRecord, list[SeatInfo]]:
    # The game, rated and marked as a ladder game, with the opponent's seat accepted for
    # them: it starts here, as an accepted invitation would start it.
    game, options = kinds.ladder_game(kind)
    players = [challenger.user_id, opponent_id]
    draw = draw_seats(conn, pool, ["me", f"user:{opponent_id}"], players, game)
    record, seats = seating.create_game(
        conn,
        pool,
        challenger,
        game,
        dict(options),
        draw.order,
        pace=ladders.PACE,
        rated=True,
        ladder=True,
        limits=limits,
        tell_invited=False,  # accepted for them below: the "ladder" notice tells them
    )
    claim(conn, draw, record.id)
    if record.rating_kind != kind:  # pragma: no cover - kinds.ladder_game names its kind
        raise AssertionError(f"a {kind} ladder game rated as {record.rating_kind}")
    invited = next(s for s in seats if s.invited)
    conn.execute(
        update(SEATS)
        .where(SEATS.c.game_id == record.id, SEATS.c.seat == invited.seat)
        .values(invited=False)
    )
    seats[invited.seat] = replace(invited, invited=False)
    return seating.seated(conn, pool, record, seats)
