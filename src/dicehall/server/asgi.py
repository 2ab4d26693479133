"""The ASGI entry point for ``uvicorn`` workers: settings come from the environment."""

from __future__ import annotations

import os

from fastapi import FastAPI

from dicehall.server.app import create_app
from dicehall.server.core.config import Settings
from dicehall.server.workers.procpool import die_with_supervisor


def settings_from_env() -> Settings:
    """Settings from the ``DICEHALL_*`` environment variables (see :class:`Settings`)."""
    return Settings()


def load_plugins() -> None:
    """Import ``module:function`` entries of ``DICEHALL_PLUGINS`` (comma-separated) and call
    each function: the way to offer extra games (``dicehall.games.register``) on a site."""
    import importlib

    for spec in filter(
        None, (s.strip() for s in os.environ.get("DICEHALL_PLUGINS", "").split(","))
    ):
        module_name, _, function = spec.partition(":")
        module = importlib.import_module(module_name)
        if function:
            getattr(module, function)()


def app_from_env() -> FastAPI:
    """A fresh application configured from the environment (uvicorn ``--factory``)."""
    die_with_supervisor()  # a worker of `dicehall serve --workers N` ends with it
    load_plugins()
    return create_app(settings_from_env())
