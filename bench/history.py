"""A player's history pages with 48 finished games and with 100,000 on the site, interleaved;
prints one JSON object.

(Longer than most modules: building two sites of real games copied a hundred thousand times,
on two databases, and measuring them interleaved only make sense read together.)

    python bench/history.py [--db sqlite|postgresql|both] [--games 100000] [--small 48]
                            [--players 16] [--crowd 2000] [--requests 200] [--rounds 3]
                            [--warmup 20]

Issue 34 ("Pages flat in history size"): the pages about one player must cost the same
whatever the size of the player's history. For each backend two sites are built, each a
database of its own (a new PostgreSQL database, dropped at the end; a SQLite file in a
temporary folder):

- ``small``: ``--small`` finished games of the measured player (``p00``, against the other
  players in turn);
- ``large``: ``--games`` finished games, each between two of ``--players`` players (``p00``
  to ``p15``), every pair of players equally often, so that each player, the measured one
  included, has ``games * 2 / players`` of them (12,500 at the defaults).

Both sites also hold the same crowd: ``--crowd`` more users (``c0000``...) with one
finished game each, two by two (1,000 games at the default 2,000), spread in time among the
others. A real site has many players with short histories beside the few with long ones,
and its planners' statistics say so: with 16 players alone, SQLite's ANALYZE tells its
planner that every player has 12,500 seats, and it plans the profile's current games
(``people/profile.py`` ``current_games``) by the games' status index, which it would not
do on a real site (``--crowd 0`` builds the 16 players' site alone).

The games are copies of real ones. On each backend, the small site's database first gets
three template users who play one 2-person game of each of Ten Thousand, Boss Dice and
Boatzee through the site's API (in-process ``TestClient``: create with ``pace: none``,
accept, up to 40 random legal moves, then the second seat resigns if the game has not
finished by itself), so every row a finished game leaves is the site's own; both sites of
the backend are then filled with copies of those same rows (so the luck replays and the
summaries cost the same per game on both), with new ids, in time order over the past year
(the ids growing with the end time, as on a site), in chunks of ``CHUNK`` games, one
transaction and one SQLAlchemy ``insert()`` (executemany) per table per chunk: ``games``
(snapshot, result, options, clock as played), ``game_seats``, ``seat_results`` (and the
counts in ``seat_records`` made from them),
``rating_changes`` and ``turn_times`` for every game; ``game_events`` for each player's
newest ``EVENT_GAMES`` games only (the profile's luck replays the newest 20; every game's
log would be some 6 million rows that these pages never read). The copies take the kinds
in a fixed pattern (``PATTERN``: 60 % Ten Thousand, 20 % each of the others, in any run of
a player's games on either site; the crowd's games by the same turns), and which of the
two players sits where is drawn, so about half of a player's games are wins. Each player
then gets one ``ratings`` row per kind counting their games. The small site keeps the
template users' three games (the measured player is in none of them). After seeding:
``ANALYZE`` on SQLite, ``VACUUM ANALYZE`` on PostgreSQL (the statistics and visibility map
a real site's autovacuum would keep). Neither site has a game in progress. ``seed_s`` is
the seeding of the large site (its copies, ratings and sequences; ``analyze_s`` apart),
``seed_small_s`` the small site's (its templates' play included).

Measured on the real stack: each site is served by ``dicehall serve``
(``tests.live.LiveServer``, one uvicorn worker on loopback, no Redis), both at once, and one
httpx client per site sends one request at a time. Each endpoint (all anonymous):

- ``history``: ``GET /api/v1/users/p00/games`` (first page, 20 games);
- ``history_loss``: ``GET /api/v1/users/p00/games?result=loss``;
- ``record``: ``GET /api/v1/users/p00/record``;
- ``profile_page``: ``GET /users/p00`` (HTML: reliability, ratings with their charts, luck
  of the 20 newest games, current games);
- ``history_page``: ``GET /users/p00/games`` (HTML: the first page and the record).

After ``--warmup`` unmeasured requests per endpoint and site, ``--rounds`` rounds each send,
per endpoint, ``--requests`` requests to each site, alternating small and large (which goes
first swaps every pair and every round). A request's latency is its wall time in the client
(sent to body read). Per endpoint and backend: ``small_p50_ms``, ``small_p90_ms``,
``large_p50_ms``, ``large_p90_ms`` over all rounds; ``ratio`` = large p50 / small p50,
``target`` (1.5) and ``met`` (ratio <= target); ``per_round_ratios`` the same ratio in each
round, to show the spread. ``all_met``: every endpoint met on every backend measured.

``extra`` (not in ``all_met``; the same figures) times two more pages about the player:
``profile_api`` (``GET /api/v1/users/p00``, anonymous) and ``profile_api_member`` (the
same, asked by ``p01`` with an API token: it adds the head-to-head record of ``p01``
against ``p00``). ``sizes`` gives, per site, the measured player's finished games as the
record counts them, and the rows of the tables copied.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import shutil
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, cast

import httpx2
import psycopg
from fastapi.testclient import TestClient
from sqlalchemy import Connection, Table, func, insert, select, text

from dicehall.server.app import create_app
from dicehall.server.core.clock import aware, now
from dicehall.server.core.models import (
    EventRow,
    GameRow,
    Rating,
    RatingChange,
    SeatResult,
    SeatRow,
    TurnTime,
    User,
)
from dicehall.server.core.security import issue_api_token
from dicehall.server.domain.games import quotas
from dicehall.server.domain.services import Services, build_services

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' live server
from tests.live import LiveServer, add_user
from tests.server.conftest import site_settings
from tests.server.resigning import resign
from tests.sqlite_template import migrated_sqlite

API = "/api/v1"
PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"
TARGET = 1.5
#: The player whose pages are measured, and the member who asks for the head-to-head.
MEASURED, MEMBER = "p00", "p01"
#: The template games' kinds in the order the copies take them, game after game (the same
#: mix, 60 % Ten Thousand, in any run of a player's games on either site).
PATTERN = ("tenthousand", "boss", "tenthousand", "boatzee", "tenthousand")
KINDS = tuple(dict.fromkeys(PATTERN))
#: The most random legal moves a template game gets before its second seat resigns.
MOVES = 40
#: Games copied per transaction.
CHUNK = 2000
#: Each player's newest games keep their event log (the profile's luck replays the newest 20).
EVENT_GAMES = 100
#: The copies end over this span, up to an hour ago.
SPAN = timedelta(days=365)

GAMES = cast(Table, GameRow.__table__)
SEATS = cast(Table, SeatRow.__table__)
RESULTS = cast(Table, SeatResult.__table__)
EVENTS = cast(Table, EventRow.__table__)
CHANGES = cast(Table, RatingChange.__table__)
TURNS = cast(Table, TurnTime.__table__)
RATINGS = cast(Table, Rating.__table__)
USERS = cast(Table, User.__table__)
#: The tables with an id of their own that copies set, for PostgreSQL's sequences.
WITH_IDS = (GAMES, SEATS, CHANGES, TURNS)

ENDPOINTS = {
    "history": f"{API}/users/{MEASURED}/games",
    "history_loss": f"{API}/users/{MEASURED}/games?result=loss",
    "record": f"{API}/users/{MEASURED}/record",
    "profile_page": f"/users/{MEASURED}",
    "history_page": f"/users/{MEASURED}/games",
}
#: Timed as well, not counted in ``all_met``; ``True``: asked by the member.
EXTRA = {
    "profile_api": (f"{API}/users/{MEASURED}", False),
    "profile_api_member": (f"{API}/users/{MEASURED}", True),
}


def say(line: str) -> None:
    """Progress, on stderr."""
    print(f"[history] {line}", file=sys.stderr, flush=True)


# -- databases -----------------------------------------------------------------------------------


@dataclass
class Database:
    """A site's database, made for the run, and how to drop it."""

    url: str
    drop: Callable[[], None]


def _admin(statement: str) -> None:
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(statement.encode())


def new_database(backend: str, folder: Path, label: str) -> Database:
    """A new, migrated database (SQLite in ``folder``, or on the local PostgreSQL)."""
    if backend == "sqlite":
        return Database(migrated_sqlite(folder / f"{label}.sqlite3"), lambda: None)
    name = f"dicehall_bench_history_{label}_{uuid.uuid4().hex[:8]}"
    _admin(f'CREATE DATABASE "{name}"')
    return Database(
        f"postgresql://postgres@127.0.0.1:5432/{name}",
        lambda: _admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'),
    )


# -- the template games ----------------------------------------------------------------------------


@dataclass
class Template:
    """The rows one real finished game left, by table; ``seat_of`` maps its users to seats."""

    kind: str
    game: dict[str, Any]
    seats: list[dict[str, Any]]
    results: list[dict[str, Any]]
    events: list[dict[str, Any]]
    changes: list[dict[str, Any]]
    turns: list[dict[str, Any]]
    seat_of: dict[int, int] = field(default_factory=dict)


def _rows(conn: Connection, table: Table, game_id: int) -> list[dict[str, Any]]:
    order = [table.c[name] for name in ("seat", "seq", "id") if name in table.c][:1]
    found = conn.execute(select(table).where(table.c.game_id == game_id).order_by(*order))
    return [dict(row._mapping) for row in found]


def play_templates(services: Services, rng: random.Random) -> list[Template]:
    """One real 2-person game of each of :data:`KINDS`, played through the API; their rows."""
    first = add_user(services, "template_a")
    second = add_user(services, "template_b")
    heads = [first, second]
    played: dict[str, int] = {}
    creates = quotas.CREATES_PER_MINUTE
    quotas.CREATES_PER_MINUTE = 10_000
    try:
        with TestClient(create_app(services=services)) as client:
            for kind in KINDS:
                made = client.post(
                    f"{API}/games",
                    json={"game": kind, "seats": ["me", "template_b"], "pace": "none"},
                    headers=first,
                )
                made.raise_for_status()
                game_id = made.json()["id"]
                client.post(f"{API}/games/{game_id}/accept", headers=second).raise_for_status()
                for _ in range(MOVES):
                    game = client.get(f"{API}/games/{game_id}", headers=first).json()
                    if game["status"] != "active" or game["to_act"] is None:
                        break
                    mine = client.get(f"{API}/games/{game_id}", headers=heads[game["to_act"]])
                    seen = mine.json()
                    action = rng.choice(seen["legal"])
                    client.post(
                        f"{API}/games/{game_id}/actions",
                        json={"action": action, "expected_version": seen["version"]},
                        headers=heads[game["to_act"]],
                    )
                game = client.get(f"{API}/games/{game_id}", headers=first).json()
                if game["status"] == "active":
                    game = resign(client, second, game_id)
                if game["status"] != "finished":
                    raise RuntimeError(f"the template game of {kind} did not finish: {game}")
                played[kind] = game_id
    finally:
        quotas.CREATES_PER_MINUTE = creates
    templates = []
    with services.engine.connect() as conn:
        for kind, game_id in played.items():
            game = dict(conn.execute(select(GAMES).where(GAMES.c.id == game_id)).one()._mapping)
            seats = _rows(conn, SEATS, game_id)
            templates.append(
                Template(
                    kind,
                    game,
                    seats,
                    _rows(conn, RESULTS, game_id),
                    _rows(conn, EVENTS, game_id),
                    _rows(conn, CHANGES, game_id),
                    _rows(conn, TURNS, game_id),
                    {row["user_pk"]: row["seat"] for row in seats},
                )
            )
    return templates


# -- seeding ---------------------------------------------------------------------------------------


def player_names(players: int, crowd: int) -> list[str]:
    """The players ``p00``... and then the crowd ``c0000``..."""
    return [f"p{index:02d}" for index in range(players)] + [f"c{i:04d}" for i in range(crowd)]


def add_players(services: Services, names: list[str]) -> list[int]:
    """The players straight into the database; their primary keys."""
    with services.engine.begin() as conn:
        conn.execute(
            insert(USERS),
            [
                {"user_id": name, "key": name, "password_hash": "x", "display_name": name,
                 "about": "", "created_at": now() - SPAN - timedelta(days=1), "settings": "{}",
                 "vacation_seconds": 7 * 86400.0}
                for name in names
            ],
        )  # fmt: skip
        found = {
            row.user_id: row.id
            for row in conn.execute(
                select(USERS.c.user_id, USERS.c.id).where(USERS.c.user_id.in_(names))
            )
        }
    return [found[name] for name in names]


def pairs_large(players: int, games: int) -> list[tuple[int, int]]:
    """Every pair of players in turn: each player gets ``games * 2 / players`` games."""
    every = list(itertools.combinations(range(players), 2))
    return [every[index % len(every)] for index in range(games)]


def pairs_small(players: int, games: int) -> list[tuple[int, int]]:
    """The measured player (0) against each other player in turn."""
    return [(0, 1 + index % (players - 1)) for index in range(games)]


Schedule = list[tuple[tuple[int, int], str]]


def schedule(pairs: list[tuple[int, int]], players: int, crowd: int) -> Schedule:
    """The games in the order they end, each a pair of players (by index) and a kind: the
    ``pairs`` (the kinds taking turns as :data:`PATTERN` says), and the crowd's games (the
    crowd's players ``players``... two by two) spread evenly among them."""
    main = [(pair, PATTERN[index % len(PATTERN)]) for index, pair in enumerate(pairs)]
    games = crowd // 2
    extra = [
        ((players + 2 * index, players + 2 * index + 1), PATTERN[index % len(PATTERN)])
        for index in range(games)
    ]
    keyed = [((index + 0.5) / len(main), game) for index, game in enumerate(main)]
    keyed += [((index + 0.25) / games, game) for index, game in enumerate(extra)]
    return [game for _, game in sorted(keyed, key=lambda pair: pair[0])]


def _with_events(pairs: list[tuple[int, int]]) -> set[int]:
    """The games (by index, oldest first) among either player's newest :data:`EVENT_GAMES`."""
    newest: dict[int, int] = {}
    kept = set()
    for index in range(len(pairs) - 1, -1, -1):
        for player in pairs[index]:
            newest[player] = newest.get(player, 0) + 1
            if newest[player] <= EVENT_GAMES:
                kept.add(index)
    return kept


def _next_ids(conn: Connection) -> dict[str, int]:
    return {
        table.name: int(conn.execute(select(func.coalesce(func.max(table.c.id), 0))).scalar_one())
        + 1
        for table in WITH_IDS
    }


def _copy(
    template: Template,
    users: list[int],
    game_id: int,
    ended: datetime,
    ids: dict[str, int],
    rows: dict[str, list[dict[str, Any]]],
    events: bool,
) -> None:
    """The rows of one copy of ``template``, its seat ``s`` held by ``users[s]``, added to
    ``rows`` by table; ``ids`` advanced."""
    shift = ended - aware(template.game["ended_at"])

    def user(template_pk: int) -> int:
        return users[template.seat_of[template_pk]]

    def moved(at: datetime) -> datetime:
        return aware(at) + shift

    rows["games"].append(
        {
            **template.game,
            "id": game_id,
            "created_by": user(template.game["created_by"]),
            "created_at": moved(template.game["created_at"]),
            "updated_at": moved(template.game["updated_at"]),
            "ended_at": ended,
        }
    )
    for seat in template.seats:
        rows["game_seats"].append(
            {**seat, "id": ids["game_seats"], "game_id": game_id, "user_pk": user(seat["user_pk"])}
        )
        ids["game_seats"] += 1
    for result in template.results:
        rows["seat_results"].append(
            {**result, "game_id": game_id, "user_pk": user(result["user_pk"]), "ended_at": ended}
        )
    for change in template.changes:
        rows["rating_changes"].append(
            {**change, "id": ids["rating_changes"], "game_id": game_id,
             "user_pk": user(change["user_pk"]), "at": ended}
        )  # fmt: skip
        ids["rating_changes"] += 1
    for turn in template.turns:
        rows["turn_times"].append(
            {**turn, "id": ids["turn_times"], "game_id": game_id,
             "user_pk": user(turn["user_pk"]), "at": moved(turn["at"])}
        )  # fmt: skip
        ids["turn_times"] += 1
    if events:
        rows["game_events"] += [
            {**event, "game_id": game_id, "created_at": moved(event["created_at"])}
            for event in template.events
        ]


def _chunks(count: int) -> Iterator[range]:
    for start in range(0, count, CHUNK):
        yield range(start, min(count, start + CHUNK))


def seed(
    services: Services,
    templates: list[Template],
    players: list[int],
    games: Schedule,
    rng: random.Random,
) -> None:
    """One finished copy of a template per game of the schedule (oldest first), and each
    player's ratings."""
    tables = {
        table.name: table for table in (GAMES, SEATS, RESULTS, CHANGES, TURNS, EVENTS)
    }  # in the order their foreign keys need
    pairs = [pair for pair, _ in games]
    evented = _with_events(pairs)
    by_kind = {template.kind: template for template in templates}
    start, step = now() - SPAN - timedelta(hours=1), SPAN / max(1, len(pairs))
    with services.engine.connect() as conn:
        ids = _next_ids(conn)
    counts: dict[tuple[int, str], tuple[int, datetime]] = {}
    for chunk in _chunks(len(pairs)):
        rows: dict[str, list[dict[str, Any]]] = {name: [] for name in tables}
        for index in chunk:
            template = by_kind[games[index][1]]
            pair = list(pairs[index])
            rng.shuffle(pair)
            seated = [players[player] for player in pair]
            ended = start + step * (index + rng.random())
            _copy(template, seated, ids["games"], ended, ids, rows, index in evented)
            ids["games"] += 1
            for pk in seated:
                played, _ = counts.get((pk, template.kind), (0, ended))
                counts[(pk, template.kind)] = (played + 1, ended)
        with services.engine.begin() as conn:
            for name, table in tables.items():
                if rows[name]:
                    conn.execute(insert(table), rows[name])
    with services.engine.begin() as conn:
        conn.execute(
            insert(RATINGS),
            [
                {"user_pk": pk, "kind": kind, "mu": 25.0 + rng.uniform(-5, 5), "sigma": 1.5,
                 "games": played, "last_game_at": last}
                for (pk, kind), (played, last) in counts.items()
            ],
        )  # fmt: skip
        # Each person's counts, as the site keeps them beside seat_results (its migration's
        # own fill, over every row copied).
        conn.execute(text("DELETE FROM seat_records"))
        conn.execute(
            text(
                "INSERT INTO seat_records (user_pk, kind, outcome, private, games) "
                "SELECT user_pk, kind, coalesce(outcome, 'none'), private, count(*) "
                "FROM seat_results GROUP BY user_pk, kind, coalesce(outcome, 'none'), private"
            )
        )
        if conn.dialect.name == "postgresql":
            for table in WITH_IDS:
                conn.execute(
                    text(
                        f"SELECT setval(pg_get_serial_sequence('{table.name}', 'id'), "
                        f"(SELECT max(id) FROM {table.name}))"
                    )
                )


def analyze(services: Services) -> None:
    """The statistics a real site would have: ANALYZE (SQLite), VACUUM ANALYZE (PostgreSQL)."""
    url = services.engine.url
    if url.get_backend_name() == "sqlite":
        with services.engine.begin() as conn:
            conn.execute(text("ANALYZE"))
        return
    with psycopg.connect(url.set(drivername="postgresql").render_as_string(False)) as pg:
        pg.autocommit = True
        pg.execute(b"VACUUM ANALYZE")


def table_rows(services: Services) -> dict[str, int]:
    """Rows per copied table."""
    with services.engine.connect() as conn:
        return {
            table.name: int(conn.execute(select(func.count()).select_from(table)).scalar_one())
            for table in (GAMES, SEATS, RESULTS, EVENTS, CHANGES, TURNS)
        }


@dataclass
class Site:
    """One built site: its database, how long it took, what it holds, the member's token."""

    label: str
    database: Database
    seed_s: float = 0.0
    analyze_s: float = 0.0
    rows: dict[str, int] = field(default_factory=dict)
    member: dict[str, str] = field(default_factory=dict)
    templates: list[Template] = field(default_factory=list)


def build_site(
    backend: str,
    folder: Path,
    label: str,
    games: int,
    players: int,
    crowd: int,
    rng: random.Random,
    templates: list[Template] | None = None,
) -> Site:
    """A site with its copies seeded and its statistics made: copies of ``templates``, or of
    template games played on it first."""
    site = Site(label, new_database(backend, folder, label))
    started = time.perf_counter()
    try:
        services = build_services(site_settings(site.database.url))
    except BaseException:
        site.database.drop()
        raise
    try:
        site.templates = templates or play_templates(services, rng)
        pks = add_players(services, player_names(players, crowd))
        pairs = (pairs_large if label == "large" else pairs_small)(players, games)
        seed(services, site.templates, pks, schedule(pairs, players, crowd), rng)
        site.seed_s = time.perf_counter() - started
        started = time.perf_counter()
        analyze(services)
        site.analyze_s = time.perf_counter() - started
        site.rows = table_rows(services)
        with services.sessions() as db, db.begin():
            member = db.scalars(select(User).where(User.key == MEMBER)).one()
            secret, _ = issue_api_token(db, member, "bench")
        site.member = {"Authorization": f"Bearer {secret}"}
    except BaseException:
        services.engine.dispose()
        site.database.drop()
        raise
    services.engine.dispose()
    say(
        f"{backend} {label}: {games} games seeded in {site.seed_s:.1f} s, "
        f"analyzed in {site.analyze_s:.1f} s; {site.rows}"
    )
    return site


# -- measuring -------------------------------------------------------------------------------------


def percentile(values: list[float], share: float) -> float:
    """The value ``share`` of the way up the sorted values (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def ms(seconds: float) -> float:
    return round(1000 * seconds, 2)


@dataclass
class Timings:
    """Latencies (seconds) per endpoint, site and round."""

    spent: dict[str, dict[str, list[list[float]]]] = field(default_factory=dict)

    def add(self, endpoint: str, label: str, round_: int, seconds: float) -> None:
        rounds = self.spent.setdefault(endpoint, {}).setdefault(label, [])
        while len(rounds) <= round_:
            rounds.append([])
        rounds[round_].append(seconds)

    def summary(self, endpoint: str) -> dict[str, Any]:
        small, large = self.spent[endpoint]["small"], self.spent[endpoint]["large"]
        every_small = [s for one in small for s in one]
        every_large = [s for one in large for s in one]
        ratio = statistics.median(every_large) / statistics.median(every_small)
        return {
            "small_p50_ms": ms(statistics.median(every_small)),
            "small_p90_ms": ms(percentile(every_small, 0.9)),
            "large_p50_ms": ms(statistics.median(every_large)),
            "large_p90_ms": ms(percentile(every_large, 0.9)),
            "ratio": round(ratio, 3),
            "per_round_ratios": [
                round(statistics.median(b) / statistics.median(a), 3)
                for a, b in zip(small, large, strict=True)
            ],
            "target": TARGET,
            "met": ratio <= TARGET,
        }


def _get(client: httpx2.Client, path: str, headers: dict[str, str]) -> float:
    started = time.perf_counter()
    answer = client.get(path, headers=headers)
    spent = time.perf_counter() - started
    answer.raise_for_status()
    return spent


def player_games(client: httpx2.Client) -> int:
    """The measured player's finished games, as their record counts them; checks that the
    first history page is full."""
    page = client.get(ENDPOINTS["history"]).raise_for_status().json()
    if len(page["games"]) != 20 or page["next"] is None:
        raise RuntimeError(f"the first history page is not full: {len(page['games'])} games")
    record = client.get(ENDPOINTS["record"]).raise_for_status().json()
    return sum(sum(counts.values()) for counts in record["games"].values())


def measure(sites: dict[str, Site], args: argparse.Namespace) -> tuple[Timings, dict[str, int]]:
    """Both sites served at once, every endpoint timed small against large, interleaved."""
    servers = {label: LiveServer(site.database.url) for label, site in sites.items()}
    try:
        for server in servers.values():
            server.launch(forked=True)
        for server in servers.values():
            server.wait_ready(timeout=300)
        clients = {
            label: httpx2.Client(base_url=server.base, timeout=120)
            for label, server in servers.items()
        }
        paths = {name: (path, False) for name, path in ENDPOINTS.items()} | EXTRA
        heads = {
            label: {name: sites[label].member if asks else {} for name, (_, asks) in paths.items()}
            for label in sites
        }
        games = {label: player_games(client) for label, client in clients.items()}
        for name, (path, _) in paths.items():
            for _ in range(args.warmup):
                for label, client in clients.items():
                    _get(client, path, heads[label][name])
        timings = Timings()
        for round_ in range(args.rounds):
            for name, (path, _) in paths.items():
                for index in range(args.requests):
                    order = ["small", "large"] if (index + round_) % 2 == 0 else ["large", "small"]
                    for label in order:
                        timings.add(
                            name, label, round_, _get(clients[label], path, heads[label][name])
                        )
            say(f"round {round_ + 1} of {args.rounds} done")
        for client in clients.values():
            client.close()
        return timings, games
    finally:
        for server in servers.values():
            server.stop()
            log = getattr(server, "log", None)  # set once launched
            if log is not None:
                log.close()
                Path(log.name).unlink(missing_ok=True)


def run_backend(backend: str, args: argparse.Namespace, rng: random.Random) -> dict[str, Any]:
    """Build both sites on ``backend``, measure them, drop them."""
    folder = Path(tempfile.mkdtemp(prefix="dicehall-bench-history-"))
    sites: dict[str, Site] = {}
    try:
        counts = {"small": args.small, "large": args.games}
        for label, count in counts.items():
            sites[label] = build_site(
                backend,
                folder,
                label,
                count,
                args.players,
                args.crowd,
                rng,
                sites["small"].templates if sites else None,
            )
        say(f"{backend}: measuring")
        timings, games = measure(sites, args)
    finally:
        for site in sites.values():
            site.database.drop()
        shutil.rmtree(folder, ignore_errors=True)
    endpoints = {name: timings.summary(name) for name in ENDPOINTS}
    return {
        "seed_s": round(sites["large"].seed_s, 1),
        "seed_small_s": round(sites["small"].seed_s, 1),
        "analyze_s": round(sites["large"].analyze_s, 1),
        "sizes": {
            label: {"player_games": games[label], "rows": site.rows}
            for label, site in sites.items()
        },
        "endpoints": endpoints,
        "extra": {name: timings.summary(name) for name in EXTRA},
        "met": all(row["met"] for row in endpoints.values()),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--db", choices=["sqlite", "postgresql", "both"], default="both")
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--small", type=int, default=48)
    parser.add_argument("--players", type=int, default=16)
    parser.add_argument("--crowd", type=int, default=2000)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--warmup", type=int, default=20)
    args = parser.parse_args(argv)
    if args.players < 2:
        parser.error("--players must be at least 2")
    if min(args.small, args.games * 2 // args.players) <= 20:
        parser.error("the measured player needs more than a page (20) of games on each site")
    if args.crowd < 0 or args.crowd % 2:
        parser.error("--crowd must be an even number, 0 or more")
    if args.requests < 1 or args.rounds < 1:
        parser.error("--requests and --rounds must be at least 1")
    backends = ["sqlite", "postgresql"] if args.db == "both" else [args.db]
    rng = random.Random(34)
    report: dict[str, Any] = {
        "server": "dicehall serve (tests.live.LiveServer), 1 worker, loopback, no Redis",
        "games": args.games,
        "small": args.small,
        "players": args.players,
        "crowd": args.crowd,
        "per_player_large": args.games * 2 // args.players,
        "requests": args.requests,
        "rounds": args.rounds,
        "warmup": args.warmup,
        "target": TARGET,
        "backends": {},
    }
    for backend in backends:
        report["backends"][backend] = run_backend(backend, args, rng)
    report["all_met"] = all(row["met"] for row in report["backends"].values())
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
