"""Upgrades from every released schema: each database in tests/fixtures/upgrades/ was written
by an old release's own code (``make_fixtures.py``); it is upgraded to the head, on SQLite
and copied into PostgreSQL, then every game in it is played to its end through the site's
own move path (its people's moves chosen by the game's bots), and every finished game, old
or new, replays from its log and its proof verifies."""

from __future__ import annotations

import gzip
import json
import random
import shutil
import sqlite3
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import psycopg
import pytest
from alembic import command
from alembic.config import Config
from sqlalchemy import MetaData, create_engine, func, select, text

from dicehall import games
from dicehall.engine import codec
from dicehall.engine.game import ToAct
from dicehall.fairness.verify import verify_proof
from dicehall.server.core.models import User
from dicehall.server.domain.dice.fairness import check_batch, revealed_batch
from dicehall.server.domain.dice.pool import BATCHES, CURSOR, SETS
from dicehall.server.domain.dice.proofs import game_proof
from dicehall.server.domain.games.bot_turns import drive
from dicehall.server.domain.games.moving import Move, make_move
from dicehall.server.domain.games.records import EVENTS, GAMES, fetch_game, load_state, seats_of
from dicehall.server.domain.games.replay import replay
from dicehall.server.domain.integrity import check_all
from dicehall.server.domain.services import Services, build_services
from tests.server.conftest import PG_ADMIN, site_settings

#: The five games the site ships (a plugin game a test registered may be listed as well).
FIVE = {"boatzee", "boss", "bullseye", "holdem", "tenthousand"}

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "upgrades"
DATABASES = sorted(FIXTURES.glob("*.sqlite3.gz"))


def manifest(fixture: Path) -> dict[str, Any]:
    """What the fixture's maker wrote about it: commit, revision, each game."""
    about = FIXTURES / (fixture.name.removesuffix(".sqlite3.gz") + ".json")
    found: dict[str, Any] = json.loads(about.read_text())
    return found


def unpacked(fixture: Path, folder: Path) -> Path:
    """The fixture's database, unpacked into ``folder``."""
    copy = folder / fixture.name.removesuffix(".gz")
    with gzip.open(fixture, "rb") as packed, copy.open("wb") as raw:
        shutil.copyfileobj(packed, raw)
    return copy


def _alembic() -> Config:
    config = Config()
    location = resources.files("dicehall.server.core").joinpath("migrations")
    config.set_main_option("script_location", str(location))
    return config


def _into_postgresql(fixture: Path, revision: str) -> tuple[str, str]:
    """A new PostgreSQL database at the fixture's revision holding the fixture's rows; its
    URL and name."""
    name = f"dicehall_upgrade_{fixture.stem.replace('-', '_')}_{random.getrandbits(32):08x}"
    with psycopg.connect(PG_ADMIN, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"'.encode())
    url = f"postgresql://postgres@127.0.0.1:5432/{name}"
    engine = create_engine(url.replace("postgresql://", "postgresql+psycopg://"))
    config = _alembic()
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        command.upgrade(config, revision)
    source = create_engine(f"sqlite:///{fixture}")
    tables = MetaData()
    tables.reflect(engine)
    with source.connect() as old, engine.begin() as new:
        for table in tables.sorted_tables:
            if table.name == "alembic_version":
                continue
            rows = [dict(r._mapping) for r in old.execute(select(table))]
            if rows:
                new.execute(table.insert(), rows)
            if "id" in table.c and table.c.id.autoincrement is not False:
                serial = new.execute(
                    text("SELECT pg_get_serial_sequence(:t, 'id')"), {"t": table.name}
                ).scalar()
                if serial is not None and rows:
                    new.execute(
                        text(f"SELECT setval('{serial}', (SELECT MAX(id) FROM {table.name}))")
                    )
    source.dispose()
    engine.dispose()
    return url, name


#: Every fixture on SQLite; the oldest also copied into PostgreSQL (a later one adds little
#: there but time: its schema is the one every other PostgreSQL test runs on).
UPGRADES = [(f, "sqlite") for f in DATABASES] + [
    (f, "postgresql") for f in DATABASES if manifest(f)["commit"] == "11f1f13"
]


@pytest.fixture(params=UPGRADES, ids=lambda p: f"{p[0].name}-{p[1]}")
def upgraded(
    request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[tuple[Services, dict[str, Any]]]:
    """The site's services on a copy of a fixture, upgraded to the head."""
    fixture, database = request.param
    about = manifest(fixture)
    dropped: str | None = None
    copy = unpacked(fixture, tmp_path)
    if database == "sqlite":
        url = f"sqlite:///{copy}"
    else:
        if not request.getfixturevalue("postgres_ok"):
            pytest.skip("PostgreSQL is not running here")
        url, dropped = _into_postgresql(copy, about["revision"])
    services = build_services(site_settings(url))  # migrates to the head
    try:
        yield services, about
    finally:
        services.engine.dispose()
        if dropped is not None:
            with psycopg.connect(PG_ADMIN, autocommit=True) as admin:
                admin.execute(f'DROP DATABASE IF EXISTS "{dropped}" WITH (FORCE)'.encode())


def _bot_move(kind: str, state: Any, seat: int, rng: random.Random) -> Any:
    """A person's move, as the game's autopilot would make it."""
    entry = games.get(kind)
    game = entry.game
    legal = list(game.legal(state, seat))
    bot = entry.bot(entry.autopilot_bot(), rng)
    return bot.choose(game.view(state, seat), legal)


def finish(services: Services, game_id: int, rng: random.Random) -> None:
    """Play game ``game_id`` to its end: people's moves through ``make_move``, the bots' and
    the dice through the bot driver's own slices."""
    for _ in range(3000):
        with services.read_conn() as conn:
            record = fetch_game(conn, game_id)
            seats = seats_of(conn, game_id)
        if record.status != "active":
            return
        entry = games.get(record.kind)
        state = load_state(record)
        turn = entry.game.turn(state)
        if record.bot_due:
            decided = None
            if isinstance(turn, ToAct):
                bot = seats[turn.seat].acting_bot(entry)
                if bot in entry.slow_bots:
                    view = entry.game.view(state, turn.seat)
                    legal = list(entry.game.legal(state, turn.seat))
                    decided = (turn.seat, entry.bot(str(bot), rng).choose(view, legal))
            with services.write_conn() as conn:
                drive(conn, services.pool, game_id, record.version, decided)
            continue
        assert isinstance(turn, ToAct), (game_id, turn)
        seat = seats[turn.seat]
        assert seat.user_pk is not None
        with services.sessions() as db:
            user = db.get(User, seat.user_pk)
            assert user is not None
            db.expunge(user)
        action = codec.encode(_bot_move(record.kind, state, turn.seat, rng))
        make_move(services, user, Move(game_id, action, record.version))
    raise AssertionError(f"game {game_id} did not end")


def test_every_old_game_finishes_replays_and_verifies(
    upgraded: tuple[Services, dict[str, Any]],
) -> None:
    services, about = upgraded
    rng = random.Random(37)
    with services.read_conn() as conn:
        before = {r.id: r.status for r in conn.execute(select(GAMES.c.id, GAMES.c.status)).all()}
    assert {int(k) for k in about["games"]} <= set(before)
    assert "active" in before.values()
    for game_id, status in sorted(before.items()):
        if status == "active":
            finish(services, game_id, rng)
    with services.read_conn() as conn:
        statuses = dict(conn.execute(select(GAMES.c.id, GAMES.c.status)).all())
        assert set(statuses.values()) == {"finished"}, statuses
        report = check_all(conn)
        assert report.discrepancies == (), report.discrepancies
        for game_id in sorted(statuses):
            frames = replay(conn, game_id, None)["frames"]
            assert frames
            proof = game_proof(conn, game_id, None)
            verified = verify_proof(json.loads(json.dumps(proof)))
            assert verified.ok, (game_id, about["games"].get(str(game_id)), verified)
    # Every old batch is revealed once its games are over, and checks whole: the sets its
    # tables never saw (folded pockets) are shown, since its one hash covers them.
    with services.write_conn() as conn:
        services.pool.reveal_ready(conn)
    unseen = 0
    with services.sessions() as db:
        old = db.execute(select(BATCHES.c.id).where(BATCHES.c.scheme == 1)).scalars().all()
        for batch_id in old:
            found = revealed_batch(db, batch_id)
            assert found is not None, batch_id
            check = check_batch(found)
            assert check.ok, check.summary()
            unseen += check.unseen
    assert bool(old and unseen) is (about["revision"] < "0007")


def test_old_bullseye_games_keep_the_rules_they_were_played_under(
    upgraded: tuple[Services, dict[str, Any]],
) -> None:
    services, about = upgraded
    lead_bet = [int(k) for k, v in about["games"].items() if "(the lead bet)" in v]
    assert lead_bet or about["revision"] != "0001"  # only 11f1f13 let the lead bet
    with services.read_conn() as conn:
        rows = conn.execute(
            select(GAMES.c.id, GAMES.c.kind, GAMES.c.rules, GAMES.c.options, GAMES.c.snapshot)
        ).all()
    for row in rows:
        options = json.loads(row.options)
        if row.kind != "bullseye":
            assert row.rules == 1
            continue
        assert row.rules in (1, 2)
        old = row.rules == 1
        state = json.loads(row.snapshot)
        for stored in (options, state["options"]):
            assert stored.get("lead_bets", False) is old
            assert stored.get("last_pot_shared", True) is not old
        if row.id in lead_bet:
            assert row.rules == 1
    with services.read_conn() as conn:
        finished = [i for i in lead_bet if fetch_game(conn, i).status == "finished"]
        assert finished or not lead_bet
        for game_id in finished:
            log = replay(conn, game_id, None)
            assert log["result"] is not None


def _unserved_old_sets(conn: Any) -> list[int]:
    return list(
        conn.execute(
            select(SETS.c.id)
            .join(BATCHES, BATCHES.c.id == SETS.c.batch_id)
            .where(BATCHES.c.scheme == 1, SETS.c.game_id.is_(None))
            .order_by(SETS.c.id)
        ).scalars()
    )


def test_old_unserved_sets_are_retired_and_new_rolls_get_merkle_sets(
    upgraded: tuple[Services, dict[str, Any]],
) -> None:
    services, about = upgraded
    with services.read_conn() as conn:
        old_end = conn.execute(
            select(func.max(BATCHES.c.first_set + BATCHES.c.size)).where(BATCHES.c.scheme == 1)
        ).scalar()
        if about["revision"] >= "0007":  # made with Merkle-committed sets only
            assert old_end is None
            return
        cursor = conn.execute(select(CURSOR.c.next_set)).scalar_one()
        unserved = _unserved_old_sets(conn)
        active = [
            (int(r.id), int(r.event_count))
            for r in conn.execute(
                select(GAMES.c.id, GAMES.c.event_count).where(GAMES.c.status == "active")
            )
        ]
    assert unserved and cursor >= old_end  # old sets were left, and the cursor is past them
    active = active[:2]
    for game_id, _ in active:
        finish(services, game_id, random.Random(5))
    with services.read_conn() as conn:
        assert _unserved_old_sets(conn) == unserved
        for game_id, count in active:
            used = conn.execute(
                select(BATCHES.c.scheme)
                .join(SETS, SETS.c.batch_id == BATCHES.c.id)
                .join(EVENTS, EVENTS.c.dice_set == SETS.c.id)
                .where(EVENTS.c.game_id == game_id, EVENTS.c.seq >= count)
            ).scalars()
            assert set(used) <= {2}


def test_every_fixture_is_small_and_described(tmp_path: Path) -> None:
    assert DATABASES, "no upgrade fixture in tests/fixtures/upgrades"
    commits = set()
    for fixture in DATABASES:
        assert fixture.stat().st_size < 512 * 1024
        about = manifest(fixture)
        commits.add(about["commit"])
        with sqlite3.connect(unpacked(fixture, tmp_path)) as db:
            revision = db.execute("SELECT version_num FROM alembic_version").fetchone()[0]
            kinds = {k for (k,) in db.execute("SELECT kind FROM games WHERE status = 'active'")}
        assert revision == about["revision"]
        assert kinds == FIVE, (fixture.name, kinds)  # a plugin game of a test may be registered too
    assert "11f1f13" in commits
