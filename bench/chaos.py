"""Chaos under load: ``kill -9`` of a random web or worker process every 20 s; one JSON object.

(Longer than most modules: the layout, the four kinds of clients, the killer and the
accounting of what was acknowledged against what was stored only make sense together.)

    python bench/chaos.py [--minutes 10] [--kill-every 20] [--clients 8] [--seed N]
                          [--think-ms 0] [--keep-logs]

Issue 34's target: kill -9 of a random web or worker process every 20 s for 10 minutes under
load, and no move, bot turn, timeout, pairing or notification lost or doubled, no process
left behind, every timeout applied at most 5 s after its deadline (p99).

**Layout** (docs/site.md, "Layouts", every machine on loopback): PostgreSQL (a database of
the run's own, dropped at the end) and Redis (database ``REDIS_DB``, flushed before and
after); two web nodes, ``dicehall serve --no-background --workers 2`` on two ports, the
first started alone so that it migrates; two worker nodes, ``dicehall worker --redis ...``
with ``DICEHALL_BOT_WORKERS=1``. Each node runs in a session of its own (``tests.live``), so
its processes are found in ``/proc`` by their session id.

**Load**, for ``--minutes``: ``--clients`` aiohttp clients, client ``i`` sending to web node
``i % 2`` first and, after a connection error or a 5xx answer, to the other one (which it
then prefers for 3 s); a request is tried again, backing off up to 1 s, for 120 s at most.
The clients take these roles in turn:

- ``quick``: Ten Thousand (target 3000) against ``bot:threshold``, moved inside the request;
- ``slow``: Boss Dice against ``bot:equilibrium``, a slow bot the worker nodes' bot driver
  moves; a game whose bot has not moved for 30 s (a lease held by a killed worker lasts
  120 s) is left for a new game (``games_left_waiting_on_bot``), the final wait ends it;
- ``timeout``: Ten Thousand between two people with a 5-second pace (``{"initial": 5,
  "increment": 5, "cap": 5}``, no vacation), a new game every second: the creator plays for
  at most 2 s while it is their turn, the invited player never moves. The deadline of the
  seat to act, as the last answer reported it, is recorded and the game is never read again
  (a read applies a timeout itself), so the worker nodes' sweepers must apply it;
- ``automatch``: two users at a time file Boss Dice tickets (``[2, 2]`` seats, daily pace,
  unrated) and read ``GET /api/v1/automatch`` every 0.5 s until the matcher pairs them.

Every move is a POST with ``expected_version`` and an ``Idempotency-Key``; one whose answer
was lost (a connection error, a 5xx) is sent again with the same key until it gets one. A
200 is an acknowledged move (game, version before, key, seat, action). A create, an accept
or a ticket whose answer was lost is looked for in the user's lists before it is sent again.

**Kills**: every ``--kill-every`` seconds one process chosen at random (``--seed``) among
the live uvicorn worker processes and masters of both web nodes and both ``dicehall worker``
processes (never PostgreSQL or Redis) gets SIGKILL, logged on stderr with the time and its
role. A killed master or worker node is started again once the rest of its session is gone
(``restart_s``: from the kill until it serves, or says it runs); a killed uvicorn worker must
be replaced by its master within 30 s (``child_restart_failures`` counts those that were
not). That mending runs beside the kills, which keep their pace; a node being mended is no
target. So both web nodes, or both worker nodes, may be down at once: ``web_outage_s`` and
``worker_outage_s`` say for how long in all.

**End**: the clients finish the request they are in and stop, the kills stop; then a wait of
at most ``FINAL_WAIT_S`` (a lease left by a killed worker holds its game for 120 s), reading
the database every 0.5 s, until no game is ``bot_due``, every 5-second game has ended and no
ticket waits. Then every node's session gets SIGTERM, and ``FINAL_EXIT_S`` later every
process ever seen in a node's session (sampled from ``/proc`` every 0.2 s, bot processes and
multiprocessing's resource trackers included; pid and start time) that is still alive is an
``orphan``, as is any process whose command line names the run's database (they are then
killed). ``dicehall check`` runs after that.

**Checks** (target 0 unless said):

- ``lost_moves``: an acknowledged move whose ``idempotency_keys`` row is missing or not at
  the version after the acknowledged one, or that has no event: each game's person
  ``acted`` events, in log order, are paired with its acknowledged moves in version order
  (same seat, same action type), and any acknowledged move left without one is lost;
- ``doubled_moves``: person ``acted`` events beyond the acknowledged moves (less moves
  given up on, ``moves_unresolved``, which must be 0 too); a key applied twice could not
  even be stored (``idempotency_keys``' primary key), so an extra event is how it shows;
- ``replay_mismatches``: ``dicehall check --json``'s discrepancies (every game replayed
  from its options through its events to its snapshot, and the site's own endings, aborts
  and forfeits on time, checked against its row);
- ``doubled_bot_turns``: a bot turn committed twice cannot be seen directly (a slow bot
  draws mixed moves; events carry no version). What shows: a bot's ``acted`` event that
  repeats the event just before it (same seat, same action) from an earlier transaction (a
  decision committed again; no rule of these games lets a seat act twice in a row with the
  very same action), games with bots that fail the replay, and games with bots with more
  transactions in their log than versions (``commits_over_versions``: the events one commit
  appends share its timestamp, and each commit moves the version on by one);
  ``event_log_gaps`` (sequence numbers not exactly ``0 .. event_count - 1``) and
  ``commits_over_versions`` are also reported for every game; ``bot_turns_stuck``: games
  still ``bot_due`` after the final wait (bot turns lost);
- ``timeouts_missing``: 5-second games not ended with a ``seat_timeouts`` row;
  ``timeouts_wrong_seat``: one whose timed-out seat is not the seat whose deadline was
  recorded; ``timeouts_doubled``: ``seat_timeouts`` rows beyond one per game and seat;
  ``timeout_delay_p50_s``, ``_p99_s``, ``_max_s``: ``ended_at`` less the recorded deadline
  (p99 at most 5 s);
- ``pairings``: games the matched tickets name; ``pairings_doubled``: a game named by other
  than two matched tickets, an auto-match game (one with a seat draw) no ticket names, one
  whose players are not its tickets' players (a user seated twice included), and a ticket
  a client saw matched to another game than the database says; ``tickets_unmatched``:
  tickets still waiting after the final wait;
- ``notifications_doubled``: rows beyond one per user, kind and game. In this run's games
  each kind is owed at most once per user and game (a 5-second game has one turn per seat,
  and one timeout; a daily auto-match game has no deadline or reminder within the run; bot
  games notify nobody); ``notifications_missing``: a ``timed_out`` row missing for a
  timeout, an ``automatch`` row for a matched ticket, a ``your_turn`` row for an invited
  player whose turn the creator's move began;
- ``orphans`` (above), and ``child_restart_failures`` and ``restart_failures``.

Also reported: ``kills`` (and each one's time, role and restart time), ``moves_acknowledged``
(``moves_replayed``: answers marked ``replayed``; ``moves_retried``: acknowledged after a
lost answer), ``requests``, ``requests_failed_then_retried`` (requests answered after at
least one lost attempt, and creates, accepts and tickets whose answer was lost and that were
looked for or sent again: ``writes_lost_then_recovered``), ``status_counts`` (answers by
status, lost attempts by exception), ``refusals`` (final non-2xx answers, by status and
code), the move latency, ``bot_wait_*`` (a client's wait for a slow bot, games left aside
excluded), ``slow_bot_turn_delay_*`` (in the log, from the commit that left a slow bot to
act to the commit of its action, every bot game included: a game whose lease a killed worker
held waits for the lease to run out), ``timeout_games_read_after_end`` (5-second games that
one of the bench's own requests found ended: not measured), ``processes_seen`` by role, the
1-minute load average (the machine is shared) and ``duration_s``. ``targets_met`` is true
when every target holds and the run did something (kills, moves, timeouts and pairings all
above 0); ``targets_failed`` names the others.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import aiohttp
import psycopg
import redis

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' live server
from tests.live import LiveServer, LiveWorker, add_user
from tests.server.conftest import site_settings
from tests.waiting import WaitTimeout, wait_until

from dicehall import games as dicehall_games
from dicehall.server.domain.services import build_services

API = "/api/v1"
PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"
REDIS_DB = 14
PACE = {"initial": 5, "increment": 5, "cap": 5}
FINISHING = {"bank", "hold", "stop", "score", "fold", "check", "call", "come_up", "keep"}
#: Answers that leave a write's fate unknown (or a node unable to serve): sent again.
RETRY_STATUSES = {500, 502, 503, 504}
GIVE_UP_S = 120.0
PREFER_OTHER_S = 3.0
BOT_PATIENCE_S = 30.0
FIRST_TURN_S = 2.0
TIMEOUT_GAME_EVERY_S = 1.0
MATCH_PATIENCE_S = 60.0
START_S = 120.0
CHILD_RESTART_S = 30.0
FINAL_WAIT_S = 300.0
FINAL_EXIT_S = 15.0
SAMPLE_S = 0.2
ROLES = ("quick", "slow", "timeout", "automatch")


def say(start: float, text: str) -> None:
    """One line on stderr, stamped with the seconds since the run began."""
    print(f"[chaos {time.monotonic() - start:7.1f}s] {text}", file=sys.stderr, flush=True)


def percentile(values: list[float], share: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(share * len(ordered)))], 3)


# -- processes --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Proc:
    """One line of ``/proc``: enough to tell a process, its session and its role."""

    pid: int
    ppid: int
    session: int
    #: Clock ticks after boot: with the pid, names the process (pids are reused).
    start: int
    state: str
    cmd: str


def read_proc(pid: int) -> Proc | None:
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
    except OSError:
        return None
    # After the name: state(0) ppid(1) pgrp(2) session(3) ... starttime(19)
    fields = raw.rsplit(")", 1)[1].split()
    text = cmd.decode(errors="replace").strip()
    return Proc(pid, int(fields[1]), int(fields[3]), int(fields[19]), fields[0], text)


def all_procs() -> list[Proc]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (proc := read_proc(int(entry))) is not None:
            found.append(proc)
    return found


def alive(pid: int, start: int) -> bool:
    """Whether that very process (not a later one with its pid) still runs."""
    proc = read_proc(pid)
    return proc is not None and proc.start == start and proc.state not in ("Z", "X")


@dataclass
class Node:
    """A web or worker node: its runner (restarted in place) and every session it had."""

    name: str
    runner: LiveServer | LiveWorker
    logs: list[str] = field(default_factory=list)
    #: Set from its kill until it is mended (no target meanwhile).
    busy: threading.Event = field(default_factory=threading.Event)

    @property
    def web(self) -> bool:
        return isinstance(self.runner, LiveServer)

    @property
    def leader(self) -> int | None:
        process = self.runner.process
        return None if process is None else process.pid

    def start(self) -> None:
        """Start (again) and wait until it serves (a web node) or says it runs (a worker)."""
        runner = self.runner
        if isinstance(runner, LiveServer):
            runner.launch({**os.environ, "DICEHALL_BOT_WORKERS": "1"})
            self.logs.append(runner.log.name)
            runner.wait_ready(START_S)
        else:
            try:
                runner.start(START_S)
            finally:
                self.logs.append(runner.log.name)

    def role(self, proc: Proc) -> str:
        if proc.pid == proc.session:
            return f"{self.name} master" if self.web else f"{self.name} worker process"
        if "resource_tracker" in proc.cmd:
            return f"{self.name} resource tracker"
        if "spawn_main" in proc.cmd and proc.ppid == proc.session:
            return f"{self.name} uvicorn worker" if self.web else f"{self.name} bot process"
        return f"{self.name} pool process"


class Watcher(threading.Thread):
    """Samples ``/proc`` every ``SAMPLE_S``: every process ever seen in a node's session."""

    def __init__(self, nodes: list[Node]) -> None:
        super().__init__(name="chaos-watcher", daemon=True)
        self.nodes = nodes
        self.sessions: dict[int, Node] = {}
        self.seen: dict[tuple[int, int], tuple[str, str]] = {}
        self.load_max = os.getloadavg()[0]
        self.halt = threading.Event()
        self.lock = threading.Lock()

    def run(self) -> None:
        while not self.halt.is_set():
            self.sample()
            self.halt.wait(SAMPLE_S)

    def sample(self) -> list[Proc]:
        """Note the nodes' current sessions and every process in any of their sessions."""
        self.load_max = max(self.load_max, os.getloadavg()[0])
        with self.lock:
            for node in self.nodes:
                if node.leader is not None:
                    self.sessions[node.leader] = node
            ours = []
            for proc in all_procs():
                owner = self.sessions.get(proc.session)
                if owner is not None:
                    ours.append(proc)
                    self.seen.setdefault((proc.pid, proc.start), (owner.role(proc), proc.cmd))
            return ours

    def session_alive(self, session: int) -> list[Proc]:
        return [p for p in self.sample() if p.session == session and p.state not in ("Z", "X")]


def kill_targets(watcher: Watcher) -> list[tuple[Node, Proc, str]]:
    """Live masters and uvicorn workers of the web nodes and the worker nodes' processes."""
    targets = []
    for proc in watcher.sample():
        node = watcher.sessions[proc.session]
        if proc.state in ("Z", "X") or proc.session != node.leader:
            continue
        role = node.role(proc)
        if role.endswith(("master", "uvicorn worker", "worker process")):
            targets.append((node, proc, role))
    return targets


def uvicorn_workers(watcher: Watcher, node: Node) -> set[int]:
    return {
        p.pid
        for p in watcher.session_alive(node.leader or -1)
        if node.role(p).endswith("uvicorn worker")
    }


class Chaos(threading.Thread):
    """Every ``every`` seconds until ``until``: SIGKILL one target; a thread of its own
    mends what the kill broke, and its node is no target until it is mended."""

    def __init__(
        self, watcher: Watcher, rng: random.Random, every: float, until: float, start: float
    ) -> None:
        super().__init__(name="chaos-killer", daemon=True)
        self.watcher, self.rng, self.every, self.until = watcher, rng, every, until
        self.start_at = start
        self.kills: list[dict[str, Any]] = []
        self.child_restart_failures = 0
        self.restart_failures = 0
        self.survivors: list[str] = []
        self.halt = threading.Event()
        self.errors: list[BaseException] = []
        self.menders: list[threading.Thread] = []
        self.lock = threading.Lock()

    def run(self) -> None:
        try:
            self._run()
        except BaseException as exc:  # reported by the main thread
            self.errors.append(exc)

    def finish(self, timeout: float | None = None) -> None:
        """Stop killing and wait until every node is mended."""
        self.halt.set()
        self.join(timeout)
        for mender in self.menders:
            mender.join(timeout)

    def _run(self) -> None:
        due = time.monotonic() + self.every
        while due < self.until:
            if self.halt.wait(max(0.0, due - time.monotonic())):
                return
            targets = [t for t in kill_targets(self.watcher) if not t[0].busy.is_set()]
            if not targets:
                say(self.start_at, "no process to kill: every node is being mended")
                due += self.every
                continue
            node, proc, role = self.rng.choice(sorted(targets, key=lambda t: t[2]))
            if not alive(proc.pid, proc.start):
                continue  # gone meanwhile: choose again
            os.kill(proc.pid, signal.SIGKILL)
            node.busy.set()
            say(self.start_at, f"kill -9 {proc.pid} ({role})")
            kill: dict[str, Any] = {
                "t_s": round(time.monotonic() - self.start_at, 1),
                "role": role,
            }
            self.kills.append(kill)
            mender = threading.Thread(
                target=self._mend, args=(node, proc.pid, kill), name=f"mend-{node.name}"
            )
            mender.start()
            self.menders.append(mender)
            due += self.every

    def _mend(self, node: Node, pid: int, kill: dict[str, Any]) -> None:
        try:
            if pid == node.leader:
                kill["restart_s"] = self._restart(node, pid, kill)
            else:
                kill["child_restart_s"] = self._replaced(node, pid)
        except BaseException as exc:  # reported by the main thread
            self.errors.append(exc)
        finally:
            node.busy.clear()

    def _restart(self, node: Node, leader: int, kill: dict[str, Any]) -> float | None:
        """Start a node whose top process was killed, once its session is empty (the
        seconds that took go in ``kill``: ``session_end_s``); the seconds until it runs."""
        started = time.monotonic()
        assert node.runner.process is not None
        node.runner.process.wait(timeout=30)
        try:
            wait_until(
                lambda: not self.watcher.session_alive(leader),
                timeout=15,
                interval=0.1,
                what=f"{node.name}'s processes to end",
            )
        except WaitTimeout:
            left = self.watcher.session_alive(leader)
            with self.lock:
                self.survivors += [f"{node.role(p)} {p.pid}" for p in left]
            say(self.start_at, f"{node.name}: still alive after its top process died: {left}")
        kill["session_end_s"] = round(time.monotonic() - started, 1)
        for attempt in range(3):
            try:
                node.start()
                say(self.start_at, f"{node.name} started again (pid {node.leader})")
                return round(time.monotonic() - started, 1)
            except (RuntimeError, WaitTimeout) as exc:
                say(self.start_at, f"{node.name} failed to start (try {attempt + 1}): {exc}")
        with self.lock:
            self.restart_failures += 1
        return None

    def _replaced(self, node: Node, killed: int) -> float | None:
        """Wait until the master has two uvicorn workers again, the killed one not among
        them; the seconds that took (None: it did not within ``CHILD_RESTART_S``)."""
        started = time.monotonic()

        def replaced() -> bool:
            workers = uvicorn_workers(self.watcher, node)
            return len(workers) == 2 and killed not in workers

        try:
            wait_until(replaced, timeout=CHILD_RESTART_S, interval=0.1, what="a new worker")
        except WaitTimeout:
            with self.lock:
                self.child_restart_failures += 1
            say(self.start_at, f"{node.name}: the killed uvicorn worker was not replaced")
            return None
        return round(time.monotonic() - started, 1)


# -- the clients ------------------------------------------------------------------------------


class LostAnswer(Exception):
    """No answer to a request (a connection error or a 5xx), after every try allowed."""


@dataclass
class Ack:
    """An acknowledged move."""

    game: int
    user: str
    key: str
    expected: int
    seat: int
    action: dict[str, Any]
    replayed: bool
    retried: bool


@dataclass
class Timed:
    """A 5-second game, and the deadline of its seat to act as the API last reported it."""

    deadline: datetime
    seat: int
    #: The creator's move passed the turn to the invited seat (which is owed a your_turn).
    passed: bool


@dataclass
class Tally:
    """What the clients did and saw."""

    acks: list[Ack] = field(default_factory=list)
    unresolved: Counter[int] = field(default_factory=Counter)
    status_counts: Counter[str] = field(default_factory=Counter)
    refusals: Counter[str] = field(default_factory=Counter)
    requests: int = 0
    retried_ok: int = 0
    #: Creates, accepts and tickets whose answer was lost, found or sent again.
    recovered: int = 0
    move_latency: list[float] = field(default_factory=list)
    bot_games: set[int] = field(default_factory=set)
    left_waiting: int = 0
    bot_waits: list[float] = field(default_factory=list)
    timed: dict[int, Timed] = field(default_factory=dict)
    timed_read_late: int = 0
    matched: dict[int, int] = field(default_factory=dict)
    client_errors: Counter[str] = field(default_factory=Counter)


@dataclass
class Person:
    name: str
    headers: dict[str, str]
    games: set[int] = field(default_factory=set)
    tickets: set[int] = field(default_factory=set)
    waiting_ticket: int | None = None


class Client:
    """One client: its own connections, home node, role and users."""

    def __init__(
        self,
        number: int,
        session: aiohttp.ClientSession,
        bases: list[str],
        people: list[Person],
        tally: Tally,
        stop_at: float,
        think: float,
        seed: int,
    ) -> None:
        self.number, self.session, self.bases, self.people = number, session, bases, people
        self.home = number % len(bases)
        self.avoid_until = [0.0] * len(bases)
        self.tally, self.stop_at, self.think = tally, stop_at, think
        self.rng = random.Random(seed * 1000 + number)

    def stopping(self) -> bool:
        return time.monotonic() >= self.stop_at

    def _node(self) -> int:
        now = time.monotonic()
        if self.avoid_until[self.home] > now:
            other = 1 - self.home
            return other if self.avoid_until[other] <= now else self.home
        return self.home

    async def request(
        self,
        method: str,
        path: str,
        headers: dict[str, str],
        body: Any = None,
        *,
        retry: bool = True,
    ) -> tuple[int, Any, bool]:
        """Send until answered (``retry``) or once: the status, the JSON, whether attempts
        were lost first. Raises :class:`LostAnswer`."""
        node = self._node()
        lost = 0
        give_up = time.monotonic() + GIVE_UP_S
        self.tally.requests += 1
        while True:
            try:
                async with self.session.request(
                    method, self.bases[node] + path, json=body, headers=headers
                ) as answer:
                    status = answer.status
                    data = await answer.json(content_type=None)
                self.tally.status_counts[str(status)] += 1
                if status not in RETRY_STATUSES:
                    if lost:
                        self.tally.retried_ok += 1
                    return status, data, lost > 0
            except (aiohttp.ClientError, TimeoutError, ValueError) as exc:
                self.tally.status_counts[type(exc).__name__] += 1
            lost += 1
            self.avoid_until[node] = time.monotonic() + PREFER_OTHER_S
            node = 1 - node
            await asyncio.sleep(min(1.0, 0.1 * lost))
            if not retry or time.monotonic() > give_up:
                raise LostAnswer(f"{method} {path}")

    def _refused(self, what: str, status: int, data: Any) -> None:
        code = data.get("code") if isinstance(data, dict) else None
        self.tally.refusals[f"{what} {status} {code}"] += 1

    async def read(self, person: Person, game_id: int) -> dict[str, Any]:
        status, data, _ = await self.request("GET", f"{API}/games/{game_id}", person.headers)
        if status != 200:
            self._refused("read", status, data)
            raise RuntimeError(f"reading game {game_id}: {status} {data}")
        return dict(data)

    async def create_game(self, person: Person, body: dict[str, Any]) -> dict[str, Any]:
        """Create a game; one whose answer was lost is looked for in my games first."""
        while True:
            try:
                status, data, _ = await self.request(
                    "POST", f"{API}/games", person.headers, body, retry=False
                )
            except LostAnswer:
                self.tally.recovered += 1
                _, mine, _ = await self.request("GET", f"{API}/games", person.headers)
                new = [g["id"] for g in mine if g["id"] not in person.games]
                if new:
                    person.games.add(max(new))
                    return await self.read(person, max(new))
                continue
            if status == 201:
                person.games.add(data["id"])
                return dict(data)
            self._refused("create", status, data)
            await asyncio.sleep(1.0)

    async def accept(self, person: Person, game_id: int) -> None:
        """Accept an invitation; after a lost answer, the game may have started already."""
        while True:
            try:
                status, data, _ = await self.request(
                    "POST", f"{API}/games/{game_id}/accept", person.headers, retry=False
                )
            except LostAnswer:
                self.tally.recovered += 1
                if (await self.read(person, game_id))["status"] != "waiting":
                    return
                continue
            if status == 200:
                return
            self._refused("accept", status, data)
            if (await self.read(person, game_id))["status"] != "waiting":
                return
            await asyncio.sleep(1.0)

    async def move(self, person: Person, game: dict[str, Any]) -> dict[str, Any] | None:
        """One legal action at the version seen, with a key of its own, sent until answered;
        the answer, or None when refused (the caller reads the game again)."""
        enders = [a for a in game["legal"] if a.get("type") in FINISHING]
        legal = enders if enders and self.rng.random() < 0.5 else game["legal"]
        action = self.rng.choice(legal)
        key = uuid.uuid4().hex
        headers = {**person.headers, "Idempotency-Key": key}
        body = {"action": action, "expected_version": game["version"]}
        started = time.perf_counter()
        try:
            status, data, retried = await self.request(
                "POST", f"{API}/games/{game['id']}/actions", headers, body
            )
        except LostAnswer:
            self.tally.unresolved[game["id"]] += 1
            return None
        if status != 200:
            self._refused("move", status, data)
            return None
        self.tally.move_latency.append(time.perf_counter() - started)
        self.tally.acks.append(
            Ack(
                game["id"],
                person.name,
                key,
                game["version"],
                game["my_seat"],
                action,
                bool(data.get("replayed")),
                retried,
            )
        )
        if self.think:
            await asyncio.sleep(self.think)
        return dict(data)

    # -- roles ---------------------------------------------------------------------------------

    async def run(self, role: str) -> None:
        """Play ``role`` until the load stops; an unexpected error is counted, not fatal."""
        while not self.stopping():
            try:
                if role == "quick":
                    await self.play_bot("tenthousand", {"target": 3000}, "threshold")
                elif role == "slow":
                    await self.play_bot("boss", {}, "equilibrium")
                elif role == "timeout":
                    await self.time_out()
                else:
                    await self.automatch()
            except (RuntimeError, LostAnswer, KeyError, TypeError) as exc:
                self.tally.client_errors[f"{role}: {type(exc).__name__}"] += 1
                print(f"[chaos] client {self.number} ({role}): {exc!r}", file=sys.stderr)
                await asyncio.sleep(1.0)

    def _next_person(self, index: int) -> Person:
        return self.people[index % len(self.people)]

    async def play_bot(self, kind: str, options: dict[str, Any], bot: str) -> None:
        """One game against ``bot`` until it ends, the load stops, or the bot stalls."""
        person = self._next_person(self.rng.randrange(len(self.people)))
        body = {"game": kind, "options": options, "seats": ["me", f"bot:{bot}"]}
        game = await self.create_game(person, body)
        self.tally.bot_games.add(game["id"])
        waiting_since: float | None = None
        while game["status"] == "active" and not self.stopping():
            if game["your_turn"]:
                if waiting_since is not None:
                    self.tally.bot_waits.append(time.monotonic() - waiting_since)
                    waiting_since = None
                game = await self.move(person, game) or await self.read(person, game["id"])
                continue
            if waiting_since is None:
                waiting_since = time.monotonic()
            elif time.monotonic() - waiting_since > BOT_PATIENCE_S:
                self.tally.left_waiting += 1
                return
            await asyncio.sleep(0.2)
            game = await self.read(person, game["id"])

    async def time_out(self) -> None:
        """One 5-second game: the creator plays a little, the invited player never moves."""
        began = time.monotonic()
        pair = self.rng.randrange(len(self.people) // 2)
        a, b = self.people[2 * pair], self.people[2 * pair + 1]
        body = {
            "game": "tenthousand",
            "seats": ["me", f"user:{b.name}"],
            "pace": PACE,
            "vacation": False,
        }
        game_id = (await self.create_game(a, body))["id"]
        await self.accept(b, game_id)
        view = await self.read(a, game_id)
        moved = False
        until = time.monotonic() + FIRST_TURN_S
        while view["status"] == "active" and view["your_turn"] and time.monotonic() < until:
            answer = await self.move(a, view)
            moved = moved or answer is not None
            view = answer or await self.read(a, game_id)
        running = [c for c in (view.get("clock") or {}).get("seats", []) if c["running"]]
        if view["status"] != "active" or not running:
            self.tally.timed_read_late += 1  # ended by one of our own requests: not measured
        else:
            seat = running[0]["seat"]
            deadline = datetime.fromisoformat(running[0]["deadline"])
            self.tally.timed[game_id] = Timed(deadline, seat, passed=moved and seat == 1)
        await asyncio.sleep(max(0.0, TIMEOUT_GAME_EVERY_S - (time.monotonic() - began)))

    async def _tickets(self, person: Person) -> list[dict[str, Any]]:
        status, data, _ = await self.request("GET", f"{API}/automatch", person.headers)
        if status != 200:
            raise RuntimeError(f"listing tickets: {status} {data}")
        return list(data["tickets"])

    async def file_ticket(self, person: Person) -> int:
        """File a Boss Dice ticket; one whose answer was lost is looked for first."""
        body = {"game": "boss", "seats": [2, 2], "pace": "daily", "rated": False}
        while True:
            try:
                status, data, _ = await self.request(
                    "POST", f"{API}/automatch", person.headers, body, retry=False
                )
            except LostAnswer:
                self.tally.recovered += 1
                status, data = 0, None
            if status == 201:
                person.tickets.add(data["id"])
                return int(data["id"])
            if status not in (0, 409):
                self._refused("ticket", status, data)
                await asyncio.sleep(1.0)
                continue
            new = [t["id"] for t in await self._tickets(person) if t["id"] not in person.tickets]
            if new:
                person.tickets.add(max(new))
                return int(max(new))
            await asyncio.sleep(0.5)

    async def _matched(self, person: Person) -> bool:
        """Whether the person's waiting ticket was matched (noted in the tally)."""
        for ticket in await self._tickets(person):
            if ticket["id"] == person.waiting_ticket and ticket["status"] == "matched":
                self.tally.matched[ticket["id"]] = ticket["game_id"]
                person.waiting_ticket = None
                return True
        return False

    async def automatch(self) -> None:
        """Two users with no ticket waiting file one each; wait until both are matched."""
        free = [p for p in self.people if p.waiting_ticket is None]
        if len(free) < 2:
            for person in self.people:
                if person.waiting_ticket is not None:
                    await self._matched(person)
            await asyncio.sleep(0.5)
            return
        pair = self.rng.sample(free, 2)
        for person in pair:
            person.waiting_ticket = await self.file_ticket(person)
        until = time.monotonic() + MATCH_PATIENCE_S
        pending = list(pair)
        while pending and time.monotonic() < until and not self.stopping():
            await asyncio.sleep(0.5)
            pending = [p for p in pending if not await self._matched(p)]
        if self.think:
            await asyncio.sleep(self.think)


async def run_load(
    bases: list[str],
    people: list[list[Person]],
    seconds: float,
    think: float,
    seed: int,
) -> Tally:
    tally = Tally()
    stop_at = time.monotonic() + seconds
    timeout = aiohttp.ClientTimeout(total=30, sock_connect=5)
    sessions = [
        aiohttp.ClientSession(timeout=timeout, connector=aiohttp.TCPConnector(limit=4))
        for _ in people
    ]
    try:
        clients = [
            Client(i, sessions[i], bases, people[i], tally, stop_at, think, seed)
            for i in range(len(people))
        ]
        await asyncio.gather(*(c.run(ROLES[c.number % len(ROLES)]) for c in clients))
    finally:
        for session in sessions:
            await session.close()
    return tally


# -- the checks -------------------------------------------------------------------------------


def final_wait(url: str, timed: list[int], start: float) -> dict[str, int]:
    """Wait (at most ``FINAL_WAIT_S``) until nothing is left to do; what was left."""
    left: dict[str, int] = {}

    def done() -> bool:
        with psycopg.connect(url) as conn:
            left["bot_due"] = conn.execute(
                "SELECT count(*) FROM games WHERE status = 'active' AND bot_due"
            ).fetchone()[0]  # type: ignore[index]
            left["timed_active"] = conn.execute(
                "SELECT count(*) FROM games WHERE status = 'active' AND id = ANY(%s)", (timed,)
            ).fetchone()[0]  # type: ignore[index]
            left["tickets_waiting"] = conn.execute(
                "SELECT count(*) FROM automatch_tickets WHERE status = 'waiting'"
            ).fetchone()[0]  # type: ignore[index]
        if time.monotonic() >= report[0]:
            report[0] = time.monotonic() + 10
            say(start, f"final wait: {left}")
        return not any(left.values())

    report = [0.0]
    began = time.monotonic()
    with contextlib.suppress(WaitTimeout):
        wait_until(done, timeout=FINAL_WAIT_S, interval=0.5, what="the site to settle")
    left["final_wait_s"] = round(time.monotonic() - began)
    return left


def check_moves(conn: psycopg.Connection[Any], tally: Tally) -> dict[str, Any]:
    """Acknowledged moves against the idempotency keys and the event logs; bot turns and
    versions against the event logs."""
    users = dict(conn.execute("SELECT user_id, id FROM users").fetchall())
    keys = {
        (int(r[0]), str(r[1])): (int(r[2]), int(r[3]))
        for r in conn.execute("SELECT user_pk, key, game_id, version FROM idempotency_keys")
    }
    seats: dict[int, dict[int, tuple[int | None, str | None]]] = defaultdict(dict)
    for game_id, seat, user_pk, bot in conn.execute(
        "SELECT game_id, seat, user_pk, bot FROM game_seats"
    ):
        seats[game_id][seat] = (user_pk, bot)
    games = {
        r[0]: (r[1], r[2], r[3])
        for r in conn.execute("SELECT id, kind, version, event_count FROM games")
    }
    logs: dict[int, list[tuple[int, dict[str, Any], datetime]]] = defaultdict(list)
    for game_id, seq, data, created in conn.execute(
        "SELECT game_id, seq, data, created_at FROM game_events ORDER BY game_id, seq"
    ):
        logs[game_id].append((seq, json.loads(data), created))

    lost: set[int] = set()
    key_mismatch = 0
    for i, ack in enumerate(tally.acks):
        stored = keys.get((users[ack.user], ack.key))
        if stored != (ack.game, ack.expected + 1):
            lost.add(i)
            key_mismatch += 1
    acks_by_game: dict[int, list[int]] = defaultdict(list)
    for i, ack in enumerate(tally.acks):
        acks_by_game[ack.game].append(i)
    doubled = 0
    action_differs = 0
    version_behind = 0
    for game_id, indices in acks_by_game.items():
        indices.sort(key=lambda i: tally.acks[i].expected)
        people = {s for s, (user_pk, _) in seats[game_id].items() if user_pk is not None}
        acted = [
            e for _, e, _ in logs[game_id] if e.get("type") == "acted" and e.get("seat") in people
        ]
        for n, i in enumerate(indices):
            ack = tally.acks[i]
            if n >= len(acted):
                lost.add(i)
                continue
            event = acted[n]
            if event["seat"] != ack.seat or event["action"].get("type") != ack.action.get("type"):
                lost.add(i)
            elif event["action"] != ack.action:
                action_differs += 1
        doubled += max(0, len(acted) - len(indices) - tally.unresolved[game_id])
        if games[game_id][1] < max(tally.acks[i].expected for i in indices) + 1:
            version_behind += 1

    gaps = 0
    over_versions: list[int] = []
    doubled_bot = 0
    bot_delays: list[float] = []
    for game_id, (kind, version, event_count) in games.items():
        log = logs.get(game_id, [])
        if [seq for seq, _, _ in log] != list(range(event_count)):
            gaps += 1
        commits = len({created for _, _, created in log})
        if commits > version:
            over_versions.append(game_id)
        bots = {s for s, (_, bot) in seats[game_id].items() if bot is not None}
        if not bots:
            continue
        if commits > version:
            doubled_bot += 1
        for (_, before, at_before), (_, event, at) in itertools.pairwise(log):
            if (
                event.get("type") == "acted"
                and event.get("seat") in bots
                and before == event
                and at_before != at
            ):
                doubled_bot += 1
        slow = {
            s
            for s, (_, bot) in seats[game_id].items()
            if bot is not None and bot in dicehall_games.get(kind).slow_bots
        }
        # Each commit's events share its timestamp: a commit that begins with a slow bot's
        # action came that long after the one before it, which left the bot due.
        firsts = [(at, e) for i, (_, e, at) in enumerate(log) if i == 0 or log[i - 1][2] != at]
        for (at_before, _), (at, event) in itertools.pairwise(firsts):
            if event.get("type") == "acted" and event.get("seat") in slow:
                bot_delays.append((at - at_before).total_seconds())
    return {
        "slow_bot_turns": len(bot_delays),
        "slow_bot_turn_delay_p50_s": percentile(bot_delays, 0.5),
        "slow_bot_turn_delay_p99_s": percentile(bot_delays, 0.99),
        "slow_bot_turn_delay_max_s": round(max(bot_delays), 2) if bot_delays else None,
        "slow_bot_turns_over_30_s": sum(1 for d in bot_delays if d > 30),
        "lost_moves": len(lost),
        "doubled_moves": doubled,
        "key_rows_missing_or_wrong": key_mismatch,
        "acked_action_differs_from_log": action_differs,
        "games_behind_acknowledged_version": version_behind,
        "event_log_gaps": gaps,
        "commits_over_versions": len(over_versions),
        "doubled_bot_turns": doubled_bot,
        "bot_games": sorted(g for g in games if any(b for _, b in seats[g].values())),
    }


def check_timeouts(conn: psycopg.Connection[Any], tally: Tally) -> dict[str, Any]:
    rows = conn.execute(
        "SELECT game_id, seat, count(*) FROM seat_timeouts GROUP BY game_id, seat"
    ).fetchall()
    doubled = sum(n - 1 for _, _, n in rows if n > 1)
    timed_out: dict[int, set[int]] = defaultdict(set)
    for game_id, seat, _ in rows:
        timed_out[game_id].add(seat)
    ended = {
        r[0]: (r[1], r[2])
        for r in conn.execute(
            "SELECT id, status, ended_at FROM games WHERE id = ANY(%s)", (list(tally.timed),)
        )
    }
    missing = 0
    wrong_seat = 0
    delays = []
    for game_id, timed in tally.timed.items():
        status, ended_at = ended[game_id]
        if status == "active" or ended_at is None or not timed_out[game_id]:
            missing += 1
            continue
        if timed_out[game_id] != {timed.seat}:
            wrong_seat += 1
        delays.append((ended_at - timed.deadline).total_seconds())
    return {
        "timeout_games": len(tally.timed),
        "timeout_games_read_after_end": tally.timed_read_late,
        "timeouts_missing": missing,
        "timeouts_wrong_seat": wrong_seat,
        "timeouts_doubled": doubled,
        "timeout_delay_p50_s": round(statistics.median(delays), 3) if delays else None,
        "timeout_delay_p99_s": percentile(delays, 0.99),
        "timeout_delay_max_s": round(max(delays), 3) if delays else None,
    }


def check_pairings(conn: psycopg.Connection[Any], tally: Tally) -> dict[str, Any]:
    tickets = conn.execute("SELECT id, user_pk, status, game_id FROM automatch_tickets").fetchall()
    by_game: dict[int, list[int]] = defaultdict(list)
    for _, user_pk, status, game_id in tickets:
        if status == "matched":
            by_game[game_id].append(user_pk)
    drawn: dict[int, list[int | None]] = defaultdict(list)
    for game_id, user_pk in conn.execute(
        "SELECT s.game_id, s.user_pk FROM game_seats s JOIN games g ON g.id = s.game_id "
        "WHERE g.seat_draw IS NOT NULL"
    ):
        drawn[game_id].append(user_pk)
    doubled = sum(1 for players in by_game.values() if len(players) != 2)
    doubled += sum(1 for g in drawn if g not in by_game)
    doubled += sum(
        1
        for g, players in by_game.items()
        if sorted(players) != sorted(p for p in drawn.get(g, []) if p is not None)
        or len(set(players)) != len(players)
    )
    stored = {t[0]: t[3] for t in tickets}
    doubled += sum(1 for t, g in tally.matched.items() if stored.get(t) != g)
    return {
        "pairings": len(by_game),
        "pairings_seen_by_clients": len(set(tally.matched.values())),
        "pairings_doubled": doubled,
        "tickets_unmatched": sum(1 for t in tickets if t[2] == "waiting"),
    }


def check_notifications(conn: psycopg.Connection[Any], tally: Tally) -> dict[str, Any]:
    rows = conn.execute(
        "SELECT user_pk, kind, game_id, count(*) FROM notifications GROUP BY 1, 2, 3"
    ).fetchall()
    have = {(u, k, g) for u, k, g, _ in rows}
    doubled: Counter[str] = Counter()
    for _, kind, _, n in rows:
        if n > 1:
            doubled[kind] += n - 1
    owed: list[tuple[int, str, int]] = []
    for game_id, user_pk in conn.execute(
        "SELECT game_id, user_pk FROM seat_timeouts WHERE user_pk IS NOT NULL"
    ):
        owed.append((user_pk, "timed_out", game_id))
    for user_pk, game_id in conn.execute(
        "SELECT user_pk, game_id FROM automatch_tickets WHERE status = 'matched'"
    ):
        owed.append((user_pk, "automatch", game_id))
    passed = [g for g, t in tally.timed.items() if t.passed]
    for game_id, user_pk in conn.execute(
        "SELECT game_id, user_pk FROM game_seats WHERE seat = 1 AND game_id = ANY(%s)", (passed,)
    ):
        owed.append((user_pk, "your_turn", game_id))
    missing: Counter[str] = Counter(kind for u, kind, g in owed if (u, kind, g) not in have)
    return {
        "notifications": sum(n for _, _, _, n in rows),
        "notifications_doubled": sum(doubled.values()),
        "notifications_doubled_by_kind": dict(doubled),
        "notifications_missing": sum(missing.values()),
        "notifications_missing_by_kind": dict(missing),
    }


def replay_check(url: str) -> dict[str, Any]:
    """``dicehall check`` on the run's database: every game replays to its snapshot."""
    out = subprocess.run(
        [sys.executable, "-m", "dicehall", "check", "--db", url, "--json"],
        capture_output=True,
        text=True,
        env={**os.environ, "DICEHALL_PLUGINS": ""},
        check=False,
    )
    try:
        found: dict[str, Any] = json.loads(out.stdout)
    except ValueError:
        return {"ok": False, "checked": 0, "discrepancies": [{"id": None, "problem": out.stderr}]}
    return found


def find_orphans(watcher: Watcher, database: str) -> list[str]:
    """Processes of the run still alive: every one ever seen in a node's session, and any
    naming the database."""
    left = []
    with watcher.lock:
        seen = dict(watcher.seen)
    for (pid, start), (role, _) in seen.items():
        if alive(pid, start):
            left.append(f"{pid} {role}")
    for proc in all_procs():
        if (
            database in proc.cmd
            and proc.pid != os.getpid()
            and proc.state not in ("Z", "X")
            and (proc.pid, proc.start) not in seen
        ):
            left.append(f"{proc.pid} {proc.cmd[:120]}")
    return left


def kill_orphans(watcher: Watcher) -> None:
    with watcher.lock:
        seen = list(watcher.seen)
    for pid, start in seen:
        if alive(pid, start):
            os.kill(pid, signal.SIGKILL)


# -- the run ----------------------------------------------------------------------------------


def make_people(url: str, clients: int) -> list[list[Person]]:
    """Each client's users, straight into the database with API tokens."""
    services = build_services(site_settings(url))
    try:
        people = []
        for i in range(clients):
            count = {"quick": 4, "slow": 4, "timeout": 12, "automatch": 40}[ROLES[i % len(ROLES)]]
            people.append(
                [
                    Person(name, add_user(services, name))
                    for name in (f"c{i}u{j}" for j in range(count))
                ]
            )
        return people
    finally:
        services.engine.dispose()


def outage(kills: list[dict[str, Any]], first: str, second: str) -> float:
    """Seconds both nodes were down at once (from the kill of a node's top process until
    it ran again)."""

    def spans(name: str) -> list[tuple[float, float]]:
        return [
            (k["t_s"], k["t_s"] + (k["restart_s"] or 0.0))
            for k in kills
            if k["role"].split(" ", 1)[0] == name and "restart_s" in k
        ]

    both = sum(
        max(0.0, min(end, end2) - max(begin, begin2))
        for begin, end in spans(first)
        for begin2, end2 in spans(second)
    )
    return round(both, 1)


def summary(
    args: argparse.Namespace,
    tally: Tally,
    chaos: Chaos,
    watcher: Watcher,
    found: dict[str, Any],
) -> dict[str, Any]:
    moves = found.pop("moves")
    replay = found.pop("replay")
    bot_games = set(moves.pop("bot_games"))
    timeouts = found.pop("timeouts")
    problems = replay.get("discrepancies", [])
    bot_replays = sum(1 for d in problems if d.get("id") in bot_games)
    roles = Counter(role.split(" ", 1)[1] for role, _ in watcher.seen.values())
    lat = sorted(tally.move_latency) or [0.0]
    report: dict[str, Any] = {
        "lost_moves": moves.pop("lost_moves"),
        "doubled_moves": moves.pop("doubled_moves"),
        "replay_mismatches": len(problems),
        "replay_mismatch_examples": problems[:5],
        "replay_games_checked": replay.get("checked"),
        "doubled_bot_turns": moves.pop("doubled_bot_turns") + bot_replays,
        "bot_turns_stuck": found["left"]["bot_due"],
        **moves,
        **timeouts,
        **found.pop("pairings"),
        **found.pop("notifications"),
        "orphans": len(found["orphans"]),
        "orphan_details": found["orphans"],
        "survivors_of_killed_top_processes": chaos.survivors,
        "kills": len(chaos.kills),
        "kills_by_role": dict(Counter(k["role"].split(" ", 1)[1] for k in chaos.kills)),
        "kill_log": chaos.kills,
        "web_outage_s": outage(chaos.kills, "web0", "web1"),
        "worker_outage_s": outage(chaos.kills, "worker0", "worker1"),
        "restart_failures": chaos.restart_failures,
        "child_restart_failures": chaos.child_restart_failures,
        "moves_acknowledged": len(tally.acks),
        "moves_replayed": sum(1 for a in tally.acks if a.replayed),
        "moves_retried": sum(1 for a in tally.acks if a.retried),
        "moves_unresolved": sum(tally.unresolved.values()),
        "move_latency_ms": {
            "p50": round(1000 * statistics.median(lat), 1),
            "p99": round(1000 * lat[min(len(lat) - 1, int(0.99 * len(lat)))], 1),
            "max": round(1000 * lat[-1], 1),
        },
        "bot_games_played": len(tally.bot_games),
        "games_left_waiting_on_bot": tally.left_waiting,
        "bot_wait_p50_s": percentile(tally.bot_waits, 0.5),
        "bot_wait_p99_s": percentile(tally.bot_waits, 0.99),
        "bot_wait_max_s": round(max(tally.bot_waits), 2) if tally.bot_waits else None,
        "requests": tally.requests,
        "requests_failed_then_retried": tally.retried_ok + tally.recovered,
        "writes_lost_then_recovered": tally.recovered,
        "status_counts": dict(sorted(tally.status_counts.items())),
        "refusals": dict(sorted(tally.refusals.items())),
        "client_errors": dict(tally.client_errors),
        "left_after_final_wait": found["left"],
        "processes_seen": dict(sorted(roles.items())),
        "load_average_1m": found["load"],
        "duration_s": found["duration_s"],
        "minutes": args.minutes,
        "kill_every_s": args.kill_every,
        "clients": args.clients,
        "seed": args.seed,
        "think_ms": args.think_ms,
    }
    zero = [
        "lost_moves",
        "doubled_moves",
        "replay_mismatches",
        "doubled_bot_turns",
        "bot_turns_stuck",
        "event_log_gaps",
        "commits_over_versions",
        "key_rows_missing_or_wrong",
        "games_behind_acknowledged_version",
        "timeouts_missing",
        "timeouts_wrong_seat",
        "timeouts_doubled",
        "pairings_doubled",
        "tickets_unmatched",
        "notifications_doubled",
        "notifications_missing",
        "orphans",
        "restart_failures",
        "child_restart_failures",
        "moves_unresolved",
    ]
    p99 = report["timeout_delay_p99_s"]
    report["targets_failed"] = [k for k in zero if report[k]]
    if p99 is None or p99 > 5:
        report["targets_failed"].append("timeout_delay_p99_s")
    for k in ("kills", "moves_acknowledged", "timeout_games", "pairings"):
        if not report[k]:
            report["targets_failed"].append(f"{k} (none)")
    report["targets_met"] = not report["targets_failed"]
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--kill-every", type=float, default=20.0)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--think-ms", type=float, default=0.0, help="pause after each move")
    parser.add_argument("--keep-logs", action="store_true", help="keep the nodes' log files")
    args = parser.parse_args()
    begun = time.monotonic()
    load_start = os.getloadavg()[0]
    database = f"dicehall_chaos_{uuid.uuid4().hex[:10]}"
    url = f"postgresql://postgres@127.0.0.1:5432/{database}"
    redis_url = f"redis://127.0.0.1:6379/{REDIS_DB}"
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{database}"')
    redis.Redis.from_url(redis_url).flushdb()
    nodes = [
        Node(f"web{i}", LiveServer(url, redis_url, workers=2, background=False)) for i in range(2)
    ]
    nodes += [
        Node(f"worker{i}", LiveWorker(url, redis_url, environ={"DICEHALL_BOT_WORKERS": "1"}))
        for i in range(2)
    ]
    watcher = Watcher(nodes)
    watcher.start()
    chaos: Chaos | None = None
    found: dict[str, Any] = {}
    try:
        for node in nodes:  # one after the other: the first migrates
            node.start()
            say(begun, f"{node.name} runs (pid {node.leader})")
        people = make_people(url, args.clients)
        seconds = 60 * args.minutes
        load_begun = time.monotonic()
        chaos = Chaos(
            watcher, random.Random(args.seed), args.kill_every, load_begun + seconds, begun
        )
        chaos.start()
        bases = [n.runner.base for n in nodes if isinstance(n.runner, LiveServer)]
        tally = asyncio.run(run_load(bases, people, seconds, args.think_ms / 1000, args.seed))
        say(begun, f"load stopped: {len(tally.acks)} moves acknowledged")
        chaos.finish()
        if chaos.errors:
            raise chaos.errors[0]
        found["left"] = final_wait(url, list(tally.timed), begun)
        found["duration_s"] = round(time.monotonic() - load_begun, 1)
        found["load"] = {
            "start": round(load_start, 2),
            "max": round(watcher.load_max, 2),
            "end": round(os.getloadavg()[0], 2),
        }
        for node in nodes:
            node.runner.stop()
        say(begun, "every node stopped (SIGTERM)")
        orphans: list[str] = []

        def settled() -> bool:
            orphans[:] = find_orphans(watcher, database)
            return not orphans

        try:
            wait_until(settled, timeout=FINAL_EXIT_S, interval=0.2, what="the nodes to exit")
        except WaitTimeout:
            say(begun, f"orphans: {orphans}")
        found["orphans"] = orphans
        with psycopg.connect(url) as conn:
            found["moves"] = check_moves(conn, tally)
            found["timeouts"] = check_timeouts(conn, tally)
            found["pairings"] = check_pairings(conn, tally)
            found["notifications"] = check_notifications(conn, tally)
        say(begun, "dicehall check ...")
        found["replay"] = replay_check(url)
        report = summary(args, tally, chaos, watcher, found)
    finally:
        if chaos is not None:
            chaos.finish(timeout=3 * START_S)
        for node in nodes:
            node.runner.stop()
        watcher.halt.set()
        watcher.join()
        kill_orphans(watcher)
        with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
        redis.Redis.from_url(redis_url).flushdb()
        logs = [log for node in nodes for log in node.logs]
        if args.keep_logs:
            say(begun, f"logs: {' '.join(logs)}")
        else:
            for log in logs:
                Path(log).unlink(missing_ok=True)
    print(json.dumps(report))


if __name__ == "__main__":
    main()
