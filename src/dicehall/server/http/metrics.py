"""``GET /metrics``: the site's numbers in Prometheus' text format.

Each application has its own registry (never the library's global one), so tests may build
many applications in one process. What is exported:

- ``dicehall_http_request_duration_seconds{route,method,status}``: a histogram of request
  latency by route template (``unmatched`` when no route matched), method and status class
  (``2xx``, ``4xx``, ...).
- ``dicehall_move_duration_seconds{status}``: a histogram of moves
  (``POST /api/v1/games/{game_id}/actions``) by status class.
- ``dicehall_websocket_connections_open``: push sockets open on this process.
- ``dicehall_games_in_progress``: games whose status is ``active``, site-wide (one COUNT).
- ``dicehall_dice_reserve_sets``: committed dice sets not served yet, site-wide
  (``max(dice_sets.id) - dice_cursor.next_set + 1``).
- ``dicehall_bot_games_driving``: games this process's bot driver is playing now.
- ``dicehall_bot_tasks_pending``: bot decisions and table builds waiting for, or running
  in, this process's bot processes.
- ``dicehall_clock_sweeps_total``: the rounds in which this process's bot driver looked for
  clocks that ran out (a counter: it stops growing when the sweeper stops).
- ``process_*``: the process's CPU, memory, open files and start time.

The database numbers are read at scrape time, in one query, in a thread (never on the event
loop); when the database cannot be read they are left out of that scrape. Every server
process counts on its own: with ``--workers N`` a scrape is answered by whichever process
takes the connection (see docs/site.md, "Operations").
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import cast

from fastapi import APIRouter, Request, Response
from prometheus_client import CollectorRegistry, Gauge, Histogram, ProcessCollector
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.exposition import choose_encoder
from prometheus_client.registry import Collector
from sqlalchemy import Table, func, select

from dicehall.server.core.models import DiceCursor, DiceSet, GameRow
from dicehall.server.domain.services import Services

log = logging.getLogger(__name__)

MOVE_ROUTE = "/api/v1/games/{game_id}/actions"
UNMATCHED = "unmatched"
#: Seconds: a move is a few milliseconds; a hint or a page under load may take seconds.
BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)

_GAMES = cast(Table, GameRow.__table__)
_SETS = cast(Table, DiceSet.__table__)
_CURSOR = cast(Table, DiceCursor.__table__)
#: One round trip: games in progress, the last committed set, the next set to serve.
_LIVE_QUERY = select(
    select(func.count()).select_from(_GAMES).where(_GAMES.c.status == "active").scalar_subquery(),
    select(func.max(_SETS.c.id)).scalar_subquery(),
    select(_CURSOR.c.next_set).where(_CURSOR.c.id == 1).scalar_subquery(),
)

#: Scrapes run here, away from the event loop and from the threads requests use.
_SCRAPES = ThreadPoolExecutor(max_workers=2, thread_name_prefix="dicehall-metrics")

#: Games driven, bot tasks pending, clock sweeps finished (see ``BotDriver.load``).
BotLoad = Callable[[], tuple[int, int, int]]


def status_class(status: int) -> str:
    """``2xx`` for 200..299, and so on."""
    return f"{status // 100}xx"


class _LiveNumbers(Collector):
    """Numbers read when scraped: the database's, and the bot driver's."""

    def __init__(self, services: Services, bot_load: BotLoad | None) -> None:
        self.services = services
        self.bot_load = bot_load

    def describe(self) -> Iterable[Metric]:
        return [*_database_families(None), *_bot_families(None)]

    def collect(self) -> Iterable[Metric]:
        families = _bot_families(self.bot_load() if self.bot_load is not None else None)
        try:
            with self.services.read_conn() as conn:
                active, last, cursor = conn.execute(_LIVE_QUERY).one()
        except Exception as exc:
            log.warning("metrics: cannot read the database: %s", type(exc).__name__)
            return families
        reserve = int(last or 0) - int(cursor or 1) + 1
        return [*_database_families((int(active or 0), reserve)), *families]


def _database_families(values: tuple[int, int] | None) -> list[GaugeMetricFamily]:
    games = GaugeMetricFamily(
        "dicehall_games_in_progress", "Games in progress (status active), site-wide."
    )
    reserve = GaugeMetricFamily(
        "dicehall_dice_reserve_sets", "Committed dice sets not served yet, site-wide."
    )
    if values is not None:
        games.add_metric([], values[0])
        reserve.add_metric([], values[1])
    return [games, reserve]


def _bot_families(values: tuple[int, int, int] | None) -> list[Metric]:
    driving = GaugeMetricFamily(
        "dicehall_bot_games_driving", "Games this process's bot driver is playing now."
    )
    pending = GaugeMetricFamily(
        "dicehall_bot_tasks_pending",
        "Bot decisions and table builds waiting for or running in this process's bot pool.",
    )
    sweeps = CounterMetricFamily(
        "dicehall_clock_sweeps",
        "Rounds in which this process's bot driver looked for clocks that ran out.",
    )
    if values is not None:
        driving.add_metric([], values[0])
        pending.add_metric([], values[1])
        sweeps.add_metric([], values[2])
    return [driving, pending, sweeps]


class SiteMetrics:
    """One application's registry and metrics; see the module's docstring."""

    def __init__(self, services: Services, bot_load: BotLoad | None = None) -> None:
        self.registry = CollectorRegistry()
        self.requests = Histogram(
            "dicehall_http_request_duration_seconds",
            "HTTP request latency by route template, method and status class.",
            ["route", "method", "status"],
            buckets=BUCKETS,
            registry=self.registry,
        )
        self.moves = Histogram(
            "dicehall_move_duration_seconds",
            "Move latency (POST /api/v1/games/{game_id}/actions) by status class.",
            ["status"],
            buckets=BUCKETS,
            registry=self.registry,
        )
        self.sockets = Gauge(
            "dicehall_websocket_connections_open",
            "Push sockets open on this process.",
            registry=self.registry,
        )
        self.registry.register(_LiveNumbers(services, bot_load))
        ProcessCollector(registry=self.registry)

    def observe_request(self, route: str | None, method: str, status: int, seconds: float) -> None:
        """Count one answered HTTP request."""
        label = status_class(status)
        self.requests.labels(route or UNMATCHED, method, label).observe(seconds)
        if route == MOVE_ROUTE and method == "POST":
            self.moves.labels(label).observe(seconds)

    def socket_opened(self) -> None:
        """A push socket was accepted."""
        self.sockets.inc()

    def socket_closed(self) -> None:
        """An accepted push socket ended."""
        self.sockets.dec()

    async def exposition(self, accept: str = "") -> tuple[bytes, str]:
        """The body and content type for a scraper that accepts ``accept`` (the text format,
        or OpenMetrics when asked), collected in a thread: the database is read then."""
        encode, content_type = choose_encoder(accept)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(_SCRAPES, encode, self.registry), content_type


router = APIRouter(tags=["operations"])


@router.get("/metrics", include_in_schema=False)
async def metrics(request: Request) -> Response:
    """This process's metrics in Prometheus' text format."""
    site: SiteMetrics = request.app.state.metrics
    body, content_type = await site.exposition(request.headers.get("accept", ""))
    return Response(body, headers={"Content-Type": content_type})
