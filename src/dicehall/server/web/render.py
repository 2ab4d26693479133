"""Rendering pages: Jinja2 templates with the visitor, the CSRF token and the game list."""

from __future__ import annotations

from importlib import resources
from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates

from dicehall import games
from dicehall.server.core.models import User

TEMPLATES = Jinja2Templates(
    directory=str(resources.files("dicehall.server.web").joinpath("templates"))
)


def game_titles() -> list[tuple[str, str]]:
    """(name, title) of every game, in the site's order."""
    return [(name, games.get(name).game.title) for name in games.available()]


def page(
    request: Request,
    template: str,
    *,
    user: User | None,
    csrf: str | None = None,
    status_code: int = 200,
    **context: Any,
) -> HTMLResponse:
    """A full page; ``csrf`` goes into a meta tag for scripts and into every form."""
    return TEMPLATES.TemplateResponse(
        request,
        template,
        {"user": user, "csrf": csrf, "games": game_titles(), **context},
        status_code=status_code,
    )
