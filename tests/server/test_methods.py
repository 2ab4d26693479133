"""Every path of the site answers a method it does not take with 405 and an ``Allow`` header
naming exactly the methods it takes (RFC 9110, 15.5.6): the API, the pages, the static
files and the documentation alike, even where several routes share a path. HEAD is served
wherever GET is, as the GET's answer without its content (RFC 9110, 9.3.2)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from fastapi import FastAPI
from fastapi.testclient import TestClient
from starlette.routing import BaseRoute, Mount, Route, compile_path

from tests.server.conftest import MakeUser

#: Every method a request may carry here (TRACE and CONNECT are no route's either).
METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE")
#: A file the static mount serves.
STATIC_FILE = "/static/css/site.css"


def _routes(routes: Iterable[BaseRoute]) -> Iterator[tuple[str, frozenset[str]]]:
    """Each HTTP route's path template and methods, included routers opened up (FastAPI
    keeps an included router as one entry, whose routes it resolves when asked)."""
    for route in routes:
        opened = getattr(route, "effective_route_contexts", None)
        if opened is not None:
            for context in opened():
                if context.starlette_route is not None:
                    yield from _routes([context.starlette_route])
                else:
                    yield str(context.path), frozenset(context.methods or ())
        elif isinstance(route, Mount):
            yield route.path + STATIC_FILE.removeprefix("/static"), frozenset({"GET", "HEAD"})
        elif isinstance(route, Route):
            yield route.path, frozenset(route.methods or ())


def route_table(app: FastAPI) -> dict[str, frozenset[str]]:
    """Every path template of ``app`` and the methods its routes take there."""
    table: dict[str, set[str]] = {}
    for path, methods in _routes(app.routes):
        table.setdefault(path, set()).update(methods)
    return {path: frozenset(methods) for path, methods in table.items()}


def _example(template: str) -> str:
    """A path that ``template`` matches: each parameter a 1 (an id, or a one-letter name)."""
    return re.sub(r"\{[^}]+\}", "1", template)


def allowed_at(table: dict[str, frozenset[str]], path: str) -> set[str]:
    """The methods some route takes at ``path`` (HEAD with GET), by Starlette's own reading
    of each template."""
    found: set[str] = set()
    for template, methods in table.items():
        if compile_path(template)[0].match(path):
            found |= methods
    return found | {"HEAD"} if "GET" in found else found


def test_every_path_answers_a_method_it_does_not_take_with_405_and_allow(
    client: TestClient,
) -> None:
    table = route_table(client.app)  # type: ignore[arg-type]
    assert {"/api/v1/users/me", "/", "/api/v1/openapi.json", STATIC_FILE} <= set(table)
    assert len(table) > 100, len(table)
    wrong: list[str] = []
    for template in table:
        path = _example(template)
        allowed = allowed_at(table, path)
        for method in sorted(set(METHODS) - allowed):
            answer = client.request(method, path)
            named = {m.strip() for m in answer.headers.get("allow", "").split(",") if m.strip()}
            if answer.status_code != 405 or named != allowed:
                wrong.append(f"{method} {path}: {answer.status_code}, Allow {named} != {allowed}")
    assert not wrong, "\n".join(wrong)


def test_a_path_of_several_routes_allows_all_their_methods(client: TestClient) -> None:
    answer = client.delete("/api/v1/users/me")
    assert answer.status_code == 405
    assert answer.headers["allow"] == "GET, HEAD, PATCH"
    assert answer.json() == {"error": "Method Not Allowed", "code": "method_not_allowed"}
    static = client.post(STATIC_FILE)
    assert (static.status_code, static.headers["allow"]) == (405, "GET, HEAD")


def test_a_named_path_is_not_taken_for_an_id(client: TestClient, make_user: MakeUser) -> None:
    """``DELETE /invites/accept`` is a method ``/invites/accept`` does not take, not the
    withdrawal of an invite whose id would be ``accept``."""
    answer = client.delete("/api/v1/invites/accept", headers=make_user("ines"))
    assert answer.status_code == 405, answer.text
    assert answer.headers["allow"] == "POST"


def test_head_answers_as_get_without_the_content(client: TestClient, make_user: MakeUser) -> None:
    me = make_user("hedda")
    for path, headers in [
        ("/api/v1/games/kinds", {}),
        ("/api/v1/users/me", me),
        ("/api/v1/openapi.json", {}),
        (STATIC_FILE, {}),
    ]:
        got, head = client.get(path, headers=headers), client.head(path, headers=headers)
        assert (head.status_code, got.status_code) == (200, 200), path
        assert head.content == b"", path
        for name in ("content-type", "content-length"):
            assert head.headers.get(name) == got.headers.get(name), (path, name)
    page = client.head("/")
    assert page.status_code == 200 and page.content == b""
    assert page.headers["content-type"].startswith("text/html")
    signed_out = client.head("/api/v1/users/me")
    assert signed_out.status_code == 401 and signed_out.content == b""
