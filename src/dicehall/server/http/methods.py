"""The methods each path accepts: the ``Allow`` header of every 405, and HEAD wherever GET is.

The router answers 405 from the first route whose path matches, naming (at best) that one
route's methods, although several routes may share a path (``GET`` and ``PATCH
/api/v1/users/me``); and a mount (the static files) refuses a method with no header at all.
So the site's edge asks the application's own routes, by the same matching that dispatches
a request, which methods some route takes at the request's path, and sends them in
``Allow`` (RFC 9110, 15.5.6) on any 405, whoever made it. HEAD is served wherever GET is
(RFC 9110, 9.3.2: the GET's answer without its content), and named in ``Allow`` there.
"""

from __future__ import annotations

from collections.abc import Iterable

from starlette.routing import BaseRoute, Match, Mount
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

#: The methods a route may be declared with, in the order ``Allow`` lists them. HEAD is not
#: here: it follows GET.
METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")
#: What a static files mount answers; any other method is its 405.
STATIC_METHODS = frozenset({"GET", "HEAD"})


def _serves(route: BaseRoute, probe: Scope) -> bool:
    """Whether ``route`` takes the probe's method at the probe's path."""
    match, child = route.matches(probe)
    if match != Match.FULL:
        return False
    if not isinstance(route, Mount):
        return True
    inner = route.app
    if isinstance(inner, StaticFiles):
        return str(probe["method"]) in STATIC_METHODS
    routes = getattr(inner, "routes", None)
    if routes is None:
        return True  # an application of its own: it takes whatever it is sent
    return any(_serves(each, {**probe, **child}) for each in routes)


def allowed_methods(routes: Iterable[BaseRoute], path: str, root_path: str = "") -> list[str]:
    """The methods some route takes at ``path``, HEAD with GET, in a fixed order."""
    listed = list(routes)
    found: list[str] = []
    for method in METHODS:
        probe = {"type": "http", "path": path, "root_path": root_path, "method": method}
        if any(_serves(route, probe) for route in listed):
            found.append(method)
            if method == "GET":
                found.append("HEAD")
    return found


def head_is_get(routes: Iterable[BaseRoute], path: str, root_path: str = "") -> bool:
    """Whether a HEAD at ``path`` is to be answered as its GET: no route takes HEAD itself
    (the static files do), and some route takes GET."""
    listed = list(routes)

    def taken(method: str) -> bool:
        probe = {"type": "http", "path": path, "root_path": root_path, "method": method}
        return any(_serves(route, probe) for route in listed)

    return not taken("HEAD") and taken("GET")


def allow_header(methods: Iterable[str]) -> tuple[bytes, bytes]:
    """The ``Allow`` header naming ``methods``."""
    return (b"allow", ", ".join(methods).encode("latin-1"))
