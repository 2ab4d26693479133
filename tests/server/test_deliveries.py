"""Notices on their way to e-mail, web push and webhooks: queued in the move's transaction,
sent by the ``deliveries`` job once per channel, skipped while the game is open in the
player's tab, retried with backoff, gathered into a daily digest, and never for a game the
player has left."""

from __future__ import annotations

import json
import mailbox
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select, update
from time_machine import TimeMachineFixture

from dicehall.server.app import create_app
from dicehall.server.core.clock import now
from dicehall.server.core.models import Delivery, GameRow, User
from dicehall.server.domain.notices import delivery, viewing
from dicehall.server.domain.notices.kinds import KINDS
from dicehall.server.domain.notices.outbox import next_digest
from dicehall.server.domain.people.settings import UserSettings
from dicehall.server.domain.services import Services, build_services
from tests.live import add_user
from tests.server.conftest import site_settings
from tests.server.pushservice import PushService, push_service
from tests.server.webhook_receiver import Receiver

API = "/api/v1"
Headers = dict[str, str]


@pytest.fixture
def site_clock(time_machine: TimeMachineFixture) -> TimeMachineFixture:
    """The site's clock, stopped: it moves only when the test moves it."""
    time_machine.move_to(now(), tick=False)
    return time_machine


@pytest.fixture
def mail_dir(tmp_path: Path) -> Path:
    return tmp_path / "mail"


@pytest.fixture
def noticing(db_url: str, mail_dir: Path) -> Iterator[tuple[TestClient, Services]]:
    """A site whose deliveries the test runs by hand (no periodic job), reaching the
    loopback's receivers."""
    built = build_services(
        site_settings(
            db_url,
            mail_dir=str(mail_dir),
            outbound_allow=("127.0.0.1",),
            deliveries=False,
            email_quiet_seconds=30.0,
        )
    )
    try:
        with TestClient(create_app(services=built)) as client:
            yield client, built
    finally:
        built.engine.dispose()


def verified(services: Services, name: str, **chosen: Any) -> Headers:
    """A user with a verified address ``name@example.org`` and the settings ``chosen``."""
    headers = add_user(services, name)
    with services.write_conn() as conn:
        conn.execute(
            update(User)
            .where(User.user_id == name)
            .values(
                email=f"{name}@example.org",
                email_verified_at=now(),
                settings=json.dumps(chosen),
            )
        )
    return headers


def started(client: TestClient, alice: Headers, bob: Headers) -> dict[str, Any]:
    """A Boatzee game of alice (seat 0, to act) and bob."""
    made = client.post(
        f"{API}/games", json={"game": "boatzee", "seats": ["me", "bob"]}, headers=alice
    )
    assert made.status_code == 201, made.text
    accepted = client.post(f"{API}/games/{made.json()['id']}/accept", headers=bob)
    assert accepted.status_code == 200, accepted.text
    game: dict[str, Any] = accepted.json()
    return game


def pass_turn(client: TestClient, game: dict[str, Any], players: dict[int, Headers]) -> Any:
    """The seat to act moves (first legal action) until the turn is the other seat's."""
    seat = game["to_act"]
    for _ in range(20):
        mine = client.get(f"{API}/games/{game['id']}", headers=players[seat]).json()
        moved = client.post(
            f"{API}/games/{game['id']}/actions",
            json={"action": mine["legal"][0], "expected_version": mine["version"]},
            headers=players[seat],
        )
        assert moved.status_code == 200, moved.text
        game = moved.json()
        if game["to_act"] != seat or game["status"] != "active":
            return game
    raise AssertionError("the turn never passed")


def deliveries(services: Services) -> list[Any]:
    with services.read_conn() as conn:
        return list(conn.execute(select(Delivery.__table__).order_by(Delivery.id)).all())


def mails(folder: Path, subject: str = "") -> list[Any]:
    """The mails written to the Maildir (those whose subject starts with ``subject``)."""
    if not folder.exists():
        return []
    found = sorted(mailbox.Maildir(folder, create=False), key=lambda m: m["Date"])
    return [m for m in found if str(m["Subject"]).startswith(subject)]


def test_a_turn_is_mailed_once_and_skipped_while_the_game_is_open(
    noticing: tuple[TestClient, Services], mail_dir: Path, site_clock: TimeMachineFixture
) -> None:
    client, services = noticing
    alice = verified(services, "alice")
    bob = verified(services, "bob", email_mode="immediate")
    game = started(client, alice, bob)
    game = pass_turn(client, game, {0: alice, 1: bob})
    assert game["to_act"] == 1
    queued = [d for d in deliveries(services) if d.channel == "email" and d.kind == "your_turn"]
    # alice's e-mail (her turn at the start) waits for her digest; bob's goes at once.
    assert [(d.user_pk, d.status) for d in queued] == [
        (_pk(services, "alice"), "digest"),
        (_pk(services, "bob"), "pending"),
    ]
    delivery.run(services, now())
    sent = mails(mail_dir, "Your turn")
    assert len(sent) == 1 and sent[0]["To"] == "bob@example.org"
    assert (
        sent[0]["List-Unsubscribe"].startswith("<http")
        and "One-Click" in sent[0]["List-Unsubscribe-Post"]
    )
    # Run again: nothing is sent twice.
    delivery.run(services, now())
    assert len(mails(mail_dir, "Your turn")) == 1

    # bob opens the game: his next turn is not mailed (he sees it).
    bob_pk = queued[-1].user_pk
    with services.write_conn() as conn:
        viewing.opened(conn, "sock-1", bob_pk, game["id"], now())
    game = pass_turn(client, game, {0: alice, 1: bob})  # bob's turn passes to alice
    game = pass_turn(client, game, {0: alice, 1: bob})  # and back to bob
    delivery.run(services, now())
    assert len(mails(mail_dir, "Your turn")) == 1
    bob_rows = [d for d in deliveries(services) if d.user_pk == bob_pk and d.kind == "your_turn"]
    assert bob_rows[-1].status == "skipped"

    # He closes it: the next turn waits for the quiet time, then goes.
    with services.write_conn() as conn:
        viewing.closed(conn, "sock-1", now())
    game = pass_turn(client, game, {0: alice, 1: bob})
    game = pass_turn(client, game, {0: alice, 1: bob})
    delivery.run(services, now())
    assert len(mails(mail_dir, "Your turn")) == 1
    site_clock.shift(31)
    delivery.run(services, now())
    assert len(mails(mail_dir, "Your turn")) == 2


def test_the_digest_gathers_a_day_into_one_mail_at_the_local_hour(
    noticing: tuple[TestClient, Services], mail_dir: Path, site_clock: TimeMachineFixture
) -> None:
    client, services = noticing
    alice = verified(services, "alice", email_mode="digest", time_zone="Asia/Tokyo", digest_hour=7)
    bob = verified(services, "bob", email_mode="off")
    players = {0: alice, 1: bob}
    games = [started(client, alice, bob) for _ in range(2)]
    for game in games:
        game = pass_turn(client, game, players)
        pass_turn(client, game, players)
    rows = [d for d in deliveries(services) if d.channel == "email"]
    assert rows and all(d.status == "digest" for d in rows)
    due = rows[0].due_at
    # 07:00 in Tokyo is 22:00 UTC.
    assert due.hour == 22 and due.minute == 0
    assert delivery.run(services, now()) == 0 and not mails(mail_dir)
    site_clock.move_to(due.replace(tzinfo=now().tzinfo) + timedelta(seconds=1), tick=False)
    delivery.run(services, now())
    sent = mails(mail_dir)
    assert len(sent) == 1 and sent[0]["To"] == "alice@example.org"
    body = sent[0].get_payload()[0].get_payload(decode=True).decode()
    for game in games:
        assert f"/games/{game['id']}" in body
    assert all(d.status == "sent" for d in deliveries(services) if d.channel == "email")
    # One click on the digest's List-Unsubscribe turns off every kind it held, and no other.
    held = {d.kind for d in deliveries(services) if d.channel == "email"}
    link = sent[0]["List-Unsubscribe"].strip("<>")
    path = link[link.index("/unsubscribe/") :]
    clicked = client.post(path, data={"List-Unsubscribe": "One-Click"})
    assert clicked.status_code == 200, clicked.text
    kinds = client.get(f"{API}/users/me/settings", headers=alice).json()["email_kinds"]
    assert held and not held & set(kinds) and set(kinds) == set(KINDS) - held


def test_a_webhook_that_fails_twice_is_retried_with_backoff_and_told_once(
    noticing: tuple[TestClient, Services], site_clock: TimeMachineFixture
) -> None:
    client, services = noticing
    alice = verified(services, "alice", email_mode="off")
    bob = verified(services, "bob", email_mode="off", webhook_kinds=["your_turn"])
    receiver = Receiver()
    try:
        receiver.fail_first = 2
        put = client.put(
            f"{API}/users/me/webhook", json={"url": receiver.url(), "format": "json"}, headers=bob
        )
        assert put.status_code == 200, put.text
        game = pass_turn(client, started(client, alice, bob), {0: alice, 1: bob})
        assert game["to_act"] == 1
        delivery.run(services, now())
        hook = client.get(f"{API}/users/me/webhook", headers=bob).json()
        assert "500" in hook["last_error"]
        (row,) = [
            d for d in deliveries(services) if d.channel == "webhook" and d.kind == "your_turn"
        ]
        assert row.status == "pending" and row.attempts == 1
        waited = (row.due_at.replace(tzinfo=now().tzinfo) - now()).total_seconds()
        assert 7.5 <= waited <= 22.5  # 15 s with jitter
        delivery.run(services, now())
        assert len(receiver.requests) == 1  # not due yet
        for _ in range(2):
            site_clock.shift(3700)
            delivery.run(services, now())
        arrived = receiver.requests
        assert len(arrived) == 3
        accepted = json.loads(arrived[-1].body)
        assert accepted["kind"] == "your_turn" and accepted["game"] == game["id"]
        assert arrived[-1].header("Idempotency-Key") == f"dicehall-{row.id}"
        (row,) = [
            d for d in deliveries(services) if d.channel == "webhook" and d.kind == "your_turn"
        ]
        assert row.status == "sent" and row.attempts == 3
        site_clock.shift(3700)
        delivery.run(services, now())
        assert len(receiver.requests) == 3
    finally:
        receiver.close()


@pytest.fixture
def pushes() -> Iterator[PushService]:
    with push_service() as service:
        yield service


def test_a_push_subscription_that_is_gone_is_dropped(
    noticing: tuple[TestClient, Services], pushes: PushService
) -> None:
    client, services = noticing
    push_service = pushes
    alice = verified(services, "alice", email_mode="off")
    bob = verified(services, "bob", email_mode="off", push_kinds=["your_turn"])
    subscription = push_service.new_subscription()
    made = client.post(f"{API}/push/subscriptions", json=subscription, headers=bob)
    assert made.status_code == 201, made.text
    players = {0: alice, 1: bob}
    game = pass_turn(client, started(client, alice, bob), players)
    delivery.run(services, now())
    (push,) = push_service.wait_for(1)
    assert push.message["url"].endswith(f"/games/{game['id']}")
    assert push.message["tag"] == f"game-{game['id']}"
    push_service.end(subscription)
    game = pass_turn(client, pass_turn(client, game, players), players)
    delivery.run(services, now())
    assert client.get(f"{API}/push/subscriptions", headers=bob).json() == {"subscriptions": []}
    rows = [d for d in deliveries(services) if d.channel == "push"]
    assert [d.status for d in rows] == ["sent", "failed"]


def test_nothing_reaches_a_player_who_left_the_game(
    noticing: tuple[TestClient, Services], mail_dir: Path
) -> None:
    client, services = noticing
    alice = verified(services, "alice", email_mode="immediate")
    bob = verified(services, "bob", email_mode="immediate")
    game = started(client, alice, bob)
    resigned = client.post(
        f"{API}/games/{game['id']}/resign",
        json={"expected_version": game["version"]},
        headers=alice,
    )
    assert resigned.status_code == 200, resigned.text
    # Her turn was queued before she resigned; it is not sent, nor anything after.
    delivery.run(services, now())
    alice_rows = [d for d in deliveries(services) if d.user_pk == _pk(services, "alice")]
    assert [(d.kind, d.status) for d in alice_rows] == [("your_turn", "skipped")]
    # bob: the invitation, and that the game is over.
    assert {m["To"] for m in mails(mail_dir)} == {"bob@example.org"}
    assert len(mails(mail_dir, "Game over")) == 1
    bell = client.get(f"{API}/notifications", headers=alice).json()["notifications"]
    assert all(line["game"] != game["id"] for line in bell)


def _pk(services: Services, name: str) -> int:
    with services.read_conn() as conn:
        return int(conn.execute(select(User.id).where(User.user_id == name)).scalar_one())


@pytest.mark.both_databases
def test_two_senders_never_claim_the_same_delivery(
    noticing: tuple[TestClient, Services], mail_dir: Path
) -> None:
    client, services = noticing
    alice = verified(services, "alice", email_mode="immediate")
    bob = verified(services, "bob", email_mode="immediate")
    players = {0: alice, 1: bob}
    for _ in range(3):
        game = started(client, alice, bob)
        for _ in range(3):
            game = pass_turn(client, game, players)
    expected = len([d for d in deliveries(services) if d.status == "pending"])
    assert expected >= 9
    with ThreadPoolExecutor(3) as pool:
        settled = sum(pool.map(lambda _: delivery.run(services, now()), range(3)))
    assert settled == expected
    sent = mails(mail_dir)
    assert len(sent) == expected
    assert len({m["Message-ID"] for m in sent}) == expected


def test_a_message_reaches_the_recipients_webhook_but_not_their_bell(
    noticing: tuple[TestClient, Services],
) -> None:
    client, services = noticing
    alice = verified(services, "alice", email_mode="off")
    bob = verified(services, "bob", email_mode="off", webhook_kinds=["message"])
    receiver = Receiver()
    try:
        hook = {"url": receiver.url(), "format": "slack"}
        assert client.put(f"{API}/users/me/webhook", json=hook, headers=bob).status_code == 200
        sent = client.post(
            f"{API}/messages/bob", json={"body": "rematch <tonight>?"}, headers=alice
        )
        assert sent.status_code == 201, sent.text
        delivery.run(services, now())
        (posted,) = receiver.wait_for(1)
        text = json.loads(posted.body)["text"]
        assert "alice" in text and "rematch &lt;tonight&gt;?" in text
        assert "/messages/with/alice" in text
        assert client.get(f"{API}/notifications", headers=bob).json()["unread"] == 0
    finally:
        receiver.close()


def test_the_reminders_a_player_sets_time_their_clock_notices(
    noticing: tuple[TestClient, Services],
) -> None:
    client, services = noticing
    alice = verified(services, "alice", email_mode="off")
    bob = verified(services, "bob", email_mode="off")
    chosen = client.patch(
        f"{API}/users/me/settings", json={"reminders": ["25%", " 2D ", "25%"]}, headers=bob
    )
    assert chosen.status_code == 200, chosen.text
    assert chosen.json()["reminders"] == ["25%", "2d"]
    for wrong in (["120%"], ["soon"], ["0%"], ["1h", "2h", "3h", "4h", "5h", "6h"]):
        refused = client.patch(f"{API}/users/me/settings", json={"reminders": wrong}, headers=bob)
        assert refused.status_code == 422 and refused.json()["code"] == "invalid_settings"
    made = client.post(
        f"{API}/games",
        json={"game": "boatzee", "seats": ["me", "bob"], "pace": "days-3"},
        headers=alice,
    )
    assert made.status_code == 201, made.text
    game = client.post(f"{API}/games/{made.json()['id']}/accept", headers=bob).json()
    game = pass_turn(client, game, {0: alice, 1: bob})
    assert game["to_act"] == 1
    with services.read_conn() as conn:
        row = conn.execute(
            select(GameRow.remind_at, GameRow.deadline).where(GameRow.id == game["id"])
        ).one()
    # Three days per move: 25% used is 18 h in, 2 days left is a day in; the first is next.
    left = (row.deadline - row.remind_at).total_seconds()
    assert left == pytest.approx(3 * 86400 - 18 * 3600, abs=2)


def test_a_claim_left_by_a_killed_sender_runs_out_and_is_sent_once(
    noticing: tuple[TestClient, Services], mail_dir: Path, site_clock: TimeMachineFixture
) -> None:
    client, services = noticing
    alice = verified(services, "alice", email_mode="off")
    bob = verified(services, "bob", email_mode="immediate", email_kinds=["your_turn"])
    game = pass_turn(client, started(client, alice, bob), {0: alice, 1: bob})
    assert game["to_act"] == 1
    # A process claims it and dies before sending (nothing settles its claim).
    held = delivery._claim(services)
    assert isinstance(held, delivery.Claimed) and held.rows[0].kind == "your_turn"
    delivery.run(services, now())
    assert mails(mail_dir) == []
    site_clock.shift(delivery.LEASE.total_seconds() + 1)
    delivery.run(services, now())
    (sent,) = mails(mail_dir)
    assert sent["To"] == "bob@example.org"
    (row,) = deliveries(services)
    assert (row.status, row.attempts) == ("sent", 2)
    site_clock.shift(delivery.LEASE.total_seconds() + 1)
    delivery.run(services, now())
    assert len(mails(mail_dir)) == 1


@pytest.mark.both_databases
def test_digests_sent_by_several_senders_at_once_go_once_each(
    noticing: tuple[TestClient, Services], mail_dir: Path, site_clock: TimeMachineFixture
) -> None:
    client, services = noticing
    names = ["ann", "ben", "cat", "dan"]
    headers = {name: verified(services, name, email_mode="digest", digest_hour=6) for name in names}
    for first, second in zip(names, names[1:] + names[:1], strict=True):
        for _ in range(2):
            game = started_between(client, headers[first], headers[second], second)
            pass_turn(
                client,
                pass_turn(client, game, {0: headers[first], 1: headers[second]}),
                {0: headers[first], 1: headers[second]},
            )
    rows = [d for d in deliveries(services) if d.channel == "email"]
    assert {d.status for d in rows} == {"digest"}
    site_clock.shift(86400)
    with ThreadPoolExecutor(3) as pool:
        list(pool.map(lambda _: delivery.run(services, now()), range(3)))
    sent = mails(mail_dir)
    assert sorted(m["To"] for m in sent) == sorted(f"{name}@example.org" for name in names)
    assert {d.status for d in deliveries(services) if d.channel == "email"} == {"sent"}


def started_between(client: TestClient, first: Headers, second: Headers, name: str) -> Any:
    """A Boatzee game of ``first`` (seat 0, to act) and ``second`` (user ``name``)."""
    made = client.post(
        f"{API}/games", json={"game": "boatzee", "seats": ["me", name]}, headers=first
    )
    assert made.status_code == 201, made.text
    accepted = client.post(f"{API}/games/{made.json()['id']}/accept", headers=second)
    assert accepted.status_code == 200, accepted.text
    return accepted.json()


def test_the_digest_hour_keeps_to_local_time_across_a_clock_change() -> None:
    paris = UserSettings(time_zone="Europe/Paris", digest_hour=8)
    # The night summer time ends (25 October 2026): 08:00 in Paris is 07:00 UTC after it.
    before = datetime(2026, 10, 24, 12, 0, tzinfo=UTC)
    assert next_digest(paris, before) == datetime(2026, 10, 25, 7, 0, tzinfo=UTC)
    # And summer time (29 March 2026): 08:00 in Paris is 06:00 UTC.
    spring = datetime(2026, 3, 28, 12, 0, tzinfo=UTC)
    assert next_digest(paris, spring) == datetime(2026, 3, 29, 6, 0, tzinfo=UTC)
    # Just past the hour: tomorrow's.
    assert next_digest(paris, datetime(2026, 3, 29, 6, 0, 1, tzinfo=UTC)) == datetime(
        2026, 3, 30, 6, 0, tzinfo=UTC
    )
