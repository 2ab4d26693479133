"""Moderation over HTTP: reports and who may read the queue, each action in the audit log
with its moderator and reason, a mute refused at every place a user writes (and ending with
the site's clock), the appeal a mute still allows, suspensions and closed accounts at the
door, and hidden content as others see it."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from time_machine import TimeMachineFixture

from dicehall.server.core.clock import now
from dicehall.server.core.models import Message, ModerationAction, User, Webhook
from dicehall.server.domain.moderation import roles
from dicehall.server.domain.moderation.content import HIDDEN_TEXT
from dicehall.server.domain.people import settings
from dicehall.server.domain.services import Services
from tests.server.conftest import Headers, MakeUser
from tests.server.test_accounts import PASSWORD, browser, log_in
from tests.server.test_clocks import site_clock
from tests.server.test_watching import two_players

__all__ = ["site_clock"]  # a fixture

API = "/api/v1"


def make_moderator(services: Services, name: str) -> None:
    with services.write_conn() as conn:
        roles.set_role(conn, name, "moderator", True, now())


def refused(answer: Any, status: int, code: str) -> dict[str, Any]:
    assert answer.status_code == status, answer.text
    body: dict[str, Any] = answer.json()
    assert body["code"] == code, body
    return body


def created(answer: Any) -> dict[str, Any]:
    assert answer.status_code == 201, answer.text
    body: dict[str, Any] = answer.json()
    return body


def report(client: TestClient, who: Headers, kind: str, target: str | int, **more: Any) -> Any:
    body = {"kind": kind, "target": target, "reason": more.pop("reason", "abuse"), **more}
    return client.post(f"{API}/reports", json=body, headers=who)


def act(client: TestClient, who: Headers, action: str, **more: Any) -> Any:
    body = {"action": action, "reason": more.pop("reason", f"{action}: rule 3"), **more}
    return client.post(f"{API}/moderation/actions", json=body, headers=who)


def audit(client: TestClient, who: Headers, **query: Any) -> list[dict[str, Any]]:
    answer = client.get(f"{API}/moderation/audit", params=query, headers=who)
    assert answer.status_code == 200, answer.text
    entries: list[dict[str, Any]] = answer.json()["entries"]
    return entries


def actions_logged(services: Services) -> int:
    with services.read_conn() as conn:
        return int(conn.execute(select(func.count()).select_from(ModerationAction)).scalar_one())


def message(client: TestClient, sender: Headers, to: str, body: str) -> Any:
    return client.post(f"{API}/messages/{to}", json={"body": body}, headers=sender)


def test_reports_reach_the_queue_which_only_moderators_read(
    client: TestClient, make_user: MakeUser, services: Services
) -> None:
    alice, bob, mia = make_user("alice"), make_user("bob"), make_user("mia")
    make_moderator(services, "mia")
    edited = client.patch(
        f"{API}/users/me", json={"about": "buy gold at spam.example"}, headers=bob
    )
    assert edited.status_code == 200, edited.text
    filed = created(report(client, alice, "profile", "BOB", reason="spam", text="an advert"))
    assert filed["status"] == "open" and filed["kind"] == "profile"
    refused(report(client, alice, "profile", "bob", reason="spam"), 409, "already_reported")
    refused(report(client, alice, "user", "alice"), 422, "yourself")
    refused(report(client, alice, "user", "nobody"), 404, "unknown_user")
    refused(report(client, alice, "user", "bob", reason="boring"), 422, "invalid_request")
    refused(report(client, alice, "user", "bob", text="\x00"), 422, "invalid_text")
    assert client.post(f"{API}/reports", json={"kind": "user", "target": "bob"}).status_code == 401
    for path in ("/moderation/reports", "/moderation/audit", "/moderation/testimonials"):
        refused(client.get(f"{API}{path}", headers=alice), 403, "not_moderator")
        assert client.get(f"{API}{path}").status_code == 401
    refused(act(client, alice, "warn", user_id="bob"), 403, "not_moderator")
    queue = client.get(f"{API}/moderation/reports", headers=mia).json()["reports"]
    assert [(r["kind"], r["user_id"], r["reporter"], r["reason"]) for r in queue] == [
        ("profile", "bob", "alice", "spam")
    ]
    assert "buy gold" in queue[0]["content"] and queue[0]["text"] == "an advert"
    # What was reported stays as it was, whatever the profile says now.
    client.patch(f"{API}/users/me", json={"about": "nothing to see"}, headers=bob)
    queue = client.get(f"{API}/moderation/reports", headers=mia).json()["reports"]
    assert "buy gold" in queue[0]["content"]


def test_members_report_only_what_they_can_see_and_not_their_own(
    client: TestClient, make_user: MakeUser, services: Services
) -> None:
    game, alice, bob = two_players(client, make_user, private=True)
    carol = make_user("carol")
    sent = created(message(client, alice, "bob", "you play like a goat"))
    refused(report(client, carol, "message", sent["id"]), 404, "unknown_target")
    refused(report(client, alice, "message", sent["id"]), 422, "yourself")
    refused(report(client, bob, "message", 999999), 404, "unknown_target")
    created(report(client, bob, "message", str(sent["id"])))
    line = created(
        client.post(f"{API}/games/{game['id']}/chat", json={"body": "gg noob"}, headers=alice)
    )
    # carol may not watch the private game: its chat is nothing to her.
    refused(report(client, carol, "chat", line["id"]), 404, "unknown_target")
    created(report(client, bob, "chat", line["id"], reason="abuse"))
    told = client.put(f"{API}/users/me/testimonial", json={"body": "Great dice"}, headers=alice)
    testimonial = told.json()["id"]
    # Waiting for approval: not public, so nobody else can report it yet.
    refused(report(client, bob, "testimonial", testimonial), 404, "unknown_target")


# The queue, the actions and the log as PostgreSQL runs them too (its own SQL and locks).
@pytest.mark.both_databases
def test_each_action_is_in_the_audit_log_with_its_moderator_and_reason(
    client: TestClient, make_user: MakeUser, services: Services, site_clock: TimeMachineFixture
) -> None:
    alice, bob, mia = make_user("alice"), make_user("bob"), make_user("mia")
    make_moderator(services, "mia")
    first = created(report(client, alice, "user", "bob"))
    sent = created(message(client, bob, "alice", "rude words"))
    second = created(report(client, alice, "message", sent["id"], reason="abuse"))
    done = [
        act(client, mia, "warn", report_id=first["id"], reason="be kind"),
        act(client, mia, "mute", user_id="bob", minutes=60),
        act(client, mia, "unmute", user_id="bob"),
        act(client, mia, "hide", report_id=second["id"]),
        act(client, mia, "unhide", content_kind="message", content_id=sent["id"]),
        act(client, mia, "suspend", user_id="bob", minutes=30),
        act(client, mia, "lift", user_id="bob"),
    ]
    assert all(answer.status_code == 201 for answer in done), [a.text for a in done]
    entries = audit(client, mia)
    assert [(e["action"], e["moderator"], e["user_id"]) for e in entries][::-1] == [
        ("grant", None, "mia"),
        ("warn", "mia", "bob"),
        ("mute", "mia", "bob"),
        ("unmute", "mia", "bob"),
        ("hide", "mia", "bob"),
        ("unhide", "mia", "bob"),
        ("suspend", "mia", "bob"),
        ("lift", "mia", "bob"),
    ]
    by_action = {e["action"]: e for e in entries}
    assert by_action["warn"]["reason"] == "be kind" and by_action["warn"]["report"] == first["id"]
    assert by_action["mute"]["reason"] == "mute: rule 3"
    muted_until = now() + timedelta(minutes=60)
    assert by_action["mute"]["until"] == muted_until.isoformat()
    assert by_action["hide"]["content_kind"] == "message"
    assert by_action["hide"]["content"] == "rude words"
    # The reports acted on are handled; a report acted on again is refused, changing nothing.
    handled = client.get(f"{API}/moderation/reports", params={"status": "resolved"}, headers=mia)
    assert {r["id"] for r in handled.json()["reports"]} == {first["id"], second["id"]}
    before = actions_logged(services)
    refused(act(client, mia, "warn", report_id=first["id"]), 409, "report_handled")
    assert actions_logged(services) == before
    # A dismissal is logged too.
    third = created(report(client, bob, "user", "alice", reason="other"))
    created(act(client, mia, "dismiss", report_id=third["id"], reason="nothing wrong"))
    assert audit(client, mia, user_id="alice")[0]["action"] == "dismiss"
    dismissed = client.get(f"{API}/moderation/reports", params={"status": "dismissed"}, headers=mia)
    assert [r["id"] for r in dismissed.json()["reports"]] == [third["id"]]
    # bob was told, with the reason and how to appeal.
    bell = client.get(f"{API}/notifications", headers=bob).json()["notifications"]
    texts = [n["text"] for n in bell if n["kind"] == "moderation"]
    assert any("warned you: be kind" in t and "send mia a message" in t for t in texts), texts
    assert any("muted you until" in t for t in texts), texts


def test_bad_actions_are_refused_and_leave_no_trace(
    client: TestClient, make_user: MakeUser, services: Services
) -> None:
    make_user("bob")
    mia, max_ = make_user("mia"), make_user("max")
    make_moderator(services, "mia")
    make_moderator(services, "max")
    before = actions_logged(services)
    refused(act(client, mia, "mute", user_id="bob"), 422, "invalid_minutes")
    refused(act(client, mia, "warn", user_id="bob", reason="  "), 422, "invalid_reason")
    refused(act(client, mia, "warn", user_id="nobody"), 404, "unknown_user")
    refused(act(client, mia, "warn"), 422, "invalid_target")
    refused(act(client, mia, "dismiss"), 422, "invalid_target")
    refused(act(client, mia, "warn", report_id=4242), 404, "unknown_report")
    refused(act(client, mia, "warn", user_id="mia"), 422, "yourself")
    refused(act(client, mia, "mute", user_id="max", minutes=5), 403, "target_moderator")
    refused(act(client, mia, "unmute", user_id="bob"), 409, "not_muted")
    refused(act(client, mia, "lift", user_id="bob"), 409, "not_suspended")
    refused(act(client, mia, "hide", content_kind="message", content_id=77), 404, "unknown_target")
    refused(act(client, mia, "explode", user_id="bob"), 422, "invalid_request")
    assert actions_logged(services) == before
    assert max_  # a moderator may warn another
    created(act(client, mia, "warn", user_id="max"))


def test_a_muted_user_is_refused_everywhere_they_write_until_the_mute_ends(
    client: TestClient, make_user: MakeUser, services: Services, site_clock: TimeMachineFixture
) -> None:
    game, _alice, bob = two_players(client, make_user, private=False)
    mia = make_user("mia")
    make_moderator(services, "mia")
    with services.write_conn() as conn:
        settings.change(conn, services_pk(services, "mia"), {"messages_from": "nobody"})
    created(act(client, mia, "mute", user_id="bob", minutes=60))
    writes = [
        message(client, bob, "alice", "hello"),
        client.post(f"{API}/games/{game['id']}/chat", json={"body": "hi"}, headers=bob),
        client.post(f"{API}/games/{game['id']}/chat", json={"preset": "gg"}, headers=bob),
        client.patch(f"{API}/users/me", json={"about": "new"}, headers=bob),
        client.patch(f"{API}/users/me", json={"display_name": "Bobby"}, headers=bob),
        client.put(f"{API}/users/me/testimonial", json={"body": "Nice"}, headers=bob),
        client.post(
            f"{API}/tournaments",
            json={
                "name": "Cup",
                "game": "boatzee",
                "format": "cup",
                "size": 4,
                "pace": {"bank": 60},
            },
            headers=bob,
        ),
    ]
    for answer in writes:
        body = refused(answer, 403, "muted")
        assert "You are muted until" in body["error"] and "UTC on" in body["error"], body
        assert body["until"] == (now() + timedelta(minutes=60)).isoformat()
    with services.read_conn() as conn:
        assert conn.execute(select(func.count()).select_from(Message)).scalar_one() == 0
    assert client.get(f"{API}/users/me", headers=bob).json()["about"] == ""
    # Reports are never refused; an appeal reaches the moderator who acted, whatever her
    # message settings say.
    created(report(client, bob, "user", "alice", reason="other"))
    created(message(client, bob, "mia", "please reconsider"))
    site_clock.shift(timedelta(minutes=59))
    refused(message(client, bob, "alice", "hello"), 403, "muted")
    site_clock.shift(timedelta(minutes=1, seconds=1))
    created(message(client, bob, "alice", "hello"))
    created(client.post(f"{API}/games/{game['id']}/chat", json={"body": "hi"}, headers=bob))


def services_pk(services: Services, name: str) -> int:
    from dicehall.server.core.models import User

    with services.read_conn() as conn:
        return int(conn.execute(select(User.id).where(User.key == name)).scalar_one())


def test_a_suspended_user_cannot_sign_in_until_it_is_lifted(
    client: TestClient, make_user: MakeUser, services: Services, site_clock: TimeMachineFixture
) -> None:
    mia = make_user("mia")
    make_moderator(services, "mia")
    signed_up = client.post(f"{API}/auth/signup", json={"user_id": "bob", "password": PASSWORD})
    assert signed_up.status_code == 201, signed_up.text
    token = client.post(
        f"{API}/tokens",
        json={"name": "bot"},
        headers={"X-CSRF-Token": signed_up.json()["csrf_token"]},
    ).json()["token"]
    bearer = {"Authorization": f"Bearer {token}"}
    created(act(client, mia, "suspend", user_id="bob", minutes=120))
    # The session is ended, the token refused while it lasts, and signing in says until when.
    refused(client.get(f"{API}/users/me"), 401, "session_expired")
    body = refused(client.get(f"{API}/users/me", headers=bearer), 403, "suspended")
    assert "suspended until" in body["error"]
    other = browser(client)
    body = refused(
        other.post(f"{API}/auth/login", json={"user_id": "bob", "password": PASSWORD}),
        403,
        "suspended",
    )
    assert (
        "UTC on" in body["error"] and body["until"] == (now() + timedelta(minutes=120)).isoformat()
    )
    # Without the password nobody learns of the suspension.
    refused(
        other.post(f"{API}/auth/login", json={"user_id": "bob", "password": "wrong one!"}),
        401,
        "wrong_login",
    )
    site_clock.shift(timedelta(minutes=121))
    assert client.get(f"{API}/users/me", headers=bearer).status_code == 200
    created(act(client, mia, "suspend", user_id="bob", minutes=120))
    created(act(client, mia, "lift", user_id="bob"))
    log_in(other, "bob")


def test_a_closed_account_is_gone(
    client: TestClient, make_user: MakeUser, services: Services
) -> None:
    alice, mia = make_user("alice"), make_user("mia")
    make_moderator(services, "mia")
    signed_up = client.post(f"{API}/auth/signup", json={"user_id": "bob", "password": PASSWORD})
    csrf = {"X-CSRF-Token": signed_up.json()["csrf_token"]}
    token = client.post(f"{API}/tokens", json={"name": "bot"}, headers=csrf).json()["token"]
    bearer = {"Authorization": f"Bearer {token}"}
    client.put(f"{API}/users/me/testimonial", json={"body": "Fine site"}, headers=csrf)
    mine = client.get(f"{API}/users/me/testimonial", headers=bearer).json()
    created_ok = client.post(f"{API}/moderation/testimonials/{mine['id']}/approve", headers=mia)
    assert created_ok.status_code == 200, created_ok.text
    with services.writers() as db, db.begin():
        bob_pk = db.scalars(select(User.id).where(User.key == "bob")).one()
        db.add(Webhook(user_pk=bob_pk, url="https://hooks.example.org/x", format="json",
                       created_at=now()))  # fmt: skip
    created(act(client, mia, "close", user_id="bob", reason="spam account"))
    with services.sessions() as db:  # nothing goes out to a closed account's hook
        assert db.scalar(select(func.count()).select_from(Webhook)) == 0
    refused(client.get(f"{API}/users/me", headers=bearer), 401, "unauthenticated")
    refused(client.get(f"{API}/users/me"), 401, "session_expired")
    refused(
        browser(client).post(f"{API}/auth/login", json={"user_id": "bob", "password": PASSWORD}),
        403,
        "account_closed",
    )
    refused(browser(client).get(f"{API}/users/bob"), 404, "account_closed")
    found = client.get(f"{API}/users", params={"q": "bob"}, headers=alice).json()
    assert all(u["user_id"] != "bob" for u in found["users"]), found
    assert browser(client).get(f"{API}/testimonials").json()["testimonials"] == []
    refused(act(client, mia, "warn", user_id="bob"), 409, "account_closed")
    assert audit(client, mia, user_id="bob")[0]["reason"] == "spam account"


def test_hidden_content_shows_as_hidden_to_others(
    client: TestClient, make_user: MakeUser, services: Services, site_clock: TimeMachineFixture
) -> None:
    game, alice, bob = two_players(client, make_user, private=False)
    mia = make_user("mia")
    make_moderator(services, "mia")
    sent = created(message(client, bob, "alice", "something nasty"))
    line = created(
        client.post(f"{API}/games/{game['id']}/chat", json={"body": "nasty line"}, headers=bob)
    )
    client.patch(
        f"{API}/users/me", json={"about": "nasty about", "display_name": "Nasty"}, headers=bob
    )
    created(act(client, mia, "hide", content_kind="message", content_id=sent["id"]))
    created(act(client, mia, "hide", content_kind="chat", content_id=line["id"]))
    created(act(client, mia, "hide", content_kind="profile", user_id="bob"))
    refused(
        act(client, mia, "hide", content_kind="chat", content_id=line["id"]), 409, "already_hidden"
    )
    thread = client.get(f"{API}/messages/bob", headers=alice).json()
    assert [m["body"] for m in thread["messages"]] == [HIDDEN_TEXT]
    listed = client.get(f"{API}/messages", headers=alice).json()["threads"]
    assert listed[0]["last"]["preview"] == HIDDEN_TEXT
    chat = client.get(f"{API}/games/{game['id']}/chat", headers=alice).json()
    assert [entry["body"] for entry in chat["lines"]] == [HIDDEN_TEXT]
    shown = client.get(f"{API}/users/bob").json()
    assert shown["about"] == "" and shown["display_name"] == "bob"
    # A hidden message is shown again when a moderator says so; the audit log kept the text.
    created(act(client, mia, "unhide", content_kind="message", content_id=sent["id"]))
    thread = client.get(f"{API}/messages/bob", headers=alice).json()
    assert [m["body"] for m in thread["messages"]] == ["something nasty"]
    contents = {
        e["content_kind"]: e["content"] for e in audit(client, mia) if e["action"] == "hide"
    }
    assert contents["chat"] == "nasty line" and "nasty about" in (contents["profile"] or "")
