"""The FastAPI application: routers, error handlers, limits, and the services' lifetime."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib import resources

from fastapi import APIRouter, FastAPI
from fastapi.staticfiles import StaticFiles
from starlette.routing import BaseRoute

from dicehall import __version__
from dicehall import games as game_registry
from dicehall.games.entry import load
from dicehall.server.api import fairness, games, ws
from dicehall.server.api.errors import install_error_handlers
from dicehall.server.core import startup_gc
from dicehall.server.core.config import Settings
from dicehall.server.domain.auth_cache import AuthCache
from dicehall.server.domain.services import Services, build_services
from dicehall.server.http import health, metrics
from dicehall.server.http.accesslog import access_log_enabled
from dicehall.server.http.dbfaults import RetryReads
from dicehall.server.http.edge import SiteEdge
from dicehall.server.web.common import (
    install_login_redirect,
    install_page_not_found,
    install_page_unavailable,
)
from dicehall.server.workers.background import Background
from dicehall.server.workers.botstatus import BotStatus, ReportedBotStatus
from dicehall.server.workers.hintwork import HintService
from dicehall.server.workers.jobs import SiteJobs

_log = logging.getLogger(__name__)


def create_app(settings: Settings | None = None, services: Services | None = None) -> FastAPI:
    """The site as an ASGI application (services are built now unless given)."""
    built = services or build_services(settings or Settings())

    hints = HintService(built.settings.hint_workers, built.settings.hint_seconds)
    jobs = SiteJobs(built)
    background = Background(built, jobs) if built.settings.background else None
    # Without background work here, the bot workers' reports say which bots are warming up.
    driver: BotStatus
    reported: ReportedBotStatus | None = None
    if background is not None:
        driver = background.driver
    else:
        driver = reported = ReportedBotStatus(built)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await built.broker.start()
        if background is not None:
            await background.start()
        elif reported is not None:
            await reported.start()
        hints.bind(asyncio.get_running_loop())
        warming = asyncio.get_running_loop().run_in_executor(None, warm_rules)
        startup_gc.resume()
        try:
            yield
        finally:
            hints.close()
            if background is not None:
                await background.stop()
            elif reported is not None:
                await reported.stop()
            await built.broker.stop()
            await warming

    app = FastAPI(
        title="dicehall",
        version=__version__,
        description="Five classic dice games, turn-based, with provably fair dice.",
        lifespan=lifespan,
        openapi_url="/api/v1/openapi.json",
        docs_url="/api/v1/docs",
        redoc_url=None,
        # The routers' own route objects, built once when their modules were imported: an
        # ``include_router`` would build every route's models again for each application
        # (most of a new application's first requests, and of every test that makes one).
        routes=_site_routes(),
    )
    app.state.services = built
    app.state.auth_cache = AuthCache()
    app.state.driver = driver
    app.state.hints = hints
    app.state.jobs = jobs
    app.state.metrics = metrics.SiteMetrics(built, driver.load)
    install_error_handlers(app)
    install_login_redirect(app)
    install_page_not_found(app)
    install_page_unavailable(app)
    # Inside the edge: a read run again after its database connection dropped is one
    # request to the access log and the metrics.
    app.add_middleware(RetryReads)
    # One layer does ids, access lines, metrics, limits and security headers: refusals
    # are logged and counted with their request id and carry the headers too.
    app.add_middleware(
        SiteEdge,
        metrics=app.state.metrics,
        log_requests=access_log_enabled(),
        max_body_bytes=built.settings.max_body_bytes,
        max_header_count=built.settings.max_header_count,
        max_header_bytes=built.settings.max_header_bytes,
    )
    app.mount("/static", StaticFiles(directory=_static_dir()), name="static")
    return app


def _site_routes() -> list[BaseRoute]:
    """Every route of the site, in matching order (prefixes, tags and dependencies are
    applied by each router when a route is declared)."""
    return [
        route for router in (health.router, metrics.router, *_routers()) for route in router.routes
    ]


def warm_rules() -> None:
    """Make every installed game's rule tables ready (see ``GameEntry.warm``). A failure
    is logged, not raised: the rules then make their tables when first needed."""
    for name in game_registry.available():
        reference = game_registry.get(name).warm
        if reference is not None:
            try:
                load(reference)()
            except Exception:
                _log.exception("warming the rules of %s failed", name)


def _static_dir() -> str:
    return str(resources.files("dicehall.server.web").joinpath("static"))


def _routers() -> list[APIRouter]:
    from dicehall.server.api import (
        accounts,
        automatch,
        chat,
        endings,
        hints,
        history,
        invites,
        ladders,
        luck,
        messages,
        moderation,
        next_game,
        notifications,
        password_reset,
        presence,
        proofs,
        push,
        ratings,
        relations,
        replay,
        seeds,
        settings,
        singularity,
        tlog,
        tokens,
        tournaments,
        user_search,
        vacation,
        watching,
        webhooks,
    )
    from dicehall.server.web import pages, pwa_pages

    return [
        accounts.router,
        tokens.router,
        password_reset.router,
        # Before the games: /games/live and /games/next must not be taken for
        # /games/{game_id}.
        watching.router,
        next_game.router,
        games.router,
        endings.router,
        chat.router,
        hints.router,
        replay.router,
        proofs.router,
        seeds.router,
        luck.router,
        vacation.router,
        notifications.router,
        push.router,
        webhooks.router,
        messages.router,
        moderation.router,
        invites.router,
        relations.router,
        presence.router,
        settings.router,
        user_search.router,
        history.router,
        ladders.router,
        automatch.router,
        tournaments.router,
        ratings.router,
        singularity.router,
        fairness.router,
        tlog.router,
        ws.router,
        pwa_pages.router,
        pages.router,
    ]
