"""Account e-mail and password reset, end to end through a real SMTP server on the loopback:
the address is proved by its link, the reset link works once, and every session and API
token of the account is refused after the reset."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import insert, select, update
from time_machine import TimeMachineFixture

from dicehall.server.app import create_app
from dicehall.server.core.clock import now
from dicehall.server.core.models import Delivery, PushSubscription, User, Webhook
from dicehall.server.domain.notices import delivery
from dicehall.server.domain.notices.links import reset_token
from dicehall.server.domain.services import Services, build_services
from dicehall.server.domain.site_secrets import site_secret
from dicehall.server.web.forms import CSRF_FIELD, FORM_COOKIE
from tests.live import add_user, free_port
from tests.server.conftest import MakeUser, site_settings
from tests.server.smtpd import SmtpServer, running_smtp_server

API = "/api/v1"
PASSWORD = "correct horse battery"


@pytest.fixture
def smtp() -> Iterator[SmtpServer]:
    with running_smtp_server() as server:
        yield server


@pytest.fixture
def site(db_url: str, smtp: SmtpServer) -> Iterator[tuple[TestClient, Services]]:
    built = build_services(
        site_settings(db_url, smtp_url=smtp.url(), deliveries=False, site_url="https://dice.test")
    )
    try:
        with TestClient(create_app(services=built)) as client:
            yield client, built
    finally:
        built.engine.dispose()


def link_in(text: str, path: str) -> str:
    found = re.search(rf"https://dice\.test{path}/([A-Za-z0-9_.\-]+)", text)
    assert found, text
    return found.group(1)


def body(mail: object) -> str:
    message = mail.message  # type: ignore[attr-defined]
    part = message.get_body(preferencelist=("plain",))
    assert part is not None
    return str(part.get_content())


def test_reset_by_mail_ends_every_session_and_token(
    site: tuple[TestClient, Services], smtp: SmtpServer, make_user: MakeUser
) -> None:
    client, services = site
    signed = client.post(f"{API}/auth/signup", json={"user_id": "alice", "password": PASSWORD})
    assert signed.status_code in (200, 201), signed.text
    csrf = {"X-CSRF-Token": signed.json()["csrf_token"]}
    token = client.post(f"{API}/tokens", json={"name": "bot"}, headers=csrf).json()["token"]
    bearer = {"Authorization": f"Bearer {token}"}

    # A leaked token must not send the account's resets elsewhere: the address changes only
    # from the browser.
    by_token = client.patch(f"{API}/users/me", json={"email": "eve@example.org"}, headers=bearer)
    assert (by_token.status_code, by_token.json()["code"]) == (403, "not_a_session")
    assert client.get(f"{API}/users/me", headers=bearer).json()["email"] is None
    changed = client.patch(f"{API}/users/me", json={"email": "Alice@Example.ORG"}, headers=csrf)
    assert changed.status_code == 200, changed.text
    assert changed.json()["email"] == "Alice@example.org"
    assert changed.json()["email_verified"] is False
    # Not verified: a reset mails nothing (and answers the same).
    assert (
        client.post(f"{API}/auth/password-reset", json={"email": "Alice@example.org"}).status_code
        == 202
    )
    delivery.run(services, now())
    (verification,) = smtp.wait_for(1)
    assert verification.rcpt_tos == ("Alice@example.org",)
    verify = link_in(body(verification), "/verify-email")
    opened = client.get(f"/verify-email/{verify}")
    assert opened.status_code == 200, opened.text
    assert client.get(f"{API}/users/me", headers=bearer).json()["email_verified"] is True

    unknown = client.post(f"{API}/auth/password-reset", json={"email": "nobody@example.org"})
    asked = client.post(f"{API}/auth/password-reset", json={"email": "alice@EXAMPLE.org"})
    assert unknown.status_code == asked.status_code == 202
    assert unknown.json() == asked.json()
    delivery.run(services, now())
    received = smtp.wait_for(2)
    assert len(received) == 2 and received[1].rcpt_tos == ("Alice@example.org",)
    reset = link_in(body(received[1]), "/reset-password")

    weak = client.post(f"{API}/auth/password-reset/confirm", json={"token": reset, "password": "x"})
    assert weak.status_code == 422 and weak.json()["code"] == "invalid_password"
    done = client.post(
        f"{API}/auth/password-reset/confirm",
        json={"token": reset, "password": "a brand new passphrase"},
    )
    assert done.status_code == 200, done.text
    assert done.json()["ended_tokens"] == 1 and done.json()["ended_sessions"] == 1
    # The old token and the old browser session are refused; the link works once.
    assert client.get(f"{API}/users/me", headers=bearer).status_code == 401
    assert client.get(f"{API}/auth/session").status_code == 401
    again = client.post(
        f"{API}/auth/password-reset/confirm", json={"token": reset, "password": "another one here"}
    )
    assert again.status_code == 422 and again.json()["code"] == "link_used"
    old = client.post(f"{API}/auth/login", json={"user_id": "alice", "password": PASSWORD})
    assert old.status_code == 401
    new = client.post(
        f"{API}/auth/login", json={"user_id": "alice", "password": "a brand new passphrase"}
    )
    assert new.status_code == 200, new.text


def test_bad_addresses_and_forged_links_are_refused(site: tuple[TestClient, Services]) -> None:
    client, services = site
    signed = client.post(f"{API}/auth/signup", json={"user_id": "alice", "password": PASSWORD})
    alice = {"X-CSRF-Token": signed.json()["csrf_token"]}  # a browser: the cookie is kept
    for wrong in (
        "alice",
        "alice@",
        "@example.org",
        "a b@example.org",
        "alice@example",
        "x" * 250 + "@e.org",
    ):
        answer = client.patch(f"{API}/users/me", json={"email": wrong}, headers=alice)
        assert answer.status_code == 422 and answer.json()["code"] == "invalid_email", wrong
        asked = client.post(f"{API}/auth/password-reset", json={"email": wrong})
        assert asked.status_code == 422
    assert client.get(f"{API}/users/me", headers=alice).json()["email"] is None
    forged = client.post(
        f"{API}/auth/password-reset/confirm", json={"token": "abc.def.ghi", "password": PASSWORD}
    )
    assert forged.status_code == 422 and forged.json()["code"] == "invalid_link"
    with services.read_conn() as conn:
        assert conn.execute(select(Delivery.id)).first() is None


def browser(client: TestClient, name: str) -> dict[str, str]:
    """Sign ``name`` up in ``client`` as a browser does (the cookie stays in the client); the
    headers its writes send: an address is set only from a browser."""
    signed = client.post(f"{API}/auth/signup", json={"user_id": name, "password": PASSWORD})
    assert signed.status_code in (200, 201), signed.text
    return {"X-CSRF-Token": signed.json()["csrf_token"]}


def test_an_unreachable_smtp_server_loses_nothing(db_url: str) -> None:
    closed = f"smtp://127.0.0.1:{free_port()}"
    built = build_services(site_settings(db_url, smtp_url=closed, deliveries=False))
    try:
        with TestClient(create_app(services=built)) as client:
            headers = browser(client, "bob")
            answer = client.patch(
                f"{API}/users/me", json={"email": "bob@example.org"}, headers=headers
            )
            assert answer.status_code == 200
            delivery.run(built, now())
            with built.read_conn() as conn:
                (row,) = conn.execute(select(Delivery.__table__)).all()
            assert row.status == "pending" and row.attempts == 1
            assert "cannot reach the SMTP server" in row.last_error
            assert "127.0.0.1" in row.last_error
    finally:
        built.engine.dispose()


def test_reset_mails_are_capped_and_links_expire(
    site: tuple[TestClient, Services], smtp: SmtpServer, time_machine: TimeMachineFixture
) -> None:
    client, services = site
    time_machine.move_to(now(), tick=False)
    headers = add_user(services, "carol")
    with services.write_conn() as conn:
        conn.execute(
            update(User)
            .where(User.user_id == "carol")
            .values(email="carol@example.org", email_verified_at=now())
        )
    for _ in range(5):
        asked = client.post(f"{API}/auth/password-reset", json={"email": "carol@example.org"})
        assert asked.status_code == 202
    delivery.run(services, now())
    # At most three reset mails an hour to one account, whatever the requests.
    assert len(smtp.wait_for(3)) == 3
    with services.read_conn() as conn:
        assert len(conn.execute(select(Delivery.id)).all()) == 3
    token = link_in(body(smtp.received[0]), "/reset-password")
    time_machine.shift(31 * 60)
    late = client.post(
        f"{API}/auth/password-reset/confirm", json={"token": token, "password": PASSWORD + "!"}
    )
    assert late.status_code == 422 and late.json()["code"] == "link_expired"
    assert client.get(f"{API}/users/me", headers=headers).status_code == 200


def test_a_reset_ends_the_accounts_push_subscriptions_and_webhook(
    site: tuple[TestClient, Services],
) -> None:
    client, services = site
    headers = add_user(services, "dora")
    with services.write_conn() as conn:
        user = conn.execute(select(User.id, User.password_hash).where(User.user_id == "dora")).one()
        conn.execute(
            insert(PushSubscription).values(
                user_pk=user.id,
                endpoint="https://push.example.org/1",
                p256dh="k",
                auth="a",
                created_at=now(),
            )
        )
        conn.execute(
            insert(Webhook).values(
                user_pk=user.id, url="https://hooks.example.org/x", format="json", created_at=now()
            )
        )
    token = reset_token(site_secret(services), user.id, user.password_hash)
    done = client.post(
        f"{API}/auth/password-reset/confirm", json={"token": token, "password": PASSWORD + "!"}
    )
    assert done.status_code == 200, done.text
    with services.read_conn() as conn:
        assert conn.execute(select(PushSubscription.id)).first() is None
        assert conn.execute(select(Webhook.user_pk)).first() is None
    assert client.get(f"{API}/users/me", headers=headers).status_code == 401


def test_a_reset_keeps_the_api_tokens_only_when_asked(
    site: tuple[TestClient, Services],
) -> None:
    client, services = site
    headers = add_user(services, "erin")

    def token_now() -> str:
        with services.read_conn() as conn:
            user = conn.execute(
                select(User.id, User.password_hash).where(User.user_id == "erin")
            ).one()
        return reset_token(site_secret(services), user.id, user.password_hash)

    kept = client.post(
        f"{API}/auth/password-reset/confirm",
        json={"token": token_now(), "password": "kept tokens 1", "keep_tokens": True},
    )
    assert kept.status_code == 200, kept.text
    assert kept.json()["ended_tokens"] == 0 and "API token" not in kept.json()["message"]
    assert client.get(f"{API}/users/me", headers=headers).status_code == 200
    # The page's box does the same; left unticked, the tokens end.
    client.cookies.set(FORM_COOKIE, "t" * 32)
    form = {CSRF_FIELD: "t" * 32, "password": "kept tokens 2", "password_again": "kept tokens 2"}
    page = client.post(f"/reset-password/{token_now()}", data={**form, "keep_tokens": "on"})
    assert page.status_code == 200 and "its API tokens were kept" in page.text
    assert client.get(f"{API}/users/me", headers=headers).status_code == 200
    form = {**form, "password": "ended tokens", "password_again": "ended tokens"}
    page = client.post(f"/reset-password/{token_now()}", data=form)
    assert page.status_code == 200 and "its API tokens (1) no longer work" in page.text
    assert client.get(f"{API}/users/me", headers=headers).status_code == 401


def test_setting_addresses_is_rate_limited(db_url: str) -> None:
    built = build_services(site_settings(db_url, deliveries=False, auth_rate_per_minute=3))
    try:
        with TestClient(create_app(services=built)) as client:
            headers = browser(client, "eve")
            codes = [
                client.patch(
                    f"{API}/users/me", json={"email": f"victim{i}@example.org"}, headers=headers
                ).status_code
                for i in range(5)
            ]
            assert codes == [200, 200, 200, 429, 429]
            with built.read_conn() as conn:
                assert len(conn.execute(select(Delivery.id)).all()) == 3
    finally:
        built.engine.dispose()
