"""Push sockets: a cap per user, and sockets that end with the session or token they used."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from contextlib import ExitStack

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select
from starlette.websockets import WebSocketDisconnect

from dicehall.server.app import create_app
from dicehall.server.core.models import User
from dicehall.server.domain.services import Services, build_services
from dicehall.server.infra.push import CLOSE_SIGNED_OUT, CLOSE_TOO_MANY, RedisBroker
from tests.server.conftest import MakeUser, site_settings
from tests.server.test_accounts import PASSWORD, browser, sign_up
from tests.server.test_redis_isolation import REDIS_URL, need_redis

API = "/api/v1"


@pytest.fixture
def capped(db_url: str) -> Iterator[Services]:
    """A site that allows 3 push sockets per user."""
    built = build_services(site_settings(db_url, sockets_per_user=3))
    try:
        yield built
    finally:
        built.engine.dispose()


def _user_pk(services: Services, user_id: str) -> int:
    with services.sessions() as db:
        pk = db.scalar(select(User.id).where(User.key == user_id.lower()))
    assert pk is not None
    return pk


def _closed_with(socket: object, code: int, services: Services, user_id: str) -> None:
    """The socket is closed with ``code``: a push sent after the order never reaches it (a
    socket left open would receive the push, and fail here rather than hang)."""
    services.broker.publish(_user_pk(services, user_id), {"type": "ping"})
    with pytest.raises(WebSocketDisconnect) as closed:
        socket.receive_json()  # type: ignore[attr-defined]
    assert closed.value.code == code


def test_sockets_per_user_are_capped(capped: Services, make_user: MakeUser) -> None:
    alice = make_user("alice")
    bob = make_user("bob")
    with TestClient(create_app(services=capped)) as client, ExitStack() as stack:
        first = ExitStack()
        stack.enter_context(first)
        sockets = [first.enter_context(client.websocket_connect(f"{API}/ws", headers=alice))]
        sockets += [
            stack.enter_context(client.websocket_connect(f"{API}/ws", headers=alice)) for _ in "ab"
        ]
        for socket in sockets:
            assert socket.receive_json() == {"type": "hello"}
        # A fourth is refused before it is accepted; the three keep working.
        with (
            pytest.raises(WebSocketDisconnect) as refused,
            client.websocket_connect(f"{API}/ws", headers=alice) as extra,
        ):
            extra.receive_json()
        assert refused.value.code == CLOSE_TOO_MANY
        assert "3" in refused.value.reason
        # Another user is not affected.
        with client.websocket_connect(f"{API}/ws", headers=bob) as socket:
            assert socket.receive_json() == {"type": "hello"}
        # Closing one makes room for one.
        first.close()
        with client.websocket_connect(f"{API}/ws", headers=alice) as socket:
            assert socket.receive_json() == {"type": "hello"}
        capped.broker.publish(_user_pk(capped, "alice"), {"type": "ping"})
        for socket in sockets[1:]:
            assert socket.receive_json() == {"type": "ping"}


def test_log_out_closes_that_sessions_sockets(client: TestClient, services: Services) -> None:
    csrf = sign_up(client, "alice")
    other = browser(client)
    other_csrf = sign_up(other, "bob")
    del other_csrf
    second = browser(client)
    response = second.post(f"{API}/auth/login", json={"user_id": "alice", "password": PASSWORD})
    assert response.status_code == 200
    with (
        client.websocket_connect(f"{API}/ws") as mine,
        second.websocket_connect(f"{API}/ws") as kept,
        other.websocket_connect(f"{API}/ws") as bobs,
    ):
        for socket in (mine, kept, bobs):
            assert socket.receive_json() == {"type": "hello"}
        logged_out = client.post(f"{API}/auth/logout", headers={"X-CSRF-Token": csrf})
        assert logged_out.status_code == 200
        _closed_with(mine, CLOSE_SIGNED_OUT, services, "alice")
        # alice's other session and bob keep their sockets.
        services.broker.publish(_user_pk(services, "alice"), {"type": "ping"})
        services.broker.publish(_user_pk(services, "bob"), {"type": "ping"})
        assert kept.receive_json() == {"type": "ping"}
        assert bobs.receive_json() == {"type": "ping"}


def test_password_change_closes_the_other_sessions_sockets(
    client: TestClient, services: Services
) -> None:
    csrf = sign_up(client, "alice")
    elsewhere = browser(client)
    response = elsewhere.post(f"{API}/auth/login", json={"user_id": "alice", "password": PASSWORD})
    assert response.status_code == 200
    with (
        client.websocket_connect(f"{API}/ws") as mine,
        elsewhere.websocket_connect(f"{API}/ws") as theirs,
    ):
        assert mine.receive_json() == theirs.receive_json() == {"type": "hello"}
        changed = client.post(
            f"{API}/auth/password",
            json={"old_password": PASSWORD, "new_password": "a brand new secret"},
            headers={"X-CSRF-Token": csrf},
        )
        assert changed.status_code == 200, changed.text
        _closed_with(theirs, CLOSE_SIGNED_OUT, services, "alice")
        services.broker.publish(_user_pk(services, "alice"), {"type": "ping"})
        assert mine.receive_json() == {"type": "ping"}


def test_revoking_a_token_closes_its_sockets(client: TestClient, services: Services) -> None:
    csrf = sign_up(client, "alice")
    made = client.post(f"{API}/tokens", json={"name": "bot"}, headers={"X-CSRF-Token": csrf})
    kept = client.post(f"{API}/tokens", json={"name": "other"}, headers={"X-CSRF-Token": csrf})
    bearer = {"Authorization": f"Bearer {made.json()['token']}"}
    other = {"Authorization": f"Bearer {kept.json()['token']}"}
    with (
        client.websocket_connect(f"{API}/ws", headers=bearer) as doomed,
        client.websocket_connect(f"{API}/ws", headers=other) as stays,
    ):
        assert doomed.receive_json() == stays.receive_json() == {"type": "hello"}
        revoked = client.delete(f"{API}/tokens/{made.json()['id']}", headers={"X-CSRF-Token": csrf})
        assert revoked.status_code == 200
        _closed_with(doomed, CLOSE_SIGNED_OUT, services, "alice")
        services.broker.publish(_user_pk(services, "alice"), {"type": "ping"})
        assert stays.receive_json() == {"type": "ping"}


def test_the_web_log_out_closes_the_sessions_sockets(
    client: TestClient, services: Services
) -> None:
    csrf = sign_up(client, "alice")
    with client.websocket_connect(f"{API}/ws") as socket:
        assert socket.receive_json() == {"type": "hello"}
        response = client.post("/logout", data={"csrf_token": csrf}, follow_redirects=False)
        assert response.status_code == 303
        _closed_with(socket, CLOSE_SIGNED_OUT, services, "alice")


def test_close_orders_cross_processes_through_redis() -> None:
    need_redis()
    site = f"ws-{uuid.uuid4().hex[:8]}"

    async def scenario() -> tuple[bool, bool, bool]:
        here, there = RedisBroker(REDIS_URL, site), RedisBroker(REDIS_URL, site)
        await here.start()  # returns once Redis confirmed its listener's subscription
        await there.start()
        assert here.subscribed and there.subscribed
        try:
            async with (
                there.subscribe(5, "session:aaa") as ended_one,
                there.subscribe(5, "session:bbb") as kept_session,
                there.subscribe(5, "token:ccc") as kept_token,
            ):
                here.end_sessions_except(5, "bbb", "the password was changed")
                await asyncio.wait_for(ended_one.ended.wait(), 5)
                # A push published after the order reaches the kept sockets after it: once
                # they have it, the order has done all it will do there.
                here.publish(5, {"type": "marker"})
                for kept in (kept_session, kept_token):
                    assert await asyncio.wait_for(kept.queue.get(), 5) == {"type": "marker"}
                assert ended_one.reason == "the password was changed"
                return (
                    ended_one.ended.is_set(),
                    kept_session.ended.is_set(),
                    kept_token.ended.is_set(),
                )
        finally:
            await here.stop()
            await there.stop()

    assert asyncio.run(scenario()) == (True, False, False)
