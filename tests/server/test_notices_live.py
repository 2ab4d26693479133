"""The issue's acceptance run: a two-person game played to the end through the API against
a real site (a web process without background work, two ``dicehall worker`` nodes), one
player on e-mail (a real SMTP server), the other on web push (a local RFC 8030 service that
checks the VAPID signature and decrypts) and a webhook (a local receiver). Every "your turn"
reaches its channel within 60 s, none while the game is open in the player's tab, none
twice, though one worker is killed with SIGKILL mid-game."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import httpx2
import pytest
from sqlalchemy import select, update
from websockets.sync.client import connect

from dicehall.server.core.clock import aware, now
from dicehall.server.core.models import Delivery, GameView, User
from dicehall.server.domain.services import Services, build_services
from tests.live import LiveServer, LiveWorker, add_user
from tests.server.conftest import site_settings
from tests.server.pushservice import PushService, push_service
from tests.server.smtpd import SmtpServer, running_smtp_server
from tests.server.webhook_receiver import Receiver
from tests.waiting import wait_until

API = "/api/v1"
Headers = dict[str, str]

pytestmark = pytest.mark.slow


@pytest.fixture
def receivers() -> Iterator[tuple[SmtpServer, PushService, Receiver]]:
    receiver = Receiver()
    try:
        with running_smtp_server() as smtp, push_service() as pushes:
            yield smtp, pushes, receiver
    finally:
        receiver.close()


def choose(services: Services, name: str, **values: Any) -> None:
    settings = values.pop("settings")
    with services.write_conn() as conn:
        conn.execute(
            update(User).where(User.user_id == name).values(settings=json.dumps(settings), **values)
        )


def open_views(services: Services) -> int:
    with services.read_conn() as conn:
        rows = conn.execute(select(GameView.closed_at)).all()
    return sum(1 for row in rows if row.closed_at is None)


def play(client: httpx2.Client, game_id: int, headers: Headers) -> dict[str, Any]:
    mine = client.get(f"{API}/games/{game_id}", headers=headers).json()
    moved = client.post(
        f"{API}/games/{game_id}/actions",
        json={"action": mine["legal"][0], "expected_version": mine["version"]},
        headers=headers,
    )
    assert moved.status_code == 200, moved.text
    game: dict[str, Any] = moved.json()
    return game


def your_turns(services: Services) -> list[Any]:
    with services.read_conn() as conn:
        return list(
            conn.execute(
                select(Delivery.__table__).where(Delivery.kind == "your_turn").order_by(Delivery.id)
            ).all()
        )


def test_every_turn_reaches_its_channel_once_through_a_killed_worker(
    db_url: str, receivers: tuple[SmtpServer, PushService, Receiver]
) -> None:
    smtp, pushes, receiver = receivers
    server = LiveServer(db_url, background=False)
    extra = {
        "DICEHALL_SMTP_URL": smtp.url(),
        "DICEHALL_OUTBOUND_ALLOW": "127.0.0.1",
        "DICEHALL_DELIVERY_SECONDS": "0.5",
        "DICEHALL_EMAIL_QUIET_SECONDS": "0",
        "DICEHALL_SITE_URL": server.base,
    }
    server.launch(environ={**os.environ, **extra})
    server.wait_ready()
    services = build_services(site_settings(db_url))
    workers = [LiveWorker(db_url, environ=extra) for _ in range(2)]
    try:
        for worker in workers:
            worker.start()
        alice, bob = add_user(services, "alice"), add_user(services, "bob")
        choose(
            services,
            "alice",
            email="alice@example.org",
            email_verified_at=now(),
            settings={"email_mode": "immediate", "email_kinds": ["your_turn"]},
        )
        only_turns = {
            "email_mode": "off",
            "push_kinds": ["your_turn"],
            "webhook_kinds": ["your_turn"],
        }
        choose(services, "bob", settings=only_turns)
        with httpx2.Client(base_url=server.base, timeout=30) as client:
            subscription = pushes.new_subscription()
            made = client.post(f"{API}/push/subscriptions", json=subscription, headers=bob)
            assert made.status_code == 201, made.text
            hook = {"url": receiver.url(), "format": "json"}
            assert client.put(f"{API}/users/me/webhook", json=hook, headers=bob).status_code == 200

            created = client.post(
                f"{API}/games", json={"game": "boatzee", "seats": ["me", "bob"]}, headers=alice
            )
            assert created.status_code == 201, created.text
            game_id = created.json()["id"]
            game = client.post(f"{API}/games/{game_id}/accept", headers=bob).json()
            players = {0: alice, 1: bob}
            expected = {0: 1, 1: 0}  # the game starts on alice's turn: she is told
            seen_open = 0
            turns = 0
            socket = None

            def settled() -> bool:
                rows = your_turns(services)
                return bool(rows) and all(row.status in ("sent", "skipped") for row in rows)

            while game["status"] == "active":
                before = game["to_act"]
                game = play(client, game_id, players[before])
                if game["status"] != "active" or game["to_act"] == before:
                    continue
                turns += 1
                if turns == 9:
                    # One worker dies mid-game, whatever it was doing (sending
                    # this turn's notices, perhaps: another worker sends them after the claim
                    # runs out).
                    process = workers[0].process
                    assert process is not None
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait(timeout=10)
                # People take longer than a request to move: each turn's notices are
                # settled before the next move (so "open" and "closed" are exact).
                wait_until(settled, timeout=60, what="the turn's notices to settle")
                if socket is not None and game["to_act"] == 1:
                    seen_open += 1  # bob is looking at it: nothing reaches his channels
                else:
                    expected[game["to_act"]] += 1
                if turns == 6:
                    # bob opens the game (his board's socket follows it) for a while.
                    url = server.base.replace("http", "ws") + f"{API}/ws?watch={game_id}"
                    socket = connect(url, additional_headers=bob)
                    wait_until(lambda: open_views(services) == 1, what="bob's game to be open")
                if turns == 12 and socket is not None:
                    socket.close()
                    socket = None
                    wait_until(lambda: open_views(services) == 0, what="bob's game to close")

        wait_until(settled, timeout=120, interval=0.5, what="every turn notice to be settled")
        rows = your_turns(services)
        assert seen_open >= 2
        mails = [m for m in smtp.received if str(m.message["Subject"]).startswith("Your turn")]
        assert len(mails) == expected[0]
        assert len({m.message["Message-ID"] for m in mails}) == expected[0]
        assert all(m.rcpt_tos == ("alice@example.org",) for m in mails)
        pushed = pushes.pushes(subscription)
        assert len(pushed) == expected[1]
        assert len({p.message["id"] for p in pushed}) == expected[1]
        posted = receiver.requests
        assert len(posted) == expected[1]
        assert len({r.header("Idempotency-Key") for r in posted}) == expected[1]
        skipped = [row for row in rows if row.status == "skipped"]
        # Both of bob's channels, for each of his turns while the game was open.
        assert len(skipped) == 2 * seen_open
        assert all(row.channel in ("push", "webhook") for row in skipped)
        for row in rows:
            if row.status == "sent":
                took = aware(row.sent_at) - aware(row.created_at)
                assert took <= timedelta(seconds=60), (row.id, took)
        assert workers[1].process is not None and workers[1].process.poll() is None
    finally:
        for worker in workers:
            worker.stop()
        server.stop()
        services.engine.dispose()
