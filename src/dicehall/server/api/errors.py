"""Errors the API answers with: always JSON ``{"error": message, "code": code, ...}``."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from dicehall.engine.errors import CodecError, IllegalMove, InvalidInput, InvalidOptions
from dicehall.server.core.db import DATABASE_ERRORS, is_disconnect
from dicehall.server.core.writelock import Busy
from dicehall.server.domain.dice.pool import PoolEmpty
from dicehall.server.domain.errors import STATUS, Refused
from dicehall.server.http.dbfaults import note_dropped

logger = logging.getLogger("dicehall.server")

#: The seconds a client is asked to wait after the database connection dropped: a
#: terminated session is replaced at once, a restarting server takes a few seconds.
DATABASE_RETRY_AFTER = 3


class ApiError(Refused):
    """A refusal the HTTP layer itself makes (authentication, parameters), by its status."""

    def __init__(self, status: int, code: str, message: str, **extra: Any) -> None:
        kind = next((k for k, s in STATUS.items() if s == status), None)
        if kind is None:
            raise ValueError(f"no kind of refusal is answered with {status}")
        super().__init__(kind, code, message, **extra)


def _body(code: str, message: str, **extra: Any) -> dict[str, Any]:
    return {"error": message, "code": code, **extra}


def _describe(exc: RequestValidationError) -> str:
    parts = []
    for error in exc.errors()[:3]:
        where = ".".join(str(p) for p in error.get("loc", ()) if p != "body")
        message = str(error.get("msg", "invalid"))
        if error.get("type") == "json_invalid":
            return "the request body is not valid JSON"
        parts.append(f"{where}: {message}" if where else message)
    return "; ".join(parts) or "the request is not valid"


def _unavailable(code: str, message: str, retry_after: int) -> JSONResponse:
    return JSONResponse(
        _body(code, message, retry_after=retry_after),
        status_code=503,
        headers={"Retry-After": str(retry_after)},
    )


def _first_line(problem: object) -> str:
    lines = str(problem).strip().splitlines()
    return lines[0].strip() if lines else type(problem).__name__


def install_error_handlers(app: FastAPI) -> None:
    """Every error becomes a clear JSON answer; nothing a client sends gives a 500."""

    @app.exception_handler(Refused)
    async def _refused(_request: Request, exc: Refused) -> JSONResponse:
        retry_after = exc.extra.get("retry_after")
        headers = {"Retry-After": str(retry_after)} if retry_after is not None else None
        return JSONResponse(
            _body(exc.code, exc.message, **exc.extra), status_code=exc.status, headers=headers
        )

    @app.exception_handler(IllegalMove)
    async def _illegal(_request: Request, exc: IllegalMove) -> JSONResponse:
        return JSONResponse(_body("illegal_move", exc.reason), status_code=422)

    @app.exception_handler(InvalidOptions)
    async def _options(_request: Request, exc: InvalidOptions) -> JSONResponse:
        return JSONResponse(_body("invalid_options", str(exc)), status_code=422)

    @app.exception_handler(InvalidInput)
    async def _input(_request: Request, exc: InvalidInput) -> JSONResponse:
        return JSONResponse(_body("invalid_input", str(exc)), status_code=422)

    @app.exception_handler(CodecError)
    async def _codec(_request: Request, exc: CodecError) -> JSONResponse:
        return JSONResponse(_body("invalid_input", str(exc)), status_code=422)

    @app.exception_handler(Busy)
    async def _busy(_request: Request, exc: Busy) -> JSONResponse:
        return _unavailable("busy", str(exc), exc.retry_after)

    @app.exception_handler(PoolEmpty)
    async def _no_dice(_request: Request, exc: PoolEmpty) -> JSONResponse:
        logger.warning("a request found the dice pool empty: %s", exc)
        return _unavailable("no_dice", "new dice are being committed; try again shortly", 2)

    async def _database(request: Request, exc: Exception) -> JSONResponse:
        # A dropped connection is 503; any other database error stays unexpected (500).
        if request.scope["type"] != "http" or not is_disconnect(exc):
            raise exc
        again = note_dropped(request.scope)
        logger.warning(
            "%s %s lost its database connection (%s); %s",
            request.method,
            request.url.path,
            _first_line(getattr(exc, "orig", None) or exc),
            "running it once more" if again else "answered 503",
        )
        return _unavailable(
            "database_unavailable",
            "the database cannot be reached just now; try again shortly",
            DATABASE_RETRY_AFTER,
        )

    for kind in DATABASE_ERRORS:
        app.add_exception_handler(kind, _database)

    @app.exception_handler(RequestValidationError)
    async def _validation(_request: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse(_body("invalid_request", _describe(exc)), status_code=422)

    @app.exception_handler(Exception)
    async def _unexpected(_request: Request, exc: Exception) -> JSONResponse:
        logger.exception("unexpected error", exc_info=exc)
        return JSONResponse(_body("internal", "something went wrong on our side"), status_code=500)

    @app.exception_handler(StarletteHTTPException)
    async def _http(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        return JSONResponse(_body(code, str(exc.detail)), status_code=exc.status_code)
