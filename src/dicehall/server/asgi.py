"""The ASGI entry point for ``uvicorn`` workers: settings come from the environment."""

from __future__ import annotations

import os

from fastapi import FastAPI

from dicehall.server.app import create_app
from dicehall.server.config import Settings, default_db_url


def settings_from_env() -> Settings:
    """Settings from ``DICEHALL_DB_URL``, ``DICEHALL_REDIS_URL``, ``DICEHALL_SECURE_COOKIES``
    (1 behind HTTPS) and ``DICEHALL_AUTH_RATE`` (sign-up and log-in attempts per minute)."""
    rate = os.environ.get("DICEHALL_AUTH_RATE", "").strip()
    defaults = Settings(db_url="sqlite://")
    return Settings(
        db_url=os.environ.get("DICEHALL_DB_URL") or default_db_url(),
        redis_url=os.environ.get("DICEHALL_REDIS_URL") or None,
        secure_cookies=os.environ.get("DICEHALL_SECURE_COOKIES", "").lower() in {"1", "true"},
        auth_rate_per_minute=int(rate) if rate.isdigit() else defaults.auth_rate_per_minute,
    )


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
    load_plugins()
    return create_app(settings_from_env())
