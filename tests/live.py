"""A real server in a subprocess (uvicorn on 127.0.0.1), for tests, crash checks and benchmarks.

It lives with the tests, not in the package: benchmarks put the repository root on the path.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import socket
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from multiprocessing.context import ForkServerProcess
from typing import IO, Any, Protocol

import httpx2

from dicehall.server.core.clock import now
from dicehall.server.core.models import User
from dicehall.server.core.security import issue_api_token
from dicehall.server.domain.services import Services
from tests.waiting import WaitTimeout, wait_until


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


#: What a forked server's parent imports once: a fork of it starts serving without importing
#: the site again (the imports are most of a server's start).
_PRELOAD = ["tests.forked_site"]


class ServerProcess(Protocol):
    """What the tests use of a server's process: a ``Popen`` or a :class:`ForkedServer`."""

    pid: int

    def poll(self) -> int | None: ...

    def wait(self, timeout: float | None = None) -> int: ...


class ForkedServer:
    """``dicehall serve`` in a fork of a process that preloaded the site (the standard
    library's forkserver), in a session of its own like a ``Popen(start_new_session=True)``."""

    def __init__(self, argv: list[str], env: dict[str, str], log_path: str) -> None:
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(_PRELOAD)
        self._child: ForkServerProcess = context.Process(
            target=_serve_forked, args=(argv, env, log_path, os.getcwd()), daemon=False
        )
        self._child.start()
        assert self._child.pid is not None
        self.pid: int = self._child.pid

    def poll(self) -> int | None:
        """The exit status, or None while it runs."""
        return self._child.exitcode

    def wait(self, timeout: float | None = None) -> int:
        """Wait for the end (``subprocess.TimeoutExpired`` past ``timeout``)."""
        self._child.join(timeout)
        if self._child.exitcode is None:
            raise subprocess.TimeoutExpired("dicehall serve", timeout or 0)
        return self._child.exitcode


def _serve_forked(argv: list[str], env: dict[str, str], log_path: str, cwd: str) -> None:
    """The child's side of :class:`ForkedServer`: the command line, as ``python -m
    dicehall`` would run it, with its output in the log."""
    os.setsid()
    os.environ.clear()
    os.environ.update(env)
    sys.path.insert(0, cwd)
    with open(log_path, "ab") as log, open(os.devnull, "rb") as nothing:
        os.dup2(nothing.fileno(), 0)
        os.dup2(log.fileno(), 1)
        os.dup2(log.fileno(), 2)
    from dicehall.cli.main import run

    sys.exit(run(argv))


def test_environment(plugins: str, environ: dict[str, str] | None = None) -> dict[str, str]:
    """The environment a test's server or worker runs in (``environ``: the one to start
    from, this process's by default)."""
    env = {
        # Slow bots build their tables when a test first needs them, not at every start.
        "DICEHALL_WARM_BOTS": "0",
        "DICEHALL_BOT_WORKERS": "1",
        # A cold hint worker takes seconds to spawn on a loaded CI machine.
        "DICEHALL_HINT_SECONDS": "60",
        # One JSON line per request would only fill the log file of a test or benchmark.
        "DICEHALL_ACCESS_LOG": "0",
        # No scheduled tournaments in a test's site unless it asks for them.
        "DICEHALL_TOURNAMENT_SCHEDULE": "",
        # Longer than the browser's own keep-alive, so that Chromium never sends a request on
        # a connection the server is just closing (an ECONNRESET in the test).
        "DICEHALL_KEEP_ALIVE_SECONDS": "120",
        # Small decks: each is hashed whole when made and when a proof is served.
        "DICEHALL_DECK_KEYS": "256",
        "DICEHALL_DECK_SHUFFLES": "32",
        # A mail never lands in the real data directory.
        "DICEHALL_MAIL_DIR": os.path.join(tempfile.gettempdir(), "dicehall-test-mail-live"),
        **(os.environ if environ is None else environ),
        "DICEHALL_PLUGINS": plugins,
    }
    env["PYTHONPATH"] = os.getcwd() + os.pathsep + env.get("PYTHONPATH", "")
    return env


@dataclass
class LiveServer:
    """``dicehall serve`` running as a child process."""

    db_url: str
    redis_url: str | None = None
    port: int = field(default_factory=free_port)
    workers: int = 1
    #: ``module:function`` entries for DICEHALL_PLUGINS (extra games).
    plugins: str = ""
    #: False: ``--no-background`` (bots, clocks and jobs left to ``dicehall worker``).
    background: bool = True
    process: ServerProcess | None = None
    log: IO[Any] = field(init=False)

    @property
    def base(self) -> str:
        """The server's base URL."""
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 30.0) -> None:
        """Start the server and wait until it answers."""
        self.launch()
        self.wait_ready(timeout)

    def launch(self, environ: dict[str, str] | None = None, forked: bool = False) -> None:
        """Start the server without waiting for it (``environ``: the environment to start it
        in, this process's by default; ``forked``: as a :class:`ForkedServer`)."""
        args = ["serve", "--db", self.db_url]
        args += ["--port", str(self.port), "--workers", str(self.workers)]
        if self.redis_url:
            args += ["--redis", self.redis_url]
        if not self.background:
            args.append("--no-background")
        env = test_environment(self.plugins, environ)
        self.log = tempfile.NamedTemporaryFile(  # noqa: SIM115 - lives as long as the server
            prefix="dicehall-server-", suffix=".log", delete=False
        )
        if forked:
            self.process = ForkedServer(args, env, self.log.name)
            return
        self.process = subprocess.Popen(
            [sys.executable, "-m", "dicehall", *args],
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def wait_ready(self, timeout: float = 30.0) -> None:
        """Wait until the launched server answers (stop it and raise if it does not)."""
        process = self.process
        assert process is not None, "launch() first"

        def answers() -> bool:
            if process.poll() is not None:
                raise RuntimeError(f"server exited early: {self.log_tail()}")
            try:
                return httpx2.get(f"{self.base}/api/v1/games/kinds", timeout=1).status_code == 200
            except httpx2.HTTPError:
                return False

        try:
            wait_until(answers, timeout=timeout, interval=0.1, what="the server to answer")
        except WaitTimeout:
            self.stop()
            raise RuntimeError("server did not start in time") from None

    def log_tail(self, size: int = 4000) -> str:
        """The end of the server's output."""
        with open(self.log.name, "rb") as handle:
            return handle.read()[-size:].decode(errors="replace")

    def kill(self) -> None:
        """SIGKILL the whole server (every worker), as a crash would."""
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)

    def stop(self) -> None:
        """Stop the server politely, or kill it."""
        if self.process is None or self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.kill()


@dataclass
class LiveWorker:
    """``dicehall worker`` running as a child process (in a session of its own)."""

    db_url: str
    redis_url: str | None = None
    plugins: str = ""
    environ: dict[str, str] = field(default_factory=dict)
    process: subprocess.Popen[bytes] | None = None
    log: IO[Any] = field(init=False)

    def start(self, timeout: float = 60.0) -> None:
        """Start the worker and wait until it says it runs."""
        args = ["worker", "--db", self.db_url]
        if self.redis_url:
            args += ["--redis", self.redis_url]
        env = {**test_environment(self.plugins), **self.environ}
        self.log = tempfile.NamedTemporaryFile(  # noqa: SIM115 - lives as long as the worker
            prefix="dicehall-worker-", suffix=".log", delete=False
        )
        self.process = subprocess.Popen(
            [sys.executable, "-m", "dicehall", *args],
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        process = self.process

        def running() -> bool:
            if process.poll() is not None:
                raise RuntimeError(f"worker exited early: {self.log_tail()}")
            return "worker running" in self.log_tail(1 << 20)

        wait_until(running, timeout=timeout, interval=0.1, what="the worker to run")

    def log_tail(self, size: int = 4000) -> str:
        """The end of the worker's output."""
        with open(self.log.name, "rb") as handle:
            return handle.read()[-size:].decode(errors="replace")

    def stop(self) -> int | None:
        """SIGTERM the worker's session and wait; its exit status (None: it had to be
        killed)."""
        if self.process is None or self.process.poll() is not None:
            return None if self.process is None else self.process.returncode
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            return self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)
            return None


def add_user(services: Services, name: str, password_hash: str = "unused") -> dict[str, str]:
    """A user with an API token, straight into the database; returns bearer headers."""
    with services.writers() as db, db.begin():
        user = User(
            user_id=name,
            key=name.lower(),
            password_hash=password_hash,
            display_name=name,
            about="",
            created_at=now(),
        )
        db.add(user)
        db.flush()
        secret, _ = issue_api_token(db, user, "tests")
    return {"Authorization": f"Bearer {secret}"}
