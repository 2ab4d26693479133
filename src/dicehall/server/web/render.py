"""Rendering pages: Jinja2 templates with the visitor, the CSRF token, the game list, and the
visitor's board and graphics settings as data attributes of ``<html>``; every moment on a
page is worded in the visitor's time zone (see :mod:`dicehall.server.web.moments`)."""

from __future__ import annotations

from importlib import resources
from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates

from dicehall import games
from dicehall.server.core.models import User
from dicehall.server.domain.people import settings
from dicehall.server.web.moments import exact, viewer_zone

TEMPLATES = Jinja2Templates(
    directory=str(resources.files("dicehall.server.web").joinpath("templates"))
)
#: ``{{ when | exact }}``: a datetime or ISO text in the viewer's zone.
TEMPLATES.env.filters["exact"] = exact


def game_titles() -> list[tuple[str, str]]:
    """(name, title) of every game, in the site's order."""
    return [(name, games.get(name).title) for name in games.available()]


def html_data(user: User | None) -> dict[str, str]:
    """The ``data-*`` attributes of a page's ``<html>`` (name without ``data-``: value): the
    signed-in user's settings that style and drive every page and board (a visitor's are the
    defaults). static/js/settings-live.js keeps them current when a change is pushed."""
    chosen = settings.parse(user.settings) if user is not None else settings.DEFAULTS
    flag = {True: "true", False: "false"}
    return {
        "theme": chosen.theme,
        "dice": chosen.dice_style,
        "board-size": chosen.board_size,
        "hints-open": flag[chosen.hints_open],
        "sounds": flag[chosen.sounds],
        "confirm": flag[chosen.confirm_moves],
        "time-zone": chosen.time_zone,
    }


def page(
    request: Request,
    template: str,
    *,
    user: User | None,
    csrf: str | None = None,
    status_code: int = 200,
    **context: Any,
) -> HTMLResponse:
    """A full page; ``csrf`` goes into a meta tag for scripts and into every form. The page
    is drawn in the user's time zone (UTC for a visitor)."""
    data = html_data(user)
    # The template is drawn here, while the response is made: its moments read the zone.
    with viewer_zone(data["time-zone"] if user is not None else None):
        return TEMPLATES.TemplateResponse(
            request,
            template,
            {
                "user": user,
                "csrf": csrf,
                "games": game_titles(),
                "html_data": data,
                **context,
            },
            status_code=status_code,
        )
