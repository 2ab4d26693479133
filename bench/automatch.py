"""The matcher under load: 500 waiting tickets across the five games and table sizes.

    python bench/automatch.py [--tickets 500] [--seed 7] [--db sqlite|postgresql] [--runs 3]

Puts users (seeded random ratings, some ignores), a few open waiting-room games and the
tickets (random games, options, paces, seat ranges, waits up to 15 minutes, some with bots
after 5 minutes) straight into a fresh database, then times, in CPU seconds of this process
(``time.process_time``):

- ``grouping_cpu_s``: the pure plan (domain/automatch/grouping.py) of every queue, from the
  tickets as the matcher reads them;
- ``pass_cpu_s``: one whole pass of the matcher's job (``matcher.run``: the reads, open
  seats filled, then every table in a transaction of its own: its game created and
  started, its tickets marked, the notifications, the pushes);

and checks the outcome: every game within every member's range, nobody across an ignore,
no ticket in two games, nobody twice at a table, bot games unrated. Each run starts afresh
with the same tickets; prints one JSON object (CPU figures: the median of the runs, and the
pass's least and most).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from datetime import timedelta
from pathlib import Path
from typing import Any, cast

import psycopg
from sqlalchemy import Connection, Table, insert, select
from sqlalchemy.orm import configure_mappers

from dicehall.engine import codec
from dicehall.server.core.clock import now
from dicehall.server.core.models import Relation, User
from dicehall.server.domain.automatch import grouping, matcher
from dicehall.server.domain.automatch.records import TICKETS
from dicehall.server.domain.games import seating
from dicehall.server.domain.games.pace import parse_pace
from dicehall.server.domain.games.records import GAMES, SEATS, entry_of
from dicehall.server.domain.people import relations
from dicehall.server.domain.ratings import kinds
from dicehall.server.domain.ratings.store import RATINGS
from dicehall.server.domain.services import Services, build_services
from dicehall.server.domain.work import write

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' settings
from tests.server.conftest import site_settings

PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"
USERS = cast(Table, User.__table__)
RELATIONS = cast(Table, Relation.__table__)
#: Seat ranges by game, with their weights.
RANGES: dict[str, list[tuple[tuple[int, int], int]]] = {
    "boss": [((2, 2), 1)],
    "holdem": [((2, 2), 2), ((2, 4), 1), ((3, 6), 1)],
    "tenthousand": [((2, 2), 2), ((2, 4), 1), ((3, 4), 1), ((4, 8), 1)],
    "boatzee": [((2, 2), 2), ((2, 4), 1), ((3, 4), 1), ((4, 8), 1)],
    "bullseye": [((3, 3), 1), ((3, 5), 2), ((4, 8), 1)],
}


def weighted(rng: random.Random, choices: list[tuple[Any, int]]) -> Any:
    return rng.choices([c for c, _ in choices], weights=[w for _, w in choices])[0]


def populate(services: Services, rng: random.Random, count: int) -> tuple[Any, int]:
    """Users, ratings, ignores, open games and ``count`` waiting tickets; the moment the
    pass runs at, and how many open games were made."""
    at = now()
    people = count - count // 10  # a tenth of the tickets are players' second ones

    def fill(conn: Connection) -> None:
        conn.execute(
            insert(USERS),
            [
                {"user_id": f"m{i}", "key": f"m{i}", "password_hash": "-", "display_name": f"m{i}",
                 "about": "", "created_at": at}
                for i in range(people)
            ],
        )  # fmt: skip
        pks = list(conn.execute(select(USERS.c.id).order_by(USERS.c.id)).scalars())
        conn.execute(
            insert(RATINGS),
            [
                {"user_pk": pk, "kind": kind, "mu": 25 + rng.gauss(0, 250) / 40, "sigma": 3.0,
                 "games": 20, "last_game_at": at}
                for pk in pks for kind in kinds.names() if rng.random() < 0.8
            ],
        )  # fmt: skip
        ignores = {tuple(rng.sample(pks, 2)) for _ in range(people // 2)}
        conn.execute(
            insert(RELATIONS),
            [{"owner_pk": a, "target_pk": b, "kind": "ignore", "note": "", "created_at": at}
             for a, b in ignores],
        )  # fmt: skip
        rows = []
        owners = [(pk, rng.sample(sorted(RANGES), 2)) for pk in pks]
        for index in range(count):
            pk, games = owners[index % people]
            game = games[index // people]
            options = {"columns": 3} if game == "boatzee" and rng.random() < 0.2 else {}
            text = codec.dumps(entry_of(game).game.options(options))
            pace = parse_pace("daily" if rng.random() < 0.8 else "brisk")
            assert pace is not None
            low, high = weighted(rng, RANGES[game])
            rows.append(
                {"user_pk": pk, "game": game, "options": text, "seats_min": low,
                 "seats_max": high, "pace": pace.dumps(), "rated": rng.random() < 0.85,
                 "bots_after": 5 if rng.random() < 0.1 else None, "status": "waiting",
                 "game_id": None, "created_at": at - timedelta(seconds=rng.uniform(0, 900)),
                 "matched_at": None}
            )  # fmt: skip
        conn.execute(insert(TICKETS), rows)

    write(services, fill)
    return at, _open_games(services, rng)


def _open_games(services: Services, rng: random.Random) -> int:
    """Twenty waiting-room games of hosts with no ticket (some fit a ticket, some not)."""
    made = 0
    for index in range(20):
        name = f"host{index}"
        game = rng.choice(["tenthousand", "boatzee", "holdem"])
        seats = ["me"] + ["open"] * rng.randint(1, 2)

        def create(conn: Connection, name: str = name, game: str = game,
                   seats: list[str] = seats) -> None:  # fmt: skip
            conn.execute(
                insert(USERS).values(user_id=name, key=name, password_hash="-",
                                     display_name=name, about="", created_at=now())
            )  # fmt: skip
            host = conn.execute(select(USERS).where(USERS.c.key == name)).one()
            seating.create_game(conn, services.pool, host, game, {}, seats)  # type: ignore[arg-type]

        write(services, create)
        made += 1
    return made


def pure_grouping(services: Services, at: Any) -> tuple[float, int]:
    """CPU seconds of the plan alone, for every queue; how many tables it made."""
    with services.read_conn() as conn:
        rows = conn.execute(select(TICKETS).where(TICKETS.c.status == "waiting")).all()
        users = {r.user_pk for r in rows}
        apart = relations.apart_pairs(conn, users)
        recent = matcher.recent_pairs(conn, users, at)
        ratings = matcher._ratings(conn, users, set(kinds.names()))
    queues: dict[Any, list[grouping.Wanted]] = {}
    for r in rows:
        kind = matcher._kind(r.game, r.options) or ""
        queues.setdefault(matcher.key_of(r), []).append(
            grouping.Wanted(r.id, r.user_pk, r.seats_min, r.seats_max,
                            ratings.get((r.user_pk, kind), 1500.0), matcher._waited(r, at),
                            None if r.bots_after is None else r.bots_after * 60.0)
        )  # fmt: skip
    started = time.process_time()
    planned = [grouping.plan(wanted, apart, recent) for wanted in queues.values()]
    spent = time.process_time() - started
    for wanted, tables in zip(queues.values(), planned, strict=True):
        problems = grouping.valid(wanted, tables, apart)
        assert not problems, problems
    return spent, sum(len(t) for t in planned)


def check(services: Services) -> dict[str, Any]:
    """The pass's outcome, checked; its figures."""
    with services.read_conn() as conn:
        tickets = conn.execute(select(TICKETS)).all()
        matched = [t for t in tickets if t.status == "matched"]
        game_ids = {t.game_id for t in matched}
        games = {g.id: g for g in conn.execute(select(GAMES).where(GAMES.c.id.in_(game_ids)))}
        seats: dict[int, list[Any]] = {}
        for seat in conn.execute(select(SEATS).where(SEATS.c.game_id.in_(game_ids))):
            seats.setdefault(seat.game_id, []).append(seat)
        people = {u for s in seats.values() for x in s if (u := x.user_pk) is not None}
        apart = relations.apart_pairs(conn, people)
    for ticket in matched:
        game = games[ticket.game_id]
        assert ticket.seats_min <= game.seats <= ticket.seats_max, (ticket, game.seats)
        assert game.kind == ticket.game and game.options == ticket.options
    assert len({t.id for t in matched}) == len(matched)
    for game_id, sat in seats.items():
        users = [s.user_pk for s in sat if s.user_pk is not None]
        assert len(users) == len(set(users)), game_id
        assert not any(frozenset((a, b)) in apart for a in users for b in users if a != b)
        if any(s.bot for s in sat):
            assert games[game_id].rating_kind is None, game_id
    sizes = Counter(games[g].seats for g in game_ids)
    return {
        "matched": len(matched),
        "waiting": sum(1 for t in tickets if t.status == "waiting"),
        "games": len(game_ids),
        "games_with_bots": sum(1 for s in seats.values() if any(x.bot for x in s)),
        "table_sizes": {str(k): v for k, v in sorted(sizes.items())},
        "valid": True,
    }


def one_run(args: argparse.Namespace) -> dict[str, Any]:
    """A fresh database, the tickets, the pure plan and one pass, each timed; the outcome."""
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as folder:
        url, drop = f"sqlite:///{folder}/bench.sqlite3", None
        if args.db == "postgresql":
            name = f"dicehall_bench_{random.randrange(16**8):08x}"
            with psycopg.connect(PG_ADMIN, autocommit=True) as admin:
                admin.execute(f'CREATE DATABASE "{name}"'.encode())
            url, drop = f"postgresql://postgres@127.0.0.1:5432/{name}", name
        services = build_services(
            site_settings(url, dice_batch_size=5000, bag_batch_size=500, site_jobs=False)
        )
        try:
            at, open_games = populate(services, rng, args.tickets)
            grouping_cpu, planned = pure_grouping(services, at)
            configure_mappers()  # as a serving process has (its first request did it)
            started = time.process_time()
            changed = matcher.run(services, at)  # the job's pass: a transaction per table
            pass_cpu = time.process_time() - started
            outcome = check(services)
        finally:
            services.engine.dispose()
            if drop is not None:
                with psycopg.connect(PG_ADMIN, autocommit=True) as admin:
                    admin.execute(f'DROP DATABASE IF EXISTS "{drop}" WITH (FORCE)'.encode())
    return {
        "open_games": open_games,
        "tables_planned": planned,
        "games_changed": changed,
        "grouping_cpu_s": grouping_cpu,
        "pass_cpu_s": pass_cpu,
        **outcome,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tickets", type=int, default=500)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--db", choices=["sqlite", "postgresql"], default="sqlite")
    parser.add_argument("--runs", type=int, default=3, help="the same tickets, afresh")
    args = parser.parse_args()
    runs = [one_run(args) for _ in range(max(1, args.runs))]
    last = runs[-1]
    passes = sorted(r["pass_cpu_s"] for r in runs)
    plans = sorted(r["grouping_cpu_s"] for r in runs)
    print(
        json.dumps(
            {
                "tickets": args.tickets,
                "db": args.db,
                "runs": len(runs),
                **{k: v for k, v in last.items() if not k.endswith("_cpu_s")},
                "grouping_cpu_s": round(statistics.median(plans), 4),
                "pass_cpu_s": round(statistics.median(passes), 4),
                "pass_cpu_s_min": round(passes[0], 4),
                "pass_cpu_s_max": round(passes[-1], 4),
                "target_pass_cpu_s": 1.0,
            }
        )
    )


if __name__ == "__main__":
    main()
