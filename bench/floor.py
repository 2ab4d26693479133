"""The site's move path against the floor of its own stack, interleaved; prints one JSON object.

    python bench/floor.py [--db sqlite|postgresql] [--rounds 5] [--seconds 6] [--clients 16]
                          [--warmup 1] [--redis auto|none|URL]

Three servers start up front, each one uvicorn worker on loopback with the site's uvicorn
options (``dicehall serve``'s :func:`~dicehall.server.http.limits.server_options` and log
configuration: the same HTTP protocol class and event loop, reported under ``uvicorn``):

- ``site``: ``dicehall serve`` (``tests.live.LiveServer``), clients playing Ten Thousand
  (bench/load.py's play: every move a POST with the expected version, plus the reads and new
  games that play needs);
- ``noop``: a FastAPI POST that parses a move-shaped body and answers ``{}``;
- ``insert``: the same POST running one INSERT in a transaction of its own on the site's
  engine (``make_engine``: its pool sizes, SQLite pragmas, PostgreSQL idle ping) begun as the
  site's writers begin theirs (BEGIN IMMEDIATE on SQLite), in a database of its own.

After a short unmeasured warm-up of each (``--warmup`` seconds), ``--rounds`` rounds load
the three one after another, ``--seconds`` each, with the same number of aiohttp clients;
the order rotates every round so none always goes first. A server idles while the others
are loaded, and only its own load's CPU counts. Per round and server:

- ``per_s``: moves per second for the site, requests per second for the floors (answers
  received over the load's wall time; the site's ``requests_per_s`` counts every request);
- ``cpu_ms_per`` (= ``web_cpu_ms_per``): CPU milliseconds (user + system) of the server's
  whole process group, from ``/proc``, per move for the site (every request it served,
  reads and new games included, charged to the moves: ``cpu_ms_per_move``; per HTTP request:
  ``cpu_ms_per_request``), per request for the floors;
- ``backend_cpu_ms_per`` (PostgreSQL only, null on SQLite, whose work is in the web
  process): CPU milliseconds of the PostgreSQL backends connected to that server's own
  database. ``pg_stat_activity`` is read through an admin connection when the load starts,
  every ``SAMPLE_S`` seconds and when it ends, and each backend's CPU from
  ``/proc/<pid>/schedstat``: one still there at the end counts from the start, or from its
  own start if it appeared since. One that exits during the load (the pool's overflow
  connections are closed when they come back to a full pool: the insert floor makes
  hundreds a round) is gone from ``/proc`` before its last figure can be read, often between
  two samples, so the exited ones are counted from what the postmaster reaped (its
  children's CPU in ``/proc/<postmaster>/stat``), less the last figures of other databases'
  backends seen exiting and what ours had used before the start. What is left may hold
  other databases' backends never seen (another program's short connections): it is
  shared out by the number of backends, ours that exited against theirs never seen
  (``pg_stat_database.sessions``), and nothing of it is ours if none of ours exited.
  ``backends`` (each figure the median of the rounds) shows how: ``seen`` and ``exited``
  backends of the database, ``connections`` made to it, ``others_exited`` and
  ``others_connections`` (other databases', meanwhile), ``sampled_ms`` (what the samples
  alone saw of ours: a floor), ``exited_ms`` (ours that exited), ``unattributed_ms`` (the
  reaped CPU left to the others) and ``postmaster_ms`` (the postmaster's own CPU, forking
  the new backends; not in the figure). For the site also ``backend_cpu_ms_per_move`` and
  ``backend_cpu_ms_per_request``; ``noop`` has no database (0). Redis's CPU (the site's
  pushes on PostgreSQL) and PostgreSQL's background processes (WAL writer, checkpointer)
  are not counted;
- ``total_cpu_ms_per``: web and backends together;
- ``p50_ms``, ``p99_ms``: the latency of the site's moves, and of the floors' requests.

Each server's summary is the median of its rounds (``requests``, ``moves``, ``errors`` and
``games_finished`` are totals); the ratios (the site's over a floor's) are ratios of those
medians, and ``per_round_ratios`` and ``rounds_detail`` give each round's, to show the
spread.
``site_cpu_per_move_over_insert`` (and ``_over_noop``, and ``site_cpu_per_request_over_*``)
compares web processes, ``site_backend_cpu_per_move_over_insert`` the PostgreSQL backends,
``site_total_cpu_per_move_over_insert`` both; ``site_moves_per_s_over_*`` the rates.
``uvicorn`` names each server's HTTP protocol class and event loop (as uvicorn resolves the
options it was given, and which of uvloop and httptools its processes have loaded);
``pool``, the connection pool ``make_engine`` gives the site's and the insert floor's
database.

On PostgreSQL the site runs with Redis as in production (``--redis auto``: Redis database
``REDIS_DB`` on 127.0.0.1, flushed before and after; ``none`` for none); each server that
has a database gets a fresh one of its own, dropped at the end.

(Longer than most modules: the servers, the interleaved rounds and the PostgreSQL backend
accounting only make sense read together.)
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import httpx2
import psycopg
from sqlalchemy.engine import make_url
from sqlalchemy.pool import QueuePool

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.live import LiveServer, add_user, free_port  # noqa: E402

from bench.floor_apps import uvicorn_options  # noqa: E402
from bench.load import PG_ADMIN, Tally, database, play_pair  # noqa: E402
from dicehall.server.core.config import Settings  # noqa: E402
from dicehall.server.core.db import make_engine  # noqa: E402
from dicehall.server.domain.services import build_services  # noqa: E402
from dicehall.server.http.limits import server_options  # noqa: E402

BODY = {"action": {"type": "set_aside", "dice": [1, 5]}, "expected_version": 7}
TICKS = os.sysconf("SC_CLK_TCK")
NS_PER_TICK = 1_000_000_000 // TICKS
NAMES = ("site", "noop", "insert")
#: Seconds between two looks at a database's backends during a load.
SAMPLE_S = 0.2
#: The Redis database the site uses on PostgreSQL (``--redis auto``), flushed before use.
REDIS_DB = 12


def proc_cpu_ns(pid: int) -> int | None:
    """CPU nanoseconds one (single-threaded) process has run, from ``/proc/<pid>/schedstat``
    (``/proc/<pid>/stat``'s utime + stime move in steps of a clock tick, 10 ms: more than a
    short-lived backend uses); None once it is gone."""
    try:
        return int(Path(f"/proc/{pid}/schedstat").read_text().split()[0])
    except FileNotFoundError:
        return None
    except OSError:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return None
        return (int(fields[11]) + int(fields[12])) * NS_PER_TICK


def group_cpu_s(group: int) -> float:
    """CPU seconds (user + system) used so far by every live process in a process group."""
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == group:  # pgrp
            total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / TICKS


def postmaster_of(admin: psycopg.Connection[Any]) -> int:
    """The PostgreSQL postmaster's pid: the parent of the admin connection's backend."""
    row = admin.execute("SELECT pg_backend_pid()").fetchone()
    assert row is not None
    stat = Path(f"/proc/{int(row[0])}/stat").read_text()
    return int(stat.rsplit(")", 1)[1].split()[1])  # ppid


def postmaster_ns(pid: int) -> tuple[int, int]:
    """The postmaster's own utime + stime, and its reaped children's (every backend that
    exited, whatever its database), in nanoseconds (counted in clock ticks)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    own = int(fields[11]) + int(fields[12])
    return own * NS_PER_TICK, (int(fields[13]) + int(fields[14])) * NS_PER_TICK


class BackendMeter:
    """CPU of the PostgreSQL backends connected to one database, over one load.

    Every backend in ``pg_stat_activity`` is looked at when the load starts, every
    ``SAMPLE_S`` seconds and when it ends (its database, its CPU from ``/proc``). Ours that
    are still there at the end count their CPU since the start (or since their own start).
    Backends that exit during the load (a pool's overflow connections, closed when they come
    back to a full pool) are gone from ``/proc`` before anyone reads their last figure, many
    between two samples: their CPU is taken from what the postmaster reaped (its children's
    CPU), less what was known of the others' that exited, and less what ours had used
    before the start.
    """

    def __init__(self, admin: psycopg.Connection[Any], datname: str, postmaster: int) -> None:
        self.admin = admin
        self.datname = datname
        self.postmaster = postmaster
        self.first: dict[int, int] = {}
        self.last: dict[int, int] = {}
        self.owner: dict[int, str | None] = {}
        self.at_start: set[int] = set()
        self.started: tuple[int, int] = (0, 0)
        self.sessions: dict[str | None, int] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def _sample(self, starting: bool = False) -> set[int]:
        """Look at every backend; the ones listed now."""
        rows = self.admin.execute("SELECT pid, datname FROM pg_stat_activity").fetchall()
        listed: set[int] = set()
        for pid, name in rows:
            spent = proc_cpu_ns(int(pid))
            if spent is None:
                continue
            listed.add(pid)
            if pid not in self.first:
                # There at the start: from now; new since: from its own start.
                self.first[pid] = spent if starting else 0
            self.last[pid] = spent
            self.owner[pid] = name
        return listed

    def _sessions(self) -> dict[str | None, int]:
        """Connections ever made to each database (PostgreSQL's statistics: a backend's
        count comes in when it exits, or within a second)."""
        rows = self.admin.execute("SELECT datname, sessions FROM pg_stat_database").fetchall()
        return {name: int(n or 0) for name, n in rows}

    def _watch(self) -> None:
        while not self._stop.wait(SAMPLE_S):
            self._sample()

    def start(self) -> None:
        """The backends there now, then a look every ``SAMPLE_S`` seconds."""
        self.sessions = self._sessions()
        self._sample(starting=True)
        self.at_start = set(self.first)
        self.started = postmaster_ns(self.postmaster)
        self._thread.start()

    def stop(self) -> tuple[float, dict[str, Any]]:
        """CPU seconds of the database's backends since :meth:`start`, and how it was found."""
        self._stop.set()
        self._thread.join()
        own, reaped = postmaster_ns(self.postmaster)
        alive = self._sample()
        made = {
            name: max(0, n - self.sessions.get(name, 0)) for name, n in self._sessions().items()
        }
        ours_made = made.pop(self.datname, 0)
        others_made = sum(made.values())  # a database dropped meanwhile is left out
        ours = {pid for pid, name in self.owner.items() if name == self.datname}
        others = set(self.last) - ours
        exited = set(self.last) - alive
        live = sum(self.last[pid] - self.first[pid] for pid in ours & alive)
        sampled = sum(self.last[pid] - self.first[pid] for pid in ours)
        # Reaped since the start: ours that exited (seen or not), the others' seen exiting
        # (at least their last figure), and others' never seen (their connections made less
        # those seen), whose CPU is shared out with ours by the number of backends.
        unexplained = (
            reaped
            - self.started[1]
            - sum(self.last[pid] for pid in exited & others)
            - sum(self.first[pid] for pid in exited & ours & self.at_start)
        )
        ours_gone = max(len(exited & ours), ours_made - len((ours & alive) - self.at_start))
        others_unseen = max(0, others_made - len(others - self.at_start))
        share = ours_gone / (ours_gone + others_unseen) if ours_gone else 0.0
        gone = max(0.0, unexplained * share)
        how = {
            "seen": len(ours),
            "exited": len(exited & ours),
            "connections": ours_made,
            "others_exited": len(exited & others),
            "others_connections": others_made,
            "sampled_ms": round(sampled / 1e6),
            "exited_ms": round(gone / 1e6),
            "unattributed_ms": round(max(0.0, unexplained - gone) / 1e6),
            "postmaster_ms": round((own - self.started[0]) / 1e6),
        }
        return (live + gone) / 1e9, how


@dataclass
class Load:
    """What one server's load measured."""

    tally: Tally
    requests: int
    elapsed: float
    web_cpu: float
    backend_cpu: float | None
    backends: dict[str, Any] | None = None


@dataclass
class Server:
    """One of the three, running."""

    name: str
    pgid: int
    base: str
    run: Callable[[float], tuple[Tally, int]]
    datname: str | None = None
    uvicorn: dict[str, Any] = field(default_factory=dict)


async def hammer(base: str, clients: int, seconds: float) -> Tally:
    """``clients`` loops POSTing a move-shaped body until the deadline."""
    tally = Tally()
    deadline = time.monotonic() + seconds
    connector = aiohttp.TCPConnector(limit=clients)
    headers = {"Authorization": "Bearer floor-token-of-a-usual-length-0123456789"}
    async with aiohttp.ClientSession(base, connector=connector) as client:

        async def one() -> None:
            while time.monotonic() < deadline:
                started = time.perf_counter()
                async with client.post("/move", json=BODY, headers=headers) as answer:
                    await answer.read()
                    if answer.status != 200:
                        tally.errors += 1
                        continue
                tally.latencies.append(time.perf_counter() - started)
                tally.moves += 1

        await asyncio.gather(*(one() for _ in range(clients)))
    return tally


async def play(
    base: str, users: list[tuple[str, dict[str, str]]], seconds: float
) -> tuple[Tally, int]:
    """bench/load.py's play (all pairs on one connection pool), counting every HTTP answer."""
    tally = Tally()
    answers = [0]

    async def answered(*_: Any) -> None:
        answers[0] += 1

    trace = aiohttp.TraceConfig()
    trace.on_request_end.append(answered)
    deadline = time.monotonic() + seconds
    connector = aiohttp.TCPConnector(limit=len(users))
    async with aiohttp.ClientSession(base, connector=connector, trace_configs=[trace]) as client:
        pairs = [users[i : i + 2] for i in range(0, len(users) - 1, 2)]
        await asyncio.gather(
            *(
                play_pair(client, pair, "tenthousand", deadline, tally, random.Random(i))
                for i, pair in enumerate(pairs)
            )
        )
    return tally, answers[0]


def mapped_natives(pgid: int) -> list[str]:
    """Which of uvloop and httptools a server's processes have loaded (``/proc/<pid>/maps``)."""
    found: set[str] = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[2]) != pgid:
                continue
            maps = (entry / "maps").read_text()
        except OSError:
            continue
        found.update(name for name in ("uvloop", "httptools") if f"/{name}/" in maps)
    return sorted(found)


def describe_uvicorn(options: dict[str, Any]) -> dict[str, Any]:
    """The HTTP protocol class and event loop uvicorn picks for these options."""
    from uvicorn.config import HTTP_PROTOCOLS
    from uvicorn.importer import import_from_string

    http = options.get("http", "auto")
    if http == "auto":
        http = "httptools" if importlib.util.find_spec("httptools") else "h11"
    protocol = import_from_string(HTTP_PROTOCOLS.get(http, http)) if isinstance(http, str) else http
    loop = options.get("loop", "auto")
    if loop == "auto":
        loop = "uvloop" if importlib.util.find_spec("uvloop") else "asyncio"
    bases = [f"{k.__module__}.{k.__qualname__}" for k in protocol.__mro__[1:2]]
    return {
        "http": f"{protocol.__module__}.{protocol.__qualname__}",
        "http_base": bases[0] if bases else None,
        "loop": loop,
    }


def describe_pool(url: str) -> dict[str, Any]:
    """The connection pool ``make_engine`` gives ``url`` (the site's and the insert floor's)."""
    engine = make_engine(url)
    try:
        pool = engine.pool
        return {
            "class": type(pool).__name__,
            "size": pool.size() if isinstance(pool, QueuePool) else None,
            "max_overflow": getattr(pool, "_max_overflow", None),
        }
    finally:
        engine.dispose()


def floor_server(
    app: str, env: dict[str, str], clients: int
) -> tuple[subprocess.Popen[bytes], Server]:
    """A floor app under the site's uvicorn options, answering."""
    port = free_port()
    args = [sys.executable, "-m", "bench.floor_apps", app, "--port", str(port)]
    process = subprocess.Popen(args, cwd=ROOT, env=env, stdout=sys.stderr, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    for _ in range(600):
        if process.poll() is not None:
            raise RuntimeError(f"the {app} floor exited ({process.returncode})")
        try:
            httpx2.post(f"{base}/move", json=BODY, timeout=1)
            break
        except httpx2.HTTPError:
            time.sleep(0.05)
    else:
        process.kill()
        raise RuntimeError(f"the {app} floor did not start")

    def run(seconds: float) -> tuple[Tally, int]:
        tally = asyncio.run(hammer(base, clients, seconds))
        return tally, tally.moves + tally.errors

    return process, Server(app, process.pid, base, run)


def measure(
    server: Server, seconds: float, admin: psycopg.Connection[Any] | None, postmaster: int
) -> Load:
    """One server's load: its answers, and its CPU (and its backends') over that time only."""
    meter = BackendMeter(admin, server.datname, postmaster) if admin and server.datname else None
    before = group_cpu_s(server.pgid)
    if meter is not None:
        meter.start()
    started = time.perf_counter()
    tally, requests = server.run(seconds)
    elapsed = time.perf_counter() - started
    backend: float | None = None
    backends = None
    if meter is not None:
        backend, backends = meter.stop()
    elif admin is not None:
        backend = 0.0  # no database: no backend
    web = group_cpu_s(server.pgid) - before
    return Load(tally, requests, elapsed, web, backend, backends)


def _ms(seconds: float | None, count: int) -> float | None:
    return None if seconds is None else round(1000 * seconds / max(1, count), 3)


def summary(name: str, load: Load) -> dict[str, Any]:
    """Rate, CPU per move or request, and latency of one load."""
    tally = load.tally
    lat = sorted(tally.latencies) or [0.0]
    unit = tally.moves  # the site's moves, the floors' answered requests
    total = load.web_cpu + (load.backend_cpu or 0.0)
    out: dict[str, Any] = {
        "per_s": round(unit / load.elapsed, 1),
        "requests": load.requests,
        "cpu_ms_per": _ms(load.web_cpu, unit),
        "web_cpu_ms_per": _ms(load.web_cpu, unit),
        "backend_cpu_ms_per": _ms(load.backend_cpu, unit),
        "total_cpu_ms_per": _ms(total, unit),
        "p50_ms": round(1000 * statistics.median(lat), 2),
        "p99_ms": round(1000 * lat[min(len(lat) - 1, int(0.99 * len(lat)))], 2),
        "errors": tally.errors,
    }
    if name == "site":
        out.update(
            moves=tally.moves,
            requests_per_s=round(load.requests / load.elapsed, 1),
            cpu_ms_per_move=_ms(load.web_cpu, unit),
            cpu_ms_per_request=_ms(load.web_cpu, load.requests),
            backend_cpu_ms_per_move=_ms(load.backend_cpu, unit),
            backend_cpu_ms_per_request=_ms(load.backend_cpu, load.requests),
            games_finished=tally.finished,
        )
    if load.backends is not None:
        out["backends"] = load.backends
    return out


def _over(ours: float | None, theirs: float | None, digits: int = 3) -> float | None:
    if ours is None or theirs is None or theirs <= 0:
        return None
    return round(ours / theirs, digits)


def ratios(site: dict[str, Any], noop: dict[str, Any], insert: dict[str, Any]) -> dict[str, Any]:
    """The site's figures over the floors'."""
    return {
        "site_moves_per_s_over_noop": _over(site["per_s"], noop["per_s"]),
        "site_moves_per_s_over_insert": _over(site["per_s"], insert["per_s"]),
        "site_cpu_per_move_over_insert": _over(site["cpu_ms_per_move"], insert["cpu_ms_per"], 2),
        "site_cpu_per_move_over_noop": _over(site["cpu_ms_per_move"], noop["cpu_ms_per"], 2),
        "site_cpu_per_request_over_insert": _over(
            site["cpu_ms_per_request"], insert["cpu_ms_per"], 2
        ),
        "site_cpu_per_request_over_noop": _over(site["cpu_ms_per_request"], noop["cpu_ms_per"], 2),
        "site_backend_cpu_per_move_over_insert": _over(
            site["backend_cpu_ms_per_move"], insert["backend_cpu_ms_per"], 2
        ),
        "site_total_cpu_per_move_over_insert": _over(
            site["total_cpu_ms_per"], insert["total_cpu_ms_per"], 2
        ),
    }


#: Counts summed over the rounds; every other number is their median.
TOTALS = ("requests", "moves", "errors", "games_finished")


def medians(rounds: list[dict[str, Any]]) -> dict[str, Any]:
    """Each figure's median over the rounds (the counts' sum; ``backends``' figures are
    each one's median)."""
    out: dict[str, Any] = {}
    for key, first in rounds[0].items():
        values = [r[key] for r in rounds]
        if key in TOTALS:
            out[key] = sum(values)
        elif isinstance(first, dict):
            out[key] = {k: statistics.median(v[k] for v in values) for k in first}
        elif any(v is None for v in values):
            out[key] = None
        else:
            out[key] = round(statistics.median(values), 3)
    return out


def redis_for(choice: str, db: str) -> str | None:
    """The Redis URL the site gets (``auto``: on PostgreSQL only), flushed."""
    if choice == "none" or (choice == "auto" and db != "postgresql"):
        return None
    url = f"redis://127.0.0.1:6379/{REDIS_DB}" if choice == "auto" else choice
    flush_redis(url)
    return url


def flush_redis(url: str) -> None:
    """Empty one Redis database."""
    import redis

    client = redis.Redis.from_url(url)
    try:
        client.flushdb()
    finally:
        client.close()


def datname(url: str) -> str | None:
    """The PostgreSQL database a URL names; None for SQLite."""
    parsed = make_url(url)
    return parsed.database if parsed.get_backend_name() == "postgresql" else None


def bench(args: argparse.Namespace, work: str, result: dict[str, Any]) -> None:
    """Start the three, warm them, load them in rotating rounds; fill ``result``."""
    drops: list[Callable[[], None]] = []
    site_url, drop = database(args.db, work)
    drops.append(drop)
    floors: list[subprocess.Popen[bytes]] = []
    site: LiveServer | None = None
    admin: psycopg.Connection[Any] | None = None
    redis_url: str | None = None
    try:
        floor_url, drop = database(args.db, work + "/floor")
        drops.append(drop)
        if args.db == "sqlite":
            floor_url = f"sqlite:///{work}/floor/floor.sqlite3"
        redis_url = redis_for(args.redis, args.db)
        result["redis"] = redis_url
        if args.db == "postgresql":
            admin = psycopg.connect(PG_ADMIN, autocommit=True)
        postmaster = postmaster_of(admin) if admin is not None else 0
        site = LiveServer(site_url, redis_url)
        site.start()
        services = build_services(Settings(db_url=site_url))
        try:
            users = [(f"floor{i}", add_user(services, f"floor{i}")) for i in range(args.clients)]
        finally:
            services.engine.dispose()
        assert site.process is not None
        servers = {
            "site": Server(
                "site",
                site.process.pid,
                site.base,
                lambda seconds: asyncio.run(play(site.base, users, seconds)),
                datname(site_url),
                describe_uvicorn(server_options(Settings(db_url=site_url))),
            )
        }
        env = {**os.environ, "FLOOR_DB_URL": floor_url, "PYTHONPATH": str(ROOT)}
        for app in ("noop", "insert"):
            process, server = floor_server(app, env, args.clients)
            floors.append(process)
            server.datname = datname(floor_url) if app == "insert" else None
            server.uvicorn = describe_uvicorn(uvicorn_options())
            servers[app] = server
        for server in servers.values():
            server.uvicorn["loaded"] = mapped_natives(server.pgid)
        result["uvicorn"] = {name: server.uvicorn for name, server in servers.items()}
        result["pool"] = {"site": describe_pool(site_url), "insert": describe_pool(floor_url)}
        if args.warmup > 0:
            for server in servers.values():
                server.run(args.warmup)
        detail: list[dict[str, Any]] = []
        for index in range(args.rounds):
            shift = index % len(NAMES)
            order = NAMES[shift:] + NAMES[:shift]
            got = {
                name: summary(name, measure(servers[name], args.seconds, admin, postmaster))
                for name in order
            }
            detail.append(
                {
                    "round": index + 1,
                    "order": list(order),
                    **{name: got[name] for name in NAMES},
                    "ratios": ratios(got["site"], got["noop"], got["insert"]),
                }
            )
        for name in NAMES:
            result[name] = medians([r[name] for r in detail])
        result.update(ratios(result["site"], result["noop"], result["insert"]))
        result["per_round_ratios"] = {
            key: [r["ratios"][key] for r in detail] for key in detail[0]["ratios"]
        }
        result["rounds_detail"] = detail
    finally:
        if site is not None:
            site.stop()
        for process in floors:
            process.terminate()
        for process in floors:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
        if admin is not None:
            admin.close()
        for drop in drops:
            drop()
        if redis_url is not None:
            flush_redis(redis_url)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--db", default="sqlite", choices=["sqlite", "postgresql"])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=6.0, help="of each load, per round")
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--warmup", type=float, default=1.0, help="unmeasured, per server")
    parser.add_argument(
        "--redis", default="auto", help="Redis URL for the site, none, or auto (on PostgreSQL)"
    )
    args = parser.parse_args()
    result: dict[str, Any] = {
        "db": args.db,
        "rounds": args.rounds,
        "seconds": args.seconds,
        "clients": args.clients,
        "load_at_start": os.getloadavg(),
    }
    with tempfile.TemporaryDirectory() as work:
        bench(args, work, result)
    result["load_at_end"] = os.getloadavg()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
