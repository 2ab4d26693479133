"""Security headers on every response, and pages that need no inline script or style."""

from __future__ import annotations

import re
from pathlib import Path

from fastapi.testclient import TestClient

from dicehall.server.app import create_app
from dicehall.server.domain.services import Services
from tests.server.conftest import MakeUser
from tests.server.test_accounts import API, sign_up

TEMPLATES = Path(__file__).parents[2] / "src/dicehall/server/web/templates"


def _check_headers(headers: object) -> str:
    get = headers.get  # type: ignore[attr-defined]
    assert get("x-frame-options") == "DENY"
    assert get("x-content-type-options") == "nosniff"
    assert get("referrer-policy") == "same-origin"
    policy: str = get("content-security-policy")
    assert "frame-ancestors 'none'" in policy
    return policy


def test_every_kind_of_response_carries_the_headers(
    client: TestClient, make_user: MakeUser
) -> None:
    bob = make_user("bob")
    for path in ("/", "/login", "/rules/boatzee", "/static/js/board-core.js", f"{API}/games"):
        response = client.get(path, headers=bob)
        assert response.status_code == 200, path
        policy = _check_headers(response.headers)
        directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
        assert directives["script-src"] == "'self'"
        assert directives["style-src"] == "'self'"
        assert "unsafe-inline" not in policy
    # Refusals too: a 404, a 401, a 413 from the body limit.
    _check_headers(client.get("/no/such/page").headers)
    _check_headers(client.get(f"{API}/users/me").headers)
    big = client.post(f"{API}/auth/login", content=b"x" * 70000)
    assert big.status_code == 413
    _check_headers(big.headers)


def test_the_api_docs_page_may_load_its_viewer(client: TestClient) -> None:
    response = client.get(f"{API}/docs")
    policy = _check_headers(response.headers)
    assert "https://cdn.jsdelivr.net" in policy


def test_pages_have_no_inline_script_or_style(client: TestClient, services: Services) -> None:
    sign_up(client, "alice")
    kind = client.get(f"{API}/games/kinds").json()[0]
    game = client.post(
        f"{API}/games",
        json={"game": kind["game"], "seats": ["me", f"bot:{kind['bots'][0]}"]},
        headers={"X-CSRF-Token": client.get(f"{API}/auth/session").json()["csrf_token"]},
    )
    assert game.status_code == 201, game.text
    pages = ["/", "/status", "/new", "/waiting", "/profile", "/password", "/fairness"]
    pages += [f"/games/{game.json()['id']}", "/users/alice", "/rules/holdem"]
    for path in pages:
        html = client.get(path).text
        for script in re.findall(r"<script\b[^>]*>", html):
            assert "src=" in script, (path, script)
        assert "<style" not in html, path
        assert not re.search(r"\sstyle\s*=", html), path
        assert not re.search(r"\son[a-z]+\s*=", html), path
    del services


def test_templates_hold_no_inline_script_or_handler() -> None:
    for template in TEMPLATES.glob("*.html"):
        text = template.read_text()
        for script in re.findall(r"<script\b[^>]*>", text):
            assert "src=" in script, (template.name, script)
        assert not re.search(r"\son[a-z]+\s*=", text), template.name
        assert not re.search(r"\sstyle\s*=", text), template.name


def test_header_count_and_size_are_limited(client: TestClient) -> None:
    many = {f"x-h{n}": "1" for n in range(150)}
    response = client.get(f"{API}/games/kinds", headers=many)
    assert response.status_code == 431
    assert response.json()["code"] == "headers_too_large"
    _check_headers(response.headers)
    large = client.get(f"{API}/games/kinds", headers={"x-big": "a" * 20000})
    assert large.status_code == 431
    assert client.get(f"{API}/games/kinds").status_code == 200


def test_the_app_sets_headers_without_a_server(services: Services) -> None:
    with TestClient(create_app(services=services)) as client:
        _check_headers(client.get("/").headers)
