"""Web Push against a real local push service (tests/server/pushservice.py), which checks
the VAPID JWT with the key it names and decrypts each payload with the subscription's keys:
a push delivered and read; a wrong key, an expired or too-long JWT, a forged signature and
a wrong secret refused by the service; 410 dropping a subscription; the subscription API
(bad keys and private addresses refused with nothing stored); one VAPID key for every app
on a database; ``dicehall vapid``."""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from fastapi.testclient import TestClient
from sqlalchemy import select

from dicehall.server.app import create_app
from dicehall.server.core.clock import now
from dicehall.server.core.models import PushSubscription, SiteSecret, User
from dicehall.server.domain import site_secrets
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.notices import push_subscriptions
from dicehall.server.domain.notices.kinds import DeliveryFailed, Notice
from dicehall.server.domain.notices.push_delivery import PUSH_TTL, deliver
from dicehall.server.domain.notices.vapid import SECRET_NAME, site_vapid_key
from dicehall.server.domain.services import Services, build_services
from dicehall.server.infra import outbound
from dicehall.server.infra.webpush import PushTarget, VapidKey, build_request, topic_of
from tests.conftest import CliRunner
from tests.live import add_user
from tests.server.conftest import Headers, site_settings
from tests.server.pushservice import PushService, push_service

LOOPBACK = ("127.0.0.1",)
SUBJECT = "mailto:admin@dicehall.example"


@pytest.fixture
def pushes() -> Iterator[PushService]:
    with push_service() as service:
        yield service


@pytest.fixture
def allowed(db_url: str) -> Iterator[tuple[TestClient, Services]]:
    """A site that may push to the loopback (where the test's push service listens)."""
    built = build_services(site_settings(db_url, outbound_allow=LOOPBACK))
    try:
        with TestClient(create_app(services=built)) as test_client:
            yield test_client, built
    finally:
        built.engine.dispose()


def _target(subscription: dict[str, Any]) -> PushTarget:
    keys = subscription["keys"]
    return PushTarget(subscription["endpoint"], keys["p256dh"], keys["auth"])


def _notice(game_id: int | None = 24) -> Notice:
    return Notice(
        id=7,
        user_pk=1,
        kind="your_turn",
        game_id=game_id,
        title="Your turn: Boatzee with bob",
        text="bob scored 50 in Boatzee; your turn, 2 d 4 h left",
        url="https://dicehall.example/games/24",
        created_at=now(),
    )


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


# -- delivery --------------------------------------------------------------------------------


def test_a_push_is_delivered_and_decrypted(pushes: PushService) -> None:
    key = VapidKey.generate()
    subscription = pushes.new_subscription(server_key=key.public_b64)
    deliver(_target(subscription), _notice(), key, SUBJECT, timeout=5, allow=LOOPBACK)
    [push] = pushes.wait_for(1)
    assert push.message == {
        "title": "Your turn: Boatzee with bob",
        "body": "bob scored 50 in Boatzee; your turn, 2 d 4 h left",
        "tag": "game-24",
        "url": "https://dicehall.example/games/24",
        "id": 7,
    }
    assert push.headers["content-encoding"] == "aes128gcm"
    assert push.headers["ttl"] == str(PUSH_TTL)
    assert push.headers["urgency"] == "normal"
    assert push.headers["topic"] == "game-24"
    assert push.claims["aud"] == pushes.origin and push.claims["sub"] == SUBJECT
    assert pushes.refusals == []


def test_topics_are_short_base64url_and_one_per_game() -> None:
    assert topic_of("game-24") == "game-24"
    long = topic_of("a tag with spaces that is far longer than thirty-two characters")
    assert len(long) == 32 and long.replace("-", "").replace("_", "").isalnum()
    assert long == topic_of("a tag with spaces that is far longer than thirty-two characters")


def _post(target: PushTarget, headers: dict[str, str], body: bytes) -> int:
    try:
        return outbound.post(target.endpoint, body, headers, timeout=5, allow=LOOPBACK).status
    except outbound.OutboundError as exc:
        assert exc.status is not None
        return exc.status


def test_the_service_refuses_a_wrong_key(pushes: PushService) -> None:
    mine, other = VapidKey.generate(), VapidKey.generate()
    subscription = pushes.new_subscription(server_key=mine.public_b64)
    with pytest.raises(DeliveryFailed) as failed:
        deliver(_target(subscription), _notice(), other, SUBJECT, timeout=5, allow=LOOPBACK)
    assert failed.value.permanent and not failed.value.gone
    assert "403" in str(failed.value)
    assert [(status, reason) for _, status, reason in pushes.refusals] == [
        (403, "signed with a key other than the subscription's")
    ]
    assert pushes.pushes() == []


@pytest.mark.parametrize(
    ("moved", "reason"),
    [(-2 * 86400, "the JWT has expired"), (13 * 3600, "the JWT is valid for more than 24 hours")],
)
def test_the_service_checks_the_jwt_times(pushes: PushService, moved: int, reason: str) -> None:
    key = VapidKey.generate()
    target = _target(pushes.new_subscription(server_key=key.public_b64))
    headers, body = build_request(
        target, b"{}", key, SUBJECT, ttl=60, topic=None, now=time.time() + moved
    )
    assert _post(target, headers, body) == 401
    assert [r for _, _, r in pushes.refusals] == [reason]
    # The same push signed now is taken: only the time was wrong.
    headers, body = build_request(target, b"{}", key, SUBJECT, ttl=60, topic=None, now=time.time())
    assert _post(target, headers, body) == 201


def test_the_service_checks_the_signature_and_the_secret(pushes: PushService) -> None:
    key, other = VapidKey.generate(), VapidKey.generate()
    subscription = pushes.new_subscription()  # any key is taken, if it signed the JWT
    target = _target(subscription)
    headers, body = build_request(target, b"{}", key, SUBJECT, ttl=60, topic=None, now=time.time())
    forged = {
        **headers,
        "Authorization": headers["Authorization"].replace(key.public_b64, other.public_b64),
    }
    assert _post(target, forged, body) == 401
    # Encrypted for another auth secret: the service cannot read it.
    wrong = PushTarget(target.endpoint, target.p256dh, _b64(bytes(16)))
    headers, body = build_request(wrong, b"{}", key, SUBJECT, ttl=60, topic=None, now=time.time())
    assert _post(target, headers, body) == 400
    assert [status for _, status, _ in pushes.refusals] == [401, 400]
    assert "does not match k" in pushes.refusals[0][2]
    assert "cannot decrypt" in pushes.refusals[1][2]


@pytest.mark.parametrize(
    ("status", "permanent", "gone"),
    [
        (410, True, True),
        (404, True, True),
        (403, True, False),
        (500, False, False),
        (429, False, False),
    ],
)
def test_failures_say_whether_to_try_again(
    pushes: PushService, status: int, permanent: bool, gone: bool
) -> None:
    key = VapidKey.generate()
    subscription = pushes.new_subscription()
    pushes.answer(subscription, status)
    with pytest.raises(DeliveryFailed) as failed:
        deliver(_target(subscription), _notice(), key, SUBJECT, timeout=5, allow=LOOPBACK)
    assert (failed.value.permanent, failed.value.gone) == (permanent, gone)
    assert str(status) in str(failed.value)


def test_a_private_address_is_refused_when_sending(pushes: PushService) -> None:
    subscription = pushes.new_subscription()
    with pytest.raises(DeliveryFailed) as failed:
        deliver(_target(subscription), _notice(), VapidKey.generate(), SUBJECT, timeout=5, allow=())
    assert failed.value.permanent and not failed.value.gone
    assert "loopback" in str(failed.value)
    assert pushes.pushes() == [] and pushes.refusals == []


# -- the API ---------------------------------------------------------------------------------


def test_subscribe_test_push_and_a_410_drops_it(
    allowed: tuple[TestClient, Services], pushes: PushService
) -> None:
    client, services = allowed
    headers = add_user(services, "alice", services.hasher.hash("correct horse battery"))
    key = client.get("/api/v1/push/key").json()["public_key"]
    subscription = pushes.new_subscription(server_key=key)

    answer = client.post("/api/v1/push/subscriptions", json=subscription, headers=headers)
    assert answer.status_code == 201, answer.text
    sub_id = answer.json()["id"]
    again = client.post("/api/v1/push/subscriptions", json=subscription, headers=headers)
    assert again.status_code == 201 and again.json() == {"id": sub_id}
    listed = client.get("/api/v1/push/subscriptions", headers=headers).json()["subscriptions"]
    assert [(s["id"], s["host"], s["last_error"]) for s in listed] == [(sub_id, "127.0.0.1", None)]

    sent = client.post("/api/v1/push/test", headers=headers)
    assert sent.status_code == 200, sent.text
    assert sent.json() == {"sent": 1, "errors": []}
    [push] = pushes.wait_for(1)
    assert push.message["title"] == "dicehall: push works"
    assert push.message["url"] == "http://127.0.0.1:8000/settings"
    assert push.message["tag"] == "dicehall-message"

    pushes.end(subscription)
    sent = client.post("/api/v1/push/test", headers=headers).json()
    assert sent["sent"] == 0
    assert [(e["id"], e["host"]) for e in sent["errors"]] == [(sub_id, "127.0.0.1")]
    assert "410" in sent["errors"][0]["error"]
    assert client.get("/api/v1/push/subscriptions", headers=headers).json() == {"subscriptions": []}
    assert client.post("/api/v1/push/test", headers=headers).json() == {"sent": 0, "errors": []}


def test_a_failed_push_is_shown_on_the_subscription(
    allowed: tuple[TestClient, Services], pushes: PushService
) -> None:
    client, services = allowed
    headers = add_user(services, "alice", services.hasher.hash("correct horse battery"))
    subscription = pushes.new_subscription()
    client.post("/api/v1/push/subscriptions", json=subscription, headers=headers)
    pushes.answer(subscription, 503)
    sent = client.post("/api/v1/push/test", headers=headers).json()
    assert sent["sent"] == 0 and "503" in sent["errors"][0]["error"]
    [listed] = client.get("/api/v1/push/subscriptions", headers=headers).json()["subscriptions"]
    assert "503" in listed["last_error"]
    pushes.answer(subscription, None)
    assert client.post("/api/v1/push/test", headers=headers).json()["sent"] == 1
    [listed] = client.get("/api/v1/push/subscriptions", headers=headers).json()["subscriptions"]
    assert listed["last_error"] is None


def _bad_bodies(good: dict[str, Any]) -> list[tuple[dict[str, Any], str]]:
    keys = good["keys"]
    not_on_curve = _b64(b"\x04" + bytes(64))
    compressed = _b64(b"\x02" + bytes(32))
    return [
        ({**good, "keys": {**keys, "p256dh": not_on_curve}}, "not a point on the P-256 curve"),
        ({**good, "keys": {**keys, "p256dh": compressed}}, "65 bytes"),
        ({**good, "keys": {**keys, "p256dh": "not base64!"}}, "base64url"),
        ({**good, "keys": {**keys, "auth": _b64(bytes(15))}}, "16 bytes"),
        ({**good, "endpoint": "https://10.0.0.5/push/abc"}, "private address"),
        ({**good, "endpoint": "https://127.0.0.1/push/abc"}, "loopback"),
        ({**good, "endpoint": "ftp://push.example/abc"}, "https"),
        ({**good, "endpoint": "http://10.0.0.5/push/abc"}, "https"),
    ]


def _refused_and_nothing_stored(
    client: TestClient, headers: Headers, body: dict[str, Any], says: str
) -> None:
    answer = client.post("/api/v1/push/subscriptions", json=body, headers=headers)
    assert answer.status_code == 422, (body, answer.text)
    assert answer.json()["code"] == "invalid_subscription"
    assert says in answer.json()["error"], answer.json()
    assert client.get("/api/v1/push/subscriptions", headers=headers).json() == {"subscriptions": []}


def test_bad_subscriptions_are_refused_with_nothing_stored(
    client: TestClient, make_user: Any, pushes: PushService
) -> None:
    headers = make_user("alice")
    good = pushes.new_subscription()
    # Without outbound_allow, the push service on the loopback is out of reach too.
    for body, says in [(good, "https"), *_bad_bodies(good)]:
        _refused_and_nothing_stored(client, headers, body, says)
    for body in (
        {"endpoint": good["endpoint"]},
        {**good, "subscription": "extra"},
        {**good, "keys": {"p256dh": good["keys"]["p256dh"]}},
    ):
        answer = client.post("/api/v1/push/subscriptions", json=body, headers=headers)
        assert answer.status_code == 422 and answer.json()["code"] == "invalid_request"
    assert client.post("/api/v1/push/subscriptions", json=good).status_code == 401
    assert client.post("/api/v1/push/test").status_code == 401


def test_bad_subscriptions_are_refused_where_the_loopback_is_allowed(
    allowed: tuple[TestClient, Services], pushes: PushService
) -> None:
    client, services = allowed
    headers = add_user(services, "alice", services.hasher.hash("correct horse battery"))
    good = pushes.new_subscription()
    for body, says in _bad_bodies(good)[:5]:
        _refused_and_nothing_stored(client, headers, body, says)
    with services.read_conn() as conn:
        assert conn.execute(select(PushSubscription.id)).all() == []


def test_only_my_subscriptions_are_listed_and_removed(
    allowed: tuple[TestClient, Services], pushes: PushService
) -> None:
    client, services = allowed
    alice = add_user(services, "alice", services.hasher.hash("correct horse battery"))
    bob = add_user(services, "bob", services.hasher.hash("correct horse battery"))
    sub_id = client.post(
        "/api/v1/push/subscriptions", json=pushes.new_subscription(), headers=alice
    ).json()["id"]
    assert client.get("/api/v1/push/subscriptions", headers=bob).json() == {"subscriptions": []}
    refused = client.delete(f"/api/v1/push/subscriptions/{sub_id}", headers=bob)
    assert refused.status_code == 404 and refused.json()["code"] == "no_subscription"
    removed = client.delete(f"/api/v1/push/subscriptions/{sub_id}", headers=alice)
    assert removed.status_code == 200 and removed.json() == {"removed": sub_id}
    assert client.delete(f"/api/v1/push/subscriptions/{sub_id}", headers=alice).status_code == 404


def _user_pk(services: Services, name: str) -> int:
    with services.read_conn() as conn:
        return int(conn.execute(select(User.id).where(User.user_id == name)).scalar_one())


def test_an_endpoint_moves_and_a_user_keeps_ten(services: Services, pushes: PushService) -> None:
    for name in ("alice", "bob"):
        add_user(services, name, services.hasher.hash("correct horse battery"))
    alice, bob = _user_pk(services, "alice"), _user_pk(services, "bob")
    made = [_target(pushes.new_subscription()) for _ in range(push_subscriptions.MAX_PER_USER + 1)]
    with services.write_conn() as conn:
        ids = [
            push_subscriptions.subscribe(conn, alice, t.endpoint, t.p256dh, t.auth) for t in made
        ]
        kept = push_subscriptions.of_user(conn, alice)
        assert [s.id for s in kept] == ids[1:]  # the oldest dropped
        moved = made[-1]
        fresh = _target(pushes.new_subscription())
        assert (
            push_subscriptions.subscribe(conn, bob, moved.endpoint, fresh.p256dh, fresh.auth)
            == ids[-1]
        )
        [theirs] = push_subscriptions.of_user(conn, bob)
        assert (theirs.endpoint, theirs.p256dh, theirs.auth) == (
            moved.endpoint,
            fresh.p256dh,
            fresh.auth,
        )
        assert len(push_subscriptions.of_user(conn, alice)) == push_subscriptions.MAX_PER_USER - 1
        assert push_subscriptions.unsubscribe(conn, alice, made[1].endpoint)
        assert not push_subscriptions.unsubscribe(conn, alice, moved.endpoint)  # bob's now
        assert push_subscriptions.unsubscribe(conn, bob, theirs.id)
        with pytest.raises(Refused) as refused:
            push_subscriptions.subscribe(conn, bob, moved.endpoint, fresh.p256dh, _b64(bytes(3)))
        assert refused.value.status == 422


# -- the key ---------------------------------------------------------------------------------


def test_the_key_is_one_for_every_app_on_a_database(db_url: str) -> None:
    keys = []
    for overrides in ({}, {}, {"secret_key": "s" * 40}):
        site_secrets.forget_known()  # read from the table, not this process's memory
        built = build_services(site_settings(db_url, **overrides))
        try:
            with TestClient(create_app(services=built)) as client:
                answer = client.get("/api/v1/push/key")
                assert answer.status_code == 200
                keys.append(answer.json()["public_key"])
            with built.read_conn() as conn:
                kept = conn.execute(
                    select(SiteSecret.value).where(SiteSecret.name == SECRET_NAME)
                ).scalar_one()
        finally:
            built.engine.dispose()
        assert VapidKey.from_private(kept).public_b64 == keys[-1]
    assert len(set(keys)) == 1
    assert len(base64.urlsafe_b64decode(keys[0] + "=")) == 65

    configured = VapidKey.generate()
    built = build_services(site_settings(db_url, vapid_private_key=configured.private_b64))
    try:
        assert site_vapid_key(built).public_b64 == configured.public_b64
    finally:
        built.engine.dispose()
    broken = build_services(site_settings(db_url, vapid_private_key="not a key"))
    try:
        with pytest.raises(ValueError, match="DICEHALL_VAPID_PRIVATE_KEY"):
            site_vapid_key(broken)
        with TestClient(create_app(services=broken)) as client:
            answer = client.get("/api/v1/push/key")
            assert answer.status_code == 503 and answer.json()["code"] == "push_unavailable"
    finally:
        broken.engine.dispose()


def test_keys_are_read_in_every_form() -> None:
    key = VapidKey.generate()
    assert VapidKey.from_private(key.private_b64).public_b64 == key.public_b64
    # A PEM (what py_vapid and openssl write), and base64 with padding.
    private = serialization.load_pem_private_key(_pem_of(key.private_b64).encode(), password=None)
    assert private is not None
    assert VapidKey.from_private(_pem_of(key.private_b64)).public_b64 == key.public_b64
    padded = base64.urlsafe_b64encode(base64.urlsafe_b64decode(key.private_b64 + "=")).decode()
    assert VapidKey.from_private(padded).public_b64 == key.public_b64
    for bad in ("", "not a key!", _b64(bytes(32)), _b64(bytes(20)), "-----BEGIN junk"):
        with pytest.raises(ValueError, match="VAPID private key is not valid"):
            VapidKey.from_private(bad)


def _pem_of(private_b64: str) -> str:
    from cryptography.hazmat.primitives.asymmetric import ec

    scalar = int.from_bytes(base64.urlsafe_b64decode(private_b64 + "="), "big")
    return (
        ec.derive_private_key(scalar, ec.SECP256R1())
        .private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        .decode()
    )


def test_dicehall_vapid_prints_a_usable_pair(cli: CliRunner, pushes: PushService) -> None:
    result = cli("vapid", "--json")
    assert result.code == 0, result.err
    pair = json.loads(result.out)
    key = VapidKey.from_private(pair["private_key"])
    assert key.public_b64 == pair["public_key"]
    # A push service made with that public key takes a push signed with the private one.
    subscription = pushes.new_subscription(server_key=pair["public_key"])
    deliver(_target(subscription), _notice(None), key, SUBJECT, timeout=5, allow=LOOPBACK)
    assert pushes.wait_for(1)[0].message["tag"] == "dicehall-your_turn"

    text = cli("vapid")
    assert text.code == 0
    line = next(w for w in text.out.split() if w.startswith("DICEHALL_VAPID_PRIVATE_KEY="))
    assert VapidKey.from_private(line.split("=", 1)[1]).public_b64 in text.out
