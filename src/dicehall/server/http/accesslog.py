"""Structured logs: one JSON line per HTTP request and per WebSocket connection.

The site's edge (:class:`dicehall.server.http.edge.SiteEdge`, with :class:`Observed`) gives
every request an id (the client's ``X-Request-ID`` when it is a sane short token, else a new
one), sends it back in the response's ``X-Request-ID``, times the request, feeds the metrics
(:mod:`dicehall.server.http.metrics`), and logs on the ``dicehall.access`` logger at INFO::

    {"ts": "2026-05-09T07:35:25.123Z", "level": "info", "logger": "dicehall.access",
     "msg": "request", "request_id": "0f6c...", "type": "http", "user_id": "alice",
     "method": "POST", "route": "/api/v1/games/{game_id}/actions", "status": 200,
     "duration_ms": 12.4}

``route`` is the matched route's template (null when no route matched: a 404, or a request
refused before routing), never the raw path. ``user_id`` is the signed-in user's public id
where authentication already ran for the request (see :func:`note_user`), else null.
A WebSocket connection logs once, when it ends, with ``"type": "websocket"``, ``status``
101 when it was accepted (else 403, refused before accepting) and the ``close_code``.

The probes (``/metrics``, ``/healthz``, ``/readyz``) are logged at DEBUG, so they stay out
of the INFO stream. ``DICEHALL_ACCESS_LOG=0`` turns the access lines off (ids and metrics
stay). Records go through the standard :mod:`logging` module; ``dicehall serve`` formats
the ``dicehall`` loggers with :class:`JsonFormatter` on stderr (:func:`serve_log_config`).
"""

from __future__ import annotations

import contextvars
import copy
import json
import logging
import os
import re
import time
import traceback
import uuid
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from starlette.requests import HTTPConnection
from starlette.routing import Mount
from starlette.types import Scope

if TYPE_CHECKING:
    pass

access_log = logging.getLogger("dicehall.access")

REQUEST_ID_HEADER = b"x-request-id"
#: A client's request id is kept when it looks like an id: short, and nothing but letters,
#: digits and ``._:-`` (so it can never break a log line or a header).
_SANE_ID = re.compile(r"[A-Za-z0-9._:\-]{1,64}")
#: Routes that are asked often by machines; their lines go at DEBUG.
PROBE_ROUTES = frozenset({"/metrics", "/healthz", "/readyz"})
#: Where a request's user is noted (``request.state``, i.e. the scope's ``state``).
_USER_KEY = "dicehall_user_id"

#: The id of the request being handled, for every log line written while it runs.
request_id_var: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "dicehall_request_id", default=None
)


def access_log_enabled(environ: dict[str, str] | None = None) -> bool:
    """Whether access lines are written: ``DICEHALL_ACCESS_LOG`` is not 0, false, no or off."""
    value = (os.environ if environ is None else environ).get("DICEHALL_ACCESS_LOG", "1")
    return value.strip().lower() not in {"0", "false", "no", "off"}


def note_user(connection: HTTPConnection, user_id: str | None) -> None:
    """Remember who is asking (their public id) for this request's access line.

    Called where authentication already happens; it costs no query.
    """
    if user_id is not None:
        connection.scope.setdefault("state", {})[_USER_KEY] = user_id


def request_id_of(scope: Scope) -> str:
    """The client's ``X-Request-ID`` when it is sane, else a new random id."""
    for name, value in scope.get("headers", ()):
        if name == REQUEST_ID_HEADER:
            sent: str = value.decode("latin-1").strip()
            if _SANE_ID.fullmatch(sent):
                return sent
            break
    return uuid.uuid4().hex


def route_template(scope: Scope, root_path: str = "") -> str | None:
    """The matched route's path template (``/api/v1/games/{game_id}``), or None.

    A mounted application (``/static``) is ``/static/{path}``; ``root_path`` is the scope's
    root path before routing, to tell which mount took the request.
    """
    route = scope.get("route")
    path = getattr(route, "path", None)
    if isinstance(route, Mount) and isinstance(path, str):
        return path.rstrip("/") + "/{path}"
    if isinstance(path, str):
        return path
    mounted = str(scope.get("root_path", ""))
    if mounted != root_path and mounted.startswith(root_path):
        return mounted[len(root_path) :].rstrip("/") + "/{path}"
    return None


class Observed:
    """What the edge keeps while a request or a socket runs: its id (also in
    :data:`request_id_var` until :meth:`end`), its root path before routing, its state, and
    when it began."""

    def __init__(self, scope: Scope) -> None:
        self.request_id = request_id_of(scope)
        self.root_path = str(scope.get("root_path", ""))
        self.state: dict[str, Any] = scope.setdefault("state", {})
        self.state["request_id"] = self.request_id
        self._token = request_id_var.set(self.request_id)
        self.started = time.perf_counter()

    def seconds(self) -> float:
        """Seconds since it began."""
        return time.perf_counter() - self.started

    def fields(self, scope: Scope, kind: str, method: str, status: int) -> dict[str, Any]:
        """The access line's fields (``route`` is the matched route's template)."""
        route = route_template(scope, self.root_path)
        return {
            "request_id": self.request_id,
            "type": kind,
            "user_id": self.state.get(_USER_KEY),
            "method": method,
            "route": route,
            "status": status,
            "duration_ms": round(self.seconds() * 1000, 3),
        }

    def end(self) -> None:
        """Forget the id (log lines written from now on are not this request's)."""
        request_id_var.reset(self._token)


def log_access(message: str, fields: dict[str, Any]) -> None:
    """Write an access line (the probes' at DEBUG)."""
    level = logging.DEBUG if fields.get("route") in PROBE_ROUTES else logging.INFO
    if access_log.isEnabledFor(level):
        access_log.log(level, message, extra={"fields": fields})


class JsonFormatter(logging.Formatter):
    """One JSON object per record: time, level, logger, message, the request's id while a
    request runs, the record's ``fields`` (``extra={"fields": {...}}``), and any traceback."""

    def format(self, record: logging.LogRecord) -> str:
        moment = datetime.fromtimestamp(record.created, UTC)
        line: dict[str, Any] = {
            "ts": moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        request_id = request_id_var.get()
        if request_id is not None:
            line["request_id"] = request_id
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            line.update(fields)
        if record.exc_info:
            line["exc"] = "".join(traceback.format_exception(*record.exc_info)).rstrip()
        elif record.exc_text:
            line["exc"] = record.exc_text
        return json.dumps(line, default=str, ensure_ascii=False)


def serve_log_config(base: dict[str, Any] | None = None) -> dict[str, Any]:
    """uvicorn's logging configuration plus the ``dicehall`` loggers and ``uvicorn.error``
    (its processes starting, stopping, and dying: "Child process [pid] died"): INFO and up,
    as JSON lines on stderr; uvicorn's access lines only from WARNING (the edge writes the
    site's). Every worker process applies it at start; the levels hold while uvicorn is
    given no ``log_level``, which would override them."""
    if base is None:
        from uvicorn.config import LOGGING_CONFIG

        base = LOGGING_CONFIG
    config = copy.deepcopy(base)
    config.setdefault("formatters", {})["dicehall_json"] = {
        "()": "dicehall.server.http.accesslog.JsonFormatter"
    }
    config.setdefault("handlers", {})["dicehall_json"] = {
        "class": "logging.StreamHandler",
        "formatter": "dicehall_json",
        "stream": "ext://sys.stderr",
    }
    loggers = config.setdefault("loggers", {})
    for name in ("dicehall", "uvicorn.error"):
        loggers[name] = {"handlers": ["dicehall_json"], "level": "INFO", "propagate": False}
    loggers.setdefault("uvicorn.access", {})["level"] = "WARNING"
    return config
