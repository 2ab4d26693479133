"""Changes to what an account keeps are rate limited like the other writes: 80 profile,
settings or relation changes in a row, over the API or through the pages, get 20 through
(the default ``auth_rate_per_minute``) and then 429 with ``Retry-After``, changing nothing;
another user is not held up, and a minute later the user may go on."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import httpx2
import pytest
from fastapi.testclient import TestClient
from time_machine import TimeMachineFixture

from dicehall.server.app import create_app
from dicehall.server.core.clock import now
from dicehall.server.domain.services import Services, build_services
from tests.live import add_user
from tests.server.conftest import Headers, site_settings
from tests.server.test_accounts import API, PASSWORD, log_in

LIMIT = 20

#: Each limited write over the API: (method, path, the body of the n-th change), and how to
#: read back which change is stored.
Change = Callable[[int], dict[str, Any]]
API_WRITES: dict[str, tuple[str, str, Change, str]] = {
    "profile": ("PATCH", "/users/me", lambda n: {"about": f"take {n}"}, "/users/me"),
    "settings": (
        "PATCH",
        "/users/me/settings",
        lambda n: {"reminders": [f"{n + 1}h"]},
        "/users/me/settings",
    ),
    "relations": (
        "PUT",
        "/relations/bob",
        lambda n: {"kind": "buddy", "note": f"take {n}"},
        "/relations",
    ),
}
WORDS = {
    "profile": "profile changes",
    "settings": "settings changes",
    "relations": "changes to your buddy and ignore lists",
}


@pytest.fixture
def default_limits(db_url: str) -> Iterator[Services]:
    """A site with the default 20 attempts a minute."""
    built = build_services(site_settings(db_url, auth_rate_per_minute=LIMIT))
    try:
        yield built
    finally:
        built.engine.dispose()


def _stored(client: TestClient, kind: str, headers: Headers) -> Any:
    body = client.get(API + API_WRITES[kind][3], headers=headers).json()
    if kind == "profile":
        return body["about"]
    if kind == "settings":
        return body["reminders"]
    return body["relations"][0]["note"]


def _check_refusal(answer: httpx2.Response, kind: str) -> None:
    assert answer.status_code == 429, answer.text
    wait = int(answer.headers["retry-after"])
    assert 1 <= wait <= 60 and answer.json()["retry_after"] == wait
    assert answer.json()["code"] == "rate_limited"
    assert answer.json()["error"] == (
        f"too many {WORDS[kind]} in a minute; try again in {wait} seconds"
    )


@pytest.mark.parametrize("kind", sorted(API_WRITES))
def test_eighty_changes_in_a_row_are_refused_past_the_limit(
    default_limits: Services, time_machine: TimeMachineFixture, kind: str
) -> None:
    time_machine.move_to(now(), tick=False)
    hashed = default_limits.hasher.hash(PASSWORD)
    ann = add_user(default_limits, "ann", hashed)
    cid = add_user(default_limits, "cid", hashed)
    add_user(default_limits, "bob", hashed)
    method, path, body, _ = API_WRITES[kind]
    with TestClient(create_app(services=default_limits)) as client:
        answers = [client.request(method, API + path, json=body(n), headers=ann) for n in range(80)]
        assert [a.status_code for a in answers] == [200] * LIMIT + [429] * (80 - LIMIT)
        _check_refusal(answers[-1], kind)
        # Nothing past the limit was stored.
        assert _stored(client, kind, ann) == _stored_value(kind, LIMIT - 1)
        # Another user is not held up by ann's count; a minute later ann goes on.
        assert client.request(method, API + path, json=body(0), headers=cid).status_code == 200
        time_machine.shift(61)
        again = client.request(method, API + path, json=body(99), headers=ann)
        assert again.status_code == 200, again.text


def _stored_value(kind: str, n: int) -> Any:
    change = API_WRITES[kind][2](n)
    return change.get("about", change.get("reminders", change.get("note")))


def _radios(html: str) -> dict[str, str]:
    """The settings form as it stands: each radio group's checked value."""
    found = re.findall(
        r'<input type="radio" id="[^"]*" name="([^"]+)" value="([^"]*)" checked', html
    )
    assert found, "no checked radio on the settings page"
    return dict(found)


@pytest.mark.parametrize("form", ["profile", "settings", "relations", "profile-relation"])
def test_the_page_forms_count_with_the_api(
    default_limits: Services, time_machine: TimeMachineFixture, form: str
) -> None:
    time_machine.move_to(now(), tick=False)
    hashed = default_limits.hasher.hash(PASSWORD)
    add_user(default_limits, "ann", hashed)
    add_user(default_limits, "bob", hashed)
    with TestClient(create_app(services=default_limits), follow_redirects=False) as web:
        csrf = log_in(web, "ann")
        fields: dict[str, str] = {"csrf_token": csrf}
        if form == "profile":
            url, fields = "/profile", {**fields, "display_name": "Ann", "about": "hi"}
        elif form == "settings":
            url, fields = "/settings", {**fields, **_radios(web.get("/settings").text)}
        elif form == "relations":
            url, fields = "/relations", {**fields, "kind": "buddy", "user_id": "bob"}
        else:
            url, fields = "/users/bob/relation", {**fields, "kind": "buddy", "note": "hi"}
        statuses = [web.post(url, data=fields).status_code for _ in range(LIMIT)]
        assert statuses == [303] * LIMIT
        refused = web.post(url, data=fields)
        assert refused.status_code == 429
        wait = int(refused.headers["retry-after"])
        assert 1 <= wait <= 60
        text = re.sub(r"\s+", " ", refused.text)
        assert re.search(r"Too many [a-z ]+ in a minute; try again in \d+ seconds\.", text)
