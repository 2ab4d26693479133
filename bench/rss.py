"""The site's memory once its slow bots are warm; prints one JSON object.

    python bench/rss.py [--bot-workers 2] [--timeout 900] [--data DIR]

Starts ``dicehall serve`` (one web process) on a fresh SQLite database with
``DICEHALL_WARM_BOTS=1`` and ``--bot-workers`` bot processes, waits until every slow bot of
every installed game reports its tables ready for its game's default options
(``bot_tables``), then reads each process of the server's session: RSS and PSS (proportional
set size: a page shared by N processes counts 1/N to each, so memory-mapped tables shared by
the bot processes count once) from ``/proc/<pid>/smaps_rollup``. ``--data`` keeps the solver
tables between runs (a warm restart loads them; default: a temporary directory, so the first
run builds them). Reported: each process's role, RSS and PSS in MiB, and the totals; the
issue's target is 300 MiB for the web process and two bot workers.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' live server
from tests.live import LiveServer, test_environment

from dicehall import games
from dicehall.engine import codec
from dicehall.server.core.config import Settings
from dicehall.server.domain import bot_tables
from dicehall.server.domain.services import build_services
from dicehall.server.workers.botstatus import options_key

TARGET_MIB = 300


def expected_keys() -> set[tuple[str, str, str]]:
    """Every slow bot's key for its game's default options (what warming builds)."""
    keys: set[tuple[str, str, str]] = set()
    for kind in games.available():
        entry = games.get(kind)
        options = options_key(codec.encode(entry.game.options({})))
        keys.update((kind, bot, options) for bot in entry.slow_bots)
    return keys


def memory_kib(pid: int) -> tuple[int, int] | None:
    """RSS and PSS of ``pid`` in KiB (None once it is gone)."""
    try:
        text = Path(f"/proc/{pid}/smaps_rollup").read_text()
    except OSError:
        return None
    fields = {line.split(":")[0]: line.split()[1] for line in text.splitlines()[1:]}
    return int(fields["Rss"]), int(fields["Pss"])


def session_processes(session: int) -> list[tuple[int, str]]:
    """The processes of ``session`` with their command lines."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            command = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if int(stat[3]) == session:
            found.append((int(entry), command.strip()))
    return found


def role(command: str) -> str:
    if "resource_tracker" in command:
        return "resource tracker"
    if "multiprocessing" in command or "spawn_main" in command:
        return "bot or hint process"
    return "web process"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--bot-workers", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=900.0)
    parser.add_argument("--data", default=None, help="data directory (kept tables)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        data = args.data or f"{work}/data"
        environ = {
            **test_environment(""),
            "DICEHALL_DATA": data,
            "DICEHALL_WARM_BOTS": "1",
            "DICEHALL_BOT_WORKERS": str(args.bot_workers),
        }
        url = f"sqlite:///{work}/rss.sqlite3"
        server = LiveServer(url)
        started = time.monotonic()
        server.launch(environ)
        server.wait_ready(120)
        services = build_services(Settings(db_url=url))
        wanted = expected_keys()
        try:
            while True:
                with services.read_conn() as conn:
                    ready = {k for k, w in bot_tables.every(conn).items() if w.ready_at}
                if wanted <= ready:
                    break
                if time.monotonic() - started > args.timeout:
                    raise SystemExit(f"not warm in {args.timeout:.0f} s: {sorted(wanted - ready)}")
                time.sleep(1.0)
            warm_s = time.monotonic() - started
            assert server.process is not None
            rows: list[dict[str, Any]] = []
            for pid, command in session_processes(server.process.pid):
                measured = memory_kib(pid)
                if measured is not None:
                    rows.append(
                        {
                            "pid": pid,
                            "role": role(command),
                            "rss_mib": round(measured[0] / 1024, 1),
                            "pss_mib": round(measured[1] / 1024, 1),
                        }
                    )
        finally:
            server.stop()
            services.engine.dispose()
    total_rss = round(sum(r["rss_mib"] for r in rows), 1)
    total_pss = round(sum(r["pss_mib"] for r in rows), 1)
    print(
        json.dumps(
            {
                "bot_workers": args.bot_workers,
                "warm_after_s": round(warm_s, 1),
                "tables_kept": args.data is not None,
                "processes": rows,
                "total_rss_mib": total_rss,
                "total_pss_mib": total_pss,
                "target_mib": TARGET_MIB,
                "met": total_pss <= TARGET_MIB,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
