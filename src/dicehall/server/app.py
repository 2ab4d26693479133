"""The FastAPI application: routers, error handlers, limits, and the services' lifetime."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib import resources

from fastapi import APIRouter, FastAPI
from fastapi.staticfiles import StaticFiles

from dicehall import __version__
from dicehall.server.api import fairness, games, ws
from dicehall.server.api.errors import install_error_handlers
from dicehall.server.config import Settings
from dicehall.server.limits import BodySizeLimit
from dicehall.server.services import Services, build_services


def create_app(settings: Settings | None = None, services: Services | None = None) -> FastAPI:
    """The site as an ASGI application (services are built now unless given)."""
    built = services or build_services(settings or Settings())

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await built.broker.start()
        try:
            yield
        finally:
            await built.broker.stop()

    app = FastAPI(
        title="dicehall",
        version=__version__,
        description="Five classic dice games, turn-based, with provably fair dice.",
        lifespan=lifespan,
        openapi_url="/api/v1/openapi.json",
        docs_url="/api/v1/docs",
        redoc_url=None,
    )
    app.state.services = built
    install_error_handlers(app)
    app.add_middleware(BodySizeLimit, max_bytes=built.settings.max_body_bytes)
    for router in _routers():
        app.include_router(router)
    app.mount("/static", StaticFiles(directory=_static_dir()), name="static")
    return app


def _static_dir() -> str:
    return str(resources.files("dicehall.server.web").joinpath("static"))


def _routers() -> list[APIRouter]:
    from dicehall.server.api import accounts, hints
    from dicehall.server.web import pages

    return [accounts.router, games.router, hints.router, fairness.router, ws.router, pages.router]
