"""How fast the people's endpoints answer with many users, over HTTP.

    python bench/people.py [--users 20000] [--db sqlite|postgresql] [--requests 300]

Starts ``dicehall serve`` (with PostgreSQL it uses the local Redis for presence), puts
``--users`` accounts straight into the database (their search terms are made at start, as
on an upgraded site), then times, as one signed-in client:

- user search by a random two- and three-letter prefix, and a misspelt name (the fuzzy
  fallback);
- Who is here while 1000 of them are online (each made online by one API request);
- sending a message (each from another sender to another user: a new thread), and listing
  my hundred threads;
- a profile with its head-to-head record.

Prints one JSON object: p50 and p99 latency in milliseconds per endpoint.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import string
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import httpx2
import psycopg
from sqlalchemy import Table, insert

from dicehall.server.core.clock import now
from dicehall.server.core.models import User
from dicehall.server.core.security import issue_api_token
from dicehall.server.domain.services import build_services

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' live server
from tests.live import LiveServer
from tests.server.conftest import site_settings

API = "/api/v1"
PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"
SYLLABLES = ["an", "bo", "ca", "de", "el", "fi", "go", "ha", "is", "jo", "ka", "li", "mo",
             "na", "or", "pe", "ri", "sa", "tu", "vi"]  # fmt: skip


def name(rng: random.Random, index: int) -> tuple[str, str]:
    """A user id and a two-word display name that look like people's."""
    first = "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 3)))
    last = "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 3)))
    return f"{first}{index}", f"{first.title()} {last.title()}"


def timed(call: Callable[[], httpx2.Response], times: int) -> dict[str, float]:
    spent: list[float] = []
    for _ in range(times):
        started = time.perf_counter()
        answer = call()
        spent.append(time.perf_counter() - started)
        answer.raise_for_status()
    ordered = sorted(spent)
    return {
        "p50_ms": round(1000 * statistics.median(ordered), 1),
        "p99_ms": round(1000 * ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))], 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--users", type=int, default=20000)
    parser.add_argument("--db", choices=["sqlite", "postgresql"], default="sqlite")
    parser.add_argument("--requests", type=int, default=300)
    args = parser.parse_args()
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as workdir:
        db_name = f"dicehall_bench_{uuid.uuid4().hex[:8]}"
        if args.db == "sqlite":
            url, redis = f"sqlite:///{workdir}/bench.sqlite3", None
        else:
            with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
                conn.execute(f'CREATE DATABASE "{db_name}"'.encode())
            url, redis = (
                f"postgresql://postgres@127.0.0.1:5432/{db_name}",
                "redis://127.0.0.1:6379/0",
            )
        services = build_services(site_settings(url))
        names = [name(rng, i) for i in range(args.users)]
        started = time.perf_counter()
        with services.write_conn() as conn:
            conn.execute(
                insert(cast(Table, User.__table__)),
                [
                    {"user_id": user_id, "key": user_id.lower(), "password_hash": "x",
                     "display_name": display, "about": "", "created_at": now(),
                     "settings": "{}", "vacation_seconds": 7 * 86400.0}
                    for user_id, display in names
                ],
            )  # fmt: skip
        tokens: list[dict[str, str]] = []
        with services.sessions() as db, db.begin():
            for user in db.query(User).order_by(User.id).limit(1000):
                secret, _ = issue_api_token(db, user, "bench")
                tokens.append({"Authorization": f"Bearer {secret}"})
        filled = time.perf_counter() - started
        server = LiveServer(url, redis_url=redis)
        try:
            started = time.perf_counter()
            server.start(timeout=300)  # makes the search terms of every user
            terms_made = time.perf_counter() - started
            me = tokens[0]
            with httpx2.Client(base_url=server.base, timeout=60) as client:
                for other in tokens:  # a thousand people online
                    client.get(f"{API}/notifications?limit=1", headers=other).raise_for_status()
                prefixes = [
                    "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.choice((2, 3))))
                    for _ in range(args.requests)
                ]
                report: dict[str, Any] = {"db": args.db, "users": args.users}
                report["fill_s"] = round(filled, 1)
                report["start_with_terms_s"] = round(terms_made, 1)
                queue = iter(prefixes * 2)
                report["search_prefix"] = timed(
                    lambda: client.get(f"{API}/users", params={"q": next(queue)}, headers=me),
                    args.requests,
                )
                misspelt = [names[rng.randrange(args.users)][1].split()[0][::-1] for _ in range(50)]
                fuzzy = iter(misspelt * 10)
                report["search_fuzzy"] = timed(
                    lambda: client.get(f"{API}/users", params={"q": next(fuzzy)}, headers=me),
                    min(args.requests, 100),
                )
                report["presence_1000_online"] = timed(
                    lambda: client.get(f"{API}/presence", headers=me), args.requests
                )
                senders = iter(tokens[1:])
                recipients = iter(user_id for user_id, _ in names[1000:])
                report["message_send"] = timed(
                    lambda: client.post(
                        f"{API}/messages/{next(recipients)}",
                        json={"body": "hi"},
                        headers=next(senders),
                    ),
                    min(args.requests, len(tokens) - 101),  # the last 100 write to me below
                )
                for sender in tokens[-100:]:  # a hundred threads of mine
                    client.post(
                        f"{API}/messages/{names[0][0]}", json={"body": "hello"}, headers=sender
                    ).raise_for_status()
                report["message_threads"] = timed(
                    lambda: client.get(f"{API}/messages", headers=me), args.requests
                )
                report["profile"] = timed(
                    lambda: client.get(f"{API}/users/{names[5][0]}", headers=me), args.requests
                )
            print(json.dumps(report))
        finally:
            server.stop()
            services.engine.dispose()
            if args.db == "postgresql":
                with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
                    conn.execute(f'DROP DATABASE IF EXISTS "{db_name}" WITH (FORCE)'.encode())


if __name__ == "__main__":
    main()
