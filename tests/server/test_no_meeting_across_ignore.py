"""Nobody meets across an ignore: for random relations and settings among a few users and
random attempts through every meeting point, each attempt succeeds exactly when the model
says it may (no ignore either way; for messages and challenges, the other's audience
setting lets the actor in), so nothing crosses an ignore in either direction and nothing
that should work is refused. Each meeting point is a small adapter: an attempt either
meets (returns True) or is refused (returns False)."""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Connection, delete, insert, select
from sqlalchemy.orm import Session

from dicehall.server.core.clock import now
from dicehall.server.core.models import User
from dicehall.server.domain import site_secrets
from dicehall.server.domain.automatch import matcher, tickets
from dicehall.server.domain.automatch.records import TICKETS
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.games import ending, reading, seating, watching
from dicehall.server.domain.games.records import fetch_game
from dicehall.server.domain.people import chat, invites, messages, relations
from dicehall.server.domain.people import settings as user_settings
from dicehall.server.domain.ratings import ladder_challenges, ladders
from dicehall.server.domain.services import Services
from dicehall.server.domain.tournaments import create as tournament_create
from dicehall.server.domain.tournaments import entry as tournament_entry
from dicehall.server.domain.tournaments import job as tournament_job
from dicehall.server.domain.tournaments import rows as tournament_rows
from dicehall.server.domain.tournaments.rounds import Work
from dicehall.server.domain.work import write as site_write
from tests.live import add_user

PEOPLE = 3
AUDIENCES = ("everyone", "buddies", "nobody")
_names = itertools.count()


@dataclass(frozen=True)
class World:
    """Who says what about whom (owner index, target index) -> kind, and each one's
    audience for messages and challenges."""

    said: dict[tuple[int, int], str]
    messages_from: tuple[str, ...]
    challenges_from: tuple[str, ...]

    def apart(self, a: int, b: int) -> bool:
        return self.said.get((a, b)) == "ignore" or self.said.get((b, a)) == "ignore"

    def lets_in(self, audience: str, owner: int, actor: int) -> bool:
        return audience == "everyone" or (
            audience == "buddies" and self.said.get((owner, actor)) == "buddy"
        )


pairs = [(a, b) for a in range(PEOPLE) for b in range(PEOPLE) if a != b]
worlds = st.builds(
    World,
    st.dictionaries(st.sampled_from(pairs), st.sampled_from(["buddy", "ignore"])),
    st.tuples(*[st.sampled_from(AUDIENCES)] * PEOPLE),
    st.tuples(*[st.sampled_from(AUDIENCES)] * PEOPLE),
)


@dataclass
class Cast:
    """The users of one example and the services they live in."""

    services: Services
    users: list[User]
    #: The time messages are sent at (moved on by each, past the rate limit).
    clock: datetime = field(default_factory=now)

    def write(self, work: Callable[[Connection], Any]) -> Any:
        # As the site's requests do: a write that finds the dice pool empty tops it up once.
        return site_write(self.services, work)


def _attempt(work: Callable[[], Any]) -> bool:
    try:
        work()
    except Refused:
        return False
    return True


# -- the meeting points ------------------------------------------------------------------------


def name_as_opponent(cast: Cast, actor: int, other: int) -> bool:
    creator, named = cast.users[actor], cast.users[other]
    pool = cast.services.pool
    return _attempt(
        lambda: cast.write(
            lambda conn: seating.create_game(
                conn, pool, creator, "boatzee", {}, ["me", named.user_id], pace="none"
            )
        )
    )


def challenge_on_a_ladder(cast: Cast, actor: int, other: int) -> bool:
    """Both are on the Boss ladder; the actor challenges the other (accepted at once: the
    game starts). A game that started is aborted, so the actor's open challenges never run
    out within an example."""
    challenger, opponent = cast.users[actor], cast.users[other]
    pool = cast.services.pool
    for user in (challenger, opponent):

        def join(conn: Connection, user_pk: int = user.id) -> None:
            ladders.join(conn, "boss", user_pk, now())

        with contextlib.suppress(Refused):
            cast.write(join)
    try:
        made = cast.write(
            lambda conn: ladder_challenges.challenge(
                conn, pool, challenger, "boss", opponent.user_id, now()
            )
        )
    except Refused as exc:
        assert exc.code == "not_accepted", exc.code
        return False
    cast.write(
        lambda conn: ending.abort(
            conn, pool, challenger, fetch_game(conn, made.record.id, lock=True), made.record.version
        )
    )
    return True


def auto_match(cast: Cast, actor: int, other: int) -> bool:
    """Both ask to be matched for Hold'em (no open game of it, nobody else waiting) and
    the matcher runs: met when one game seats them both. A started game is aborted and a
    ticket still waiting cancelled, so the next attempt starts clean."""
    pool = cast.services.pool
    wish = tickets.check("holdem", {}, [2, 2], "daily", False, None)
    filed: list[int] = []
    for user in (cast.users[actor], cast.users[other]):

        def file(conn: Connection, user: User = user) -> int:
            ticket_id: int = tickets.file(conn, pool, user, wish, now()).ticket["id"]
            return ticket_id

        filed.append(cast.write(file))
    cast.write(lambda conn: matcher.match(conn, pool, now()))
    rows = cast.write(
        lambda conn: conn.execute(select(TICKETS).where(TICKETS.c.id.in_(filed))).all()
    )
    games = {row.game_id for row in rows}
    met = len(games) == 1 and None not in games
    assert met or all(row.status == "waiting" for row in rows), rows
    for row in rows:
        if row.status == "waiting":

            def cancel(conn: Connection, row: Any = row) -> None:
                tickets.cancel(conn, row.user_pk, row.id, now())

            cast.write(cancel)
    if met:

        def call_off(conn: Connection, game_id: Any = rows[0].game_id) -> None:
            record = fetch_game(conn, game_id, lock=True)
            ending.abort(conn, pool, cast.users[actor], record, record.version)

        cast.write(call_off)
    return met


def join_open_seat(cast: Cast, actor: int, other: int) -> bool:
    host, joiner = cast.users[other], cast.users[actor]
    pool = cast.services.pool
    record, _ = cast.write(
        lambda conn: seating.create_game(conn, pool, host, "boatzee", {}, ["me", "open"])
    )
    listed = cast.write(lambda conn: reading.open_games(conn, viewer_pk=joiner.id))
    joined = _attempt(
        lambda: cast.write(
            lambda conn: seating.join_game(
                conn, pool, joiner, fetch_game(conn, record.id, lock=True), None
            )
        )
    )
    # The waiting room shows exactly the games one may join.
    assert (record.id in {g["id"] for g in listed}) == joined
    return joined


def join_a_tournament(cast: Cast, actor: int, other: int) -> bool:
    """The other creates a cup of two and joins; the actor asks to join. Met when the actor
    got in and the tournaments job seated the two at a table with a game (aborted then).
    A refused actor is put in regardless, as if they had joined before the ignore: the
    job's table then plays no game, so no table crosses an ignore either."""
    host, joiner = cast.users[other], cast.users[actor]
    pool = cast.services.pool
    spec = {"name": "Meet", "game": "boatzee", "format": "cup", "size": 2}
    tid = cast.write(lambda conn: tournament_create.create(conn, host, spec, now()))
    cast.write(lambda conn: tournament_entry.join(conn, host, tid, now()))
    joined = _attempt(
        lambda: cast.write(lambda conn: tournament_entry.join(conn, joiner, tid, now()))
    )
    if not joined:
        cast.write(
            lambda conn: conn.execute(
                insert(tournament_rows.PLAYERS).values(
                    tournament_id=tid, user_pk=joiner.id, joined_at=now(), status="active"
                )
            )
        )
    cast.write(lambda conn: tournament_job.step(conn, pool, tid, now(), Work()))
    table = cast.write(
        lambda conn: conn.execute(
            select(tournament_rows.TABLES).where(tournament_rows.TABLES.c.tournament_id == tid)
        ).one()
    )
    assert joined or table.game_id is None, "a table seated two players across an ignore"
    if table.game_id is not None:

        def call_off(conn: Connection, game_id: Any = table.game_id) -> None:
            record = fetch_game(conn, game_id, lock=True)
            ending.abort(conn, pool, host, record, record.version)

        cast.write(call_off)
    return joined and table.game_id is not None


def invite_to_watch(cast: Cast, actor: int, other: int) -> bool:
    player, guest = cast.users[actor], cast.users[other]
    pool = cast.services.pool
    record, _ = cast.write(
        lambda conn: seating.create_game(
            conn, pool, player, "boatzee", {}, ["me", "bot:random"], pace="none", private=True
        )
    )
    return _attempt(
        lambda: cast.write(lambda conn: watching.invite(conn, record.id, player, guest.user_id))
    )


def see_a_chat_line(cast: Cast, actor: int, other: int) -> bool:
    """The actor plays a public game against a bot and says something; the other watches."""
    player, spectator = cast.users[actor], cast.users[other]
    pool = cast.services.pool
    record, _ = cast.write(
        lambda conn: seating.create_game(
            conn, pool, player, "boatzee", {}, ["me", "bot:random"], pace="none"
        )
    )
    said = cast.write(lambda conn: chat.post(conn, player, record.id, "hello there"))
    shown = cast.write(lambda conn: chat.read(conn, spectator, record.id))
    return any(line["id"] == said["id"] for line in shown["lines"])


def accept_an_invite(cast: Cast, actor: int, other: int) -> bool:
    """The other makes a personal invite link to the site; the actor follows it. (No
    buddies are made, so later attempts of the example meet the same relations.)"""
    inviter, friend = cast.users[other], cast.users[actor]
    secret = site_secrets.site_secret(cast.services)
    made = cast.write(lambda conn: invites.create(conn, inviter))
    token = invites.token_of(secret, made.id, made.created)
    pool = cast.services.pool
    return _attempt(
        lambda: cast.write(
            lambda conn: invites.accept(conn, pool, secret, token, friend, make_buddies=False)
        )
    )


def _message(cast: Cast, actor: int, other: int, *, thread_exists: bool) -> bool:
    sender, recipient = cast.users[actor], cast.users[other]
    low, high = sorted((sender.id, recipient.id))
    pair = (messages.THREADS.c.low_pk == low) & (messages.THREADS.c.high_pk == high)
    cast.clock += timedelta(seconds=3)  # past the one-message-per-2-seconds limit
    at = cast.clock

    def send(conn: Connection) -> None:
        conn.execute(delete(messages.THREADS).where(pair))
        if thread_exists:
            conn.execute(
                insert(messages.THREADS).values(
                    low_pk=low, high_pk=high, created_by=recipient.id, created_at=at,
                    last_id=0, last_at=at, low_read=0, high_read=0, low_hidden=0,
                    high_hidden=0,
                )
            )  # fmt: skip
        messages.send(conn, sender.id, recipient.user_id, "hi", None, at)

    return _attempt(lambda: cast.write(send))


def start_a_thread(cast: Cast, actor: int, other: int) -> bool:
    return _message(cast, actor, other, thread_exists=False)


def reply_in_a_thread(cast: Cast, actor: int, other: int) -> bool:
    return _message(cast, actor, other, thread_exists=True)


#: Each meeting point, and whether the other's audience setting also decides it.
MEETINGS: dict[str, tuple[Callable[[Cast, int, int], bool], str | None]] = {
    "name_as_opponent": (name_as_opponent, "challenges_from"),
    "challenge_on_a_ladder": (challenge_on_a_ladder, "challenges_from"),
    "start_a_thread": (start_a_thread, "messages_from"),
    "reply_in_a_thread": (reply_in_a_thread, None),
    "join_open_seat": (join_open_seat, None),
    "auto_match": (auto_match, None),
    "join_a_tournament": (join_a_tournament, None),
    "invite_to_watch": (invite_to_watch, None),
    "see_a_chat_line": (see_a_chat_line, None),
    "accept_an_invite": (accept_an_invite, None),
}


def expected(world: World, meeting: str, actor: int, other: int) -> bool:
    if world.apart(actor, other):
        return False
    audience_field = MEETINGS[meeting][1]
    if audience_field is None:
        return True
    audience = getattr(world, audience_field)[other]
    return world.lets_in(audience, other, actor)


# -- the property ------------------------------------------------------------------------------


@pytest.fixture
def fresh_cast(services: Services) -> Iterator[Callable[[World], Cast]]:
    """New users for each example (so quotas never interfere), with the world's relations
    and settings stored."""

    def make(world: World) -> Cast:
        names = [f"p{next(_names)}" for _ in range(PEOPLE)]
        hashed = services.hasher.hash("correct horse battery")
        for name in names:
            add_user(services, name, hashed)
        with Session(services.engine) as db:
            users = [db.scalars(select(User).where(User.key == n)).one() for n in names]
            db.expunge_all()
        cast = Cast(services, users)

        def store(conn: Connection) -> None:
            conn.execute(delete(relations.RELATIONS))
            for (owner, target), kind in world.said.items():
                relations.put(conn, users[owner].id, users[target].id, kind, None)  # type: ignore[arg-type]
            for index, user in enumerate(users):
                user_settings.change(
                    conn,
                    user.id,
                    {
                        "messages_from": world.messages_from[index],
                        "challenges_from": world.challenges_from[index],
                    },
                )

        cast.write(store)
        return cast

    yield make


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    world=worlds,
    attempts=st.lists(
        st.tuples(st.sampled_from(sorted(MEETINGS)), st.sampled_from(pairs)),
        min_size=1,
        max_size=6,
    ),
)
def test_every_meeting_succeeds_exactly_when_no_ignore_or_setting_stands_between(
    fresh_cast: Callable[[World], Cast], world: World, attempts: list[tuple[str, tuple[int, int]]]
) -> None:
    cast = fresh_cast(world)
    for meeting, (actor, other) in attempts:
        met = MEETINGS[meeting][0](cast, actor, other)
        assert met == expected(world, meeting, actor, other), (meeting, actor, other, world)
        if world.apart(actor, other):
            assert not met
