"""Health probes: ``GET /healthz`` (the process runs) and ``GET /readyz`` (it can serve).

``/healthz`` always answers 200 ``{"status": "ok"}``. ``/readyz`` answers 200
``{"status": "ok", "database": "ok", "redis": "ok"}`` when the database answers
``SELECT 1`` and, where Redis is configured, Redis answers PING, each within
:data:`CHECK_SECONDS`; otherwise 503 with ``"status": "unavailable"`` and ``"unavailable"``
or ``"timeout"`` for the part that failed (``"redis"`` is null without Redis). The reason
is logged at WARNING, not sent: the probes need no sign-in, so they say nothing about the
infrastructure. Neither probe is rate limited.

Checks run in a small pool of threads of their own, never on the event loop; while a check
of one part is still running (a database that hangs on connect), later probes wait for that
same check rather than start more.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
from collections.abc import Callable
from typing import Any

import redis
from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from redis.backoff import NoBackoff
from redis.retry import Retry
from sqlalchemy import Engine, text

from dicehall.server.domain.services import Services

log = logging.getLogger(__name__)

#: Seconds each part has to answer.
CHECK_SECONDS = 2.0

_CHECKS = concurrent.futures.ThreadPoolExecutor(max_workers=2, thread_name_prefix="dicehall-ready")
_lock = threading.Lock()
#: The check of each part now running (by part and target), shared by concurrent probes.
_running: dict[tuple[str, str], concurrent.futures.Future[None]] = {}


def check_database(engine: Engine) -> None:
    """Raise unless the database answers ``SELECT 1``."""
    with engine.connect() as conn:
        conn.execute(text("SELECT 1")).scalar_one()


def check_redis(url: str, timeout: float = CHECK_SECONDS) -> None:
    """Raise unless Redis at ``url`` answers PING within ``timeout`` seconds."""
    client = redis.Redis.from_url(
        url,
        socket_connect_timeout=timeout,
        socket_timeout=timeout,
        retry=Retry(NoBackoff(), 0),  # one try: a probe answers now, it does not persevere
    )
    try:
        if not client.ping():
            raise redis.RedisError("PING was not answered")
    finally:
        client.close()


async def probe(part: str, target: str, check: Callable[[], None]) -> str:
    """``ok``, ``timeout`` or ``unavailable``: how ``check`` of ``part`` went, in a thread."""
    key = (part, target)
    with _lock:
        running = _running.get(key)
        started = running is None
        if running is None:
            running = _running[key] = _CHECKS.submit(check)
    if started:
        running.add_done_callback(lambda done: _forget(key, done))
    try:
        async with asyncio.timeout(CHECK_SECONDS):
            await asyncio.shield(asyncio.wrap_future(running))
    except TimeoutError:
        log.warning("readiness: the %s did not answer within %.1f s", part, CHECK_SECONDS)
        return "timeout"
    except Exception as exc:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        log.warning("readiness: the %s is unavailable: %s: %s", part, type(exc).__name__, reason)
        return "unavailable"
    return "ok"


def _forget(key: tuple[str, str], done: concurrent.futures.Future[None]) -> None:
    with _lock:
        if _running.get(key) is done:
            del _running[key]


async def readiness(services: Services) -> tuple[bool, dict[str, Any]]:
    """Whether the site can serve, and the report ``/readyz`` answers with."""
    engine = services.engine
    url = services.settings.redis_url
    where = engine.url.render_as_string(hide_password=False)
    checks = [probe("database", where, lambda: check_database(engine))]
    if url:
        checks.append(probe("redis", url, lambda: check_redis(url)))
    results = await asyncio.gather(*checks)
    database = results[0]
    cache = results[1] if url else None
    ready = database == "ok" and cache in (None, "ok")
    return ready, {
        "status": "ok" if ready else "unavailable",
        "database": database,
        "redis": cache,
    }


router = APIRouter(tags=["operations"])


@router.get("/healthz", include_in_schema=False)
async def healthz() -> dict[str, str]:
    """The process is running."""
    return {"status": "ok"}


@router.get("/readyz", include_in_schema=False)
async def readyz(request: Request) -> JSONResponse:
    """The database (and Redis, if configured) answer: 200, else 503 naming the failure."""
    ready, report = await readiness(request.app.state.services)
    return JSONResponse(report, status_code=200 if ready else 503)
