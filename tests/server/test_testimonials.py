"""Testimonials: one per member, public only once a moderator approved it, back to the
queue when edited, gone when deleted or hidden; bad text refused; writes rate limited."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from dicehall.server.app import create_app
from dicehall.server.domain.services import Services, build_services
from tests.live import add_user
from tests.server.conftest import MakeUser, site_settings
from tests.server.test_moderation import act, audit, make_moderator, refused

API = "/api/v1"


def public(client: TestClient) -> list[tuple[str, str]]:
    answer = client.get(f"{API}/testimonials")
    assert answer.status_code == 200, answer.text
    return [(t["user_id"], t["body"]) for t in answer.json()["testimonials"]]


def write(client: TestClient, headers: dict[str, str], body: str) -> Any:
    return client.put(f"{API}/users/me/testimonial", json={"body": body}, headers=headers)


def test_one_each_shown_once_approved_and_back_to_the_queue_when_edited(
    client: TestClient, make_user: MakeUser, services: Services
) -> None:
    alice, bob, mia = make_user("alice"), make_user("bob"), make_user("mia")
    make_moderator(services, "mia")
    refused(client.get(f"{API}/users/me/testimonial", headers=alice), 404, "no_testimonial")
    first = write(client, alice, "  The fairest dice I know.  ")
    assert first.status_code == 200, first.text
    assert (
        first.json()["status"] == "pending" and first.json()["body"] == "The fairest dice I know."
    )
    again = write(client, alice, "The fairest dice I know, and good bots.").json()
    assert again["id"] == first.json()["id"]  # one each: the same testimonial, rewritten
    assert public(client) == []
    refused(client.get(f"{API}/moderation/testimonials", headers=bob), 403, "not_moderator")
    waiting = client.get(f"{API}/moderation/testimonials", headers=mia).json()["testimonials"]
    assert [t["user_id"] for t in waiting] == ["alice"]
    refused(
        client.post(f"{API}/moderation/testimonials/{again['id']}/approve", headers=bob),
        403,
        "not_moderator",
    )
    approved = client.post(f"{API}/moderation/testimonials/{again['id']}/approve", headers=mia)
    assert approved.status_code == 200 and approved.json()["status"] == "approved"
    refused(
        client.post(f"{API}/moderation/testimonials/{again['id']}/approve", headers=mia),
        409,
        "already_approved",
    )
    refused(
        client.post(f"{API}/moderation/testimonials/99999/approve", headers=mia),
        404,
        "unknown_testimonial",
    )
    assert public(client) == [("alice", "The fairest dice I know, and good bots.")]
    assert audit(client, mia)[0]["action"] == "approve"
    # Editing an approved testimonial sends it back to the queue.
    write(client, alice, "Changed my mind: even better.")
    assert public(client) == []
    mine = client.get(f"{API}/users/me/testimonial", headers=alice).json()
    assert mine["status"] == "pending"
    client.post(f"{API}/moderation/testimonials/{mine['id']}/approve", headers=mia)
    # A moderator may hide it; its writer may delete it.
    hidden = act(client, mia, "hide", content_kind="testimonial", content_id=mine["id"])
    assert hidden.status_code == 201, hidden.text
    assert public(client) == []
    assert client.get(f"{API}/users/me/testimonial", headers=alice).json()["status"] == "hidden"
    gone = client.delete(f"{API}/users/me/testimonial", headers=alice)
    assert gone.json() == {"deleted": True}
    assert client.delete(f"{API}/users/me/testimonial", headers=alice).json() == {"deleted": False}
    refused(client.get(f"{API}/users/me/testimonial", headers=alice), 404, "no_testimonial")
    # A moderator's own testimonial waits for another moderator.
    own = write(client, mia, "I moderate here and like it.").json()
    refused(
        client.post(f"{API}/moderation/testimonials/{own['id']}/approve", headers=mia),
        403,
        "own_testimonial",
    )
    assert client.get(f"{API}/users/me/testimonial", headers=mia).json()["status"] == "pending"


def test_bad_text_is_refused_and_changes_nothing(client: TestClient, make_user: MakeUser) -> None:
    alice = make_user("alice")
    refused(write(client, alice, "   "), 422, "invalid_body")
    refused(write(client, alice, "x" * 1001), 422, "invalid_body")
    refused(write(client, alice, "bell\x07"), 422, "invalid_body")
    refused(write(client, alice, "x" * 5000), 422, "invalid_request")
    refused(client.get(f"{API}/users/me/testimonial", headers=alice), 404, "no_testimonial")
    assert client.put(f"{API}/users/me/testimonial", json={"body": "hi"}).status_code == 401
    assert write(client, alice, "x" * 1000).status_code == 200


@pytest.fixture
def strict_site(db_url: str) -> Iterator[tuple[TestClient, Services]]:
    """A site that allows two counted attempts a minute per account."""
    built = build_services(site_settings(db_url, auth_rate_per_minute=2))
    try:
        with TestClient(create_app(services=built)) as test_client:
            yield test_client, built
    finally:
        built.engine.dispose()


def test_testimonial_writes_and_reports_are_rate_limited(
    strict_site: tuple[TestClient, Services],
) -> None:
    client, services = strict_site
    alice, _bob = add_user(services, "alice"), add_user(services, "bob")
    assert write(client, alice, "one").status_code == 200
    assert write(client, alice, "two").status_code == 200
    limited = refused(write(client, alice, "three"), 429, "rate_limited")
    assert limited["retry_after"] >= 1
    assert client.get(f"{API}/users/me/testimonial", headers=alice).json()["body"] == "two"
    for reason in ("spam", "abuse"):
        body = {"kind": "user", "target": "bob", "reason": reason}
        answer = client.post(f"{API}/reports", json=body, headers=alice)
        assert answer.status_code in (201, 409), answer.text
    body = {"kind": "profile", "target": "bob", "reason": "spam"}
    refused(client.post(f"{API}/reports", json=body, headers=alice), 429, "rate_limited")
