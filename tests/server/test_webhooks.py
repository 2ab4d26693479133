"""Webhooks: each format's body and headers (what users wrote escaped), delivery to a real
receiver on the loopback (which failures are worth another try), and the API that sets,
shows, tests and removes my webhook (a private address refused, nothing stored)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from dicehall.server.core.models import User, Webhook
from dicehall.server.domain.notices import webhook_store
from dicehall.server.domain.notices.kinds import DeliveryFailed, Notice
from dicehall.server.domain.services import Services, build_services
from dicehall.server.infra import webhooks
from tests.server.conftest import Headers, MakeUser, site_settings
from tests.server.webhook_receiver import Receiver, receiving

LOOPBACK = ("127.0.0.1",)
URL = "/api/v1/users/me/webhook"
AT = datetime(2026, 3, 1, 12, 30, tzinfo=UTC)


def notice(title: str = "Your turn: Boatzee with bob", text: str = "bob scored 50") -> Notice:
    return Notice(
        id=41,
        user_pk=7,
        kind="your_turn",
        game_id=24,
        title=title,
        text=text,
        url="https://dice.example/games/24",
        created_at=AT,
    )


def _common(headers: dict[str, str]) -> None:
    assert headers["Idempotency-Key"] == "dicehall-41"
    assert headers["User-Agent"] == "dicehall-webhook"


# -- formats -----------------------------------------------------------------------------------


def test_json_says_everything_plainly() -> None:
    body, headers = webhooks.render("json", notice())
    _common(headers)
    assert headers["Content-Type"] == "application/json"
    assert json.loads(body) == {
        "id": 41,
        "kind": "your_turn",
        "game": 24,
        "title": "Your turn: Boatzee with bob",
        "text": "bob scored 50",
        "url": "https://dice.example/games/24",
        "created_at": "2026-03-01T12:30:00+00:00",
    }


def test_discord_shows_what_users_wrote_as_written_and_pings_nobody() -> None:
    body, headers = webhooks.render(
        "discord",
        notice(title="Your turn with **bob**", text="@everyone <@123> _hi_ `x` # 1. ~~s~~"),
    )
    _common(headers)
    assert headers["Content-Type"] == "application/json"
    payload = json.loads(body)
    assert payload["allowed_mentions"] == {"parse": []}
    assert payload["username"] == "dicehall"
    title, text, link = payload["content"].split("\n")
    assert title == r"**Your turn with \*\*bob\*\***"
    assert "@everyone" not in text and "@\u200beveryone" in text
    assert "\\<@\u200b123\\>" in text
    assert r"\_hi\_" in text and r"\`x\`" in text and r"\~\~s\~\~" in text and r"\#" in text
    assert link == "<https://dice.example/games/24>"


def test_discord_starts_no_list_with_a_number() -> None:
    body, _ = webhooks.render("discord", notice(text="1. first\n2. second"))
    content = json.loads(body)["content"]
    assert "1\\. first\n2\\. second" in content


def test_discord_content_keeps_to_2000_characters_and_its_link() -> None:
    long_text = "a" * 1500 + "*" * 800
    body, _ = webhooks.render("discord", notice(text=long_text))
    content = json.loads(body)["content"]
    assert len(content) <= 2000
    assert content.endswith("\u2026\n<https://dice.example/games/24>")
    # The cut never leaves half an escape (a lone backslash before the ellipsis).
    cut = content.split("\n")[1]
    body_part = cut.removesuffix("\u2026")
    assert (len(body_part) - len(body_part.rstrip("\\"))) % 2 == 0


def test_slack_escapes_its_control_characters() -> None:
    body, headers = webhooks.render(
        "slack", notice(title="Tom & <Jerry>", text="<!channel> a > b & c")
    )
    _common(headers)
    assert headers["Content-Type"] == "application/json"
    assert json.loads(body) == {
        "text": "<https://dice.example/games/24|Tom &amp; &lt;Jerry&gt;>: "
        "&lt;!channel&gt; a &gt; b &amp; c"
    }


def test_ntfy_sends_the_text_and_its_headers() -> None:
    body, headers = webhooks.render("ntfy", notice())
    _common(headers)
    assert body == b"bob scored 50"
    assert headers["Title"] == "Your turn: Boatzee with bob"
    assert headers["Click"] == "https://dice.example/games/24"
    assert headers["Tags"] == "game_die"
    assert headers["Content-Type"] == "text/plain; charset=utf-8"


def test_ntfy_headers_stay_ascii_and_on_one_line() -> None:
    import base64

    body, headers = webhooks.render(
        "ntfy", notice(title="Dein Zug: Müller 🎲\r\nX-Evil: 1", text="Grüße")
    )
    assert body == "Grüße".encode()
    title = headers["Title"]
    assert title.isascii() and "\n" not in title and "\r" not in title
    assert title.startswith("=?utf-8?b?") and title.endswith("?=")
    assert base64.b64decode(title[10:-2]).decode() == "Dein Zug: Müller 🎲 X-Evil: 1"
    for value in headers.values():
        value.encode("ascii")


def test_an_unknown_format_is_a_value_error() -> None:
    with pytest.raises(ValueError, match=r"no webhook format 'teams'"):
        webhooks.render("teams", notice())


# -- delivery ----------------------------------------------------------------------------------


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with receiving() as running:
        yield running


def deliver(url: str, fmt: Any = "json", timeout: float = 5.0) -> None:
    webhook_store.deliver(url, fmt, notice(), timeout=timeout, allow=LOOPBACK)


@pytest.mark.parametrize("fmt", ["json", "discord", "slack", "ntfy"])
def test_each_format_arrives(receiver: Receiver, fmt: str) -> None:
    deliver(receiver.url(), fmt)
    [got] = receiver.wait_for(1)
    body, headers = webhooks.render(fmt, notice())
    assert got.body == body
    for name, value in headers.items():
        assert got.header(name) == value


def test_a_server_error_is_temporary(receiver: Receiver) -> None:
    receiver.status = 500
    with pytest.raises(DeliveryFailed, match=r"the webhook answered HTTP 500") as failed:
        deliver(receiver.url())
    assert not failed.value.permanent


@pytest.mark.parametrize("status", [408, 425, 429, 502, 503])
def test_busy_answers_are_temporary(receiver: Receiver, status: int) -> None:
    receiver.status = status
    with pytest.raises(DeliveryFailed, match=f"HTTP {status}") as failed:
        deliver(receiver.url())
    assert not failed.value.permanent and not failed.value.gone


@pytest.mark.parametrize("status", [400, 401, 403, 404, 410, 413])
def test_other_client_errors_are_permanent(receiver: Receiver, status: int) -> None:
    receiver.status = status
    with pytest.raises(DeliveryFailed, match=f"the webhook answered HTTP {status}") as failed:
        deliver(receiver.url())
    assert failed.value.permanent


def test_a_redirect_is_permanent_and_not_followed(receiver: Receiver) -> None:
    receiver.status = 301
    with pytest.raises(DeliveryFailed, match=r"HTTP 301 .a redirect") as failed:
        deliver(receiver.url())
    assert failed.value.permanent
    assert len(receiver.requests) == 1


def test_a_timeout_is_temporary(receiver: Receiver) -> None:
    receiver.hang = True
    with pytest.raises(DeliveryFailed, match=r"did not answer within 0.5 s") as failed:
        deliver(receiver.url(), timeout=0.5)
    assert not failed.value.permanent


def test_a_refused_url_is_permanent(receiver: Receiver) -> None:
    with pytest.raises(DeliveryFailed, match=r"webhook URL refused: 10.0.0.5 is a private") as f:
        deliver("http://10.0.0.5/hook")
    assert f.value.permanent
    with pytest.raises(DeliveryFailed, match=r"127.0.0.1 is a loopback address") as f:
        webhook_store.deliver(receiver.url(), "json", notice(), timeout=5.0, allow=())
    assert f.value.permanent
    assert receiver.requests == []


def test_a_receiver_that_fails_twice_gets_the_same_notice_three_times(
    receiver: Receiver,
) -> None:
    receiver.fail_first = 2
    for _ in range(2):
        with pytest.raises(DeliveryFailed) as failed:
            deliver(receiver.url())
        assert not failed.value.permanent
    deliver(receiver.url())
    got = receiver.wait_for(3)
    assert {request.header("Idempotency-Key") for request in got} == {"dicehall-41"}


# -- the API -----------------------------------------------------------------------------------


@pytest.fixture
def services(db_url: str) -> Iterator[Services]:
    """The site, allowed to reach the receiver on the loopback (and nothing else private)."""
    built = build_services(site_settings(db_url, outbound_allow=LOOPBACK, outbound_timeout=2.0))
    try:
        yield built
    finally:
        built.engine.dispose()


def stored(services: Services) -> int:
    with services.read_conn() as conn:
        return int(conn.execute(select(func.count()).select_from(Webhook)).scalar_one())


def put(client: TestClient, headers: Headers, url: str, fmt: str = "json") -> Any:
    return client.put(URL, json={"url": url, "format": fmt}, headers=headers)


def test_setting_showing_testing_and_removing_my_webhook(
    client: TestClient, make_user: MakeUser, services: Services, receiver: Receiver
) -> None:
    me = make_user("hooked")
    missing = client.get(URL, headers=me)
    assert missing.status_code == 404
    assert missing.json()["code"] == "no_webhook"

    answer = put(client, me, f"  {receiver.url()}  ", "discord")
    assert answer.status_code == 200, answer.text
    shown = answer.json()
    assert shown["url"] == receiver.url()
    assert shown["format"] == "discord"
    assert datetime.fromisoformat(shown["created_at"]).tzinfo is not None
    assert (shown["last_ok_at"], shown["last_error"], shown["last_error_at"]) == (None,) * 3
    assert client.get(URL, headers=me).json() == shown

    tried = client.post(f"{URL}/test", headers=me)
    assert tried.status_code == 200, tried.text
    assert tried.json() == {"ok": True, "error": None}
    [got] = receiver.wait_for(1)
    sent = json.loads(got.body)
    assert sent["allowed_mentions"] == {"parse": []}
    assert "test notice" in sent["content"]
    assert sent["content"].endswith("\n<http://127.0.0.1:8000/settings>")
    assert (got.header("Idempotency-Key") or "").startswith("dicehall--")
    after = client.get(URL, headers=me).json()
    assert after["last_ok_at"] is not None and after["last_error"] is None

    receiver.status = 500
    failed = client.post(f"{URL}/test", headers=me).json()
    assert failed == {"ok": False, "error": "the webhook answered HTTP 500"}
    after = client.get(URL, headers=me).json()
    assert after["last_error"] == "the webhook answered HTTP 500"
    assert after["last_error_at"] is not None and after["last_ok_at"] is not None

    # Setting it again starts a fresh history.
    again = put(client, me, receiver.url("/other"), "ntfy").json()
    assert again["format"] == "ntfy" and again["last_error"] is None
    assert stored(services) == 1

    removed = client.delete(URL, headers=me)
    assert removed.status_code == 200, removed.text
    assert removed.json() == {"removed": receiver.url("/other")}
    assert client.get(URL, headers=me).status_code == 404
    assert client.delete(URL, headers=me).json()["code"] == "no_webhook"
    assert client.post(f"{URL}/test", headers=me).json()["code"] == "no_webhook"
    assert stored(services) == 0


@pytest.mark.parametrize(
    ("url", "code", "says"),
    [
        ("http://10.0.0.5/hook", "unsafe_url", "webhook URL refused: 10.0.0.5 is a private"),
        ("http://169.254.169.254/latest", "unsafe_url", "169.254.169.254 is a link-local"),
        ("http://127.0.0.2:9/", "unsafe_url", "127.0.0.2 is a loopback address"),
        ("http://[::1]:9/", "unsafe_url", "::1 is a loopback address"),
        ("http://2130706433/", "unsafe_url", "is not a plain address"),
        ("http://nothing-here.invalid/", "unsafe_url", "does not resolve"),
        ("http://a:b@127.0.0.1/", "unsafe_url", "user name or password"),
        ("ftp://127.0.0.1/", "invalid_url", "must start with http:// or https://"),
        ("", "invalid_url", "must not be empty"),
    ],
)
def test_a_refused_url_is_422_and_nothing_is_stored(
    client: TestClient, make_user: MakeUser, services: Services, url: str, code: str, says: str
) -> None:
    me = make_user("careful")
    answer = put(client, me, url)
    assert answer.status_code == 422, answer.text
    assert answer.json()["code"] == code
    assert says in answer.json()["error"]
    assert stored(services) == 0


def test_a_refused_url_keeps_the_webhook_i_had(
    client: TestClient, make_user: MakeUser, receiver: Receiver
) -> None:
    me = make_user("keeper")
    assert put(client, me, receiver.url()).status_code == 200
    assert put(client, me, "http://192.168.0.1/").status_code == 422
    assert client.get(URL, headers=me).json()["url"] == receiver.url()


def test_an_unknown_format_or_key_is_refused(
    client: TestClient, make_user: MakeUser, services: Services, receiver: Receiver
) -> None:
    me = make_user("formal")
    assert put(client, me, receiver.url(), "teams").status_code == 422
    extra = client.put(URL, json={"url": receiver.url(), "format": "json", "x": 1}, headers=me)
    assert extra.status_code == 422
    assert client.put(URL, json={"format": "json"}, headers=me).status_code == 422
    assert stored(services) == 0


def test_visitors_have_no_webhook(client: TestClient) -> None:
    for method in ("GET", "PUT", "DELETE"):
        assert client.request(method, URL).status_code == 401
    assert client.post(f"{URL}/test").status_code == 401


def test_each_user_has_their_own(
    client: TestClient, make_user: MakeUser, receiver: Receiver
) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    put(client, alice, receiver.url("/alice"))
    assert client.get(URL, headers=bob).status_code == 404
    assert client.delete(URL, headers=bob).status_code == 404
    assert client.get(URL, headers=alice).json()["url"] == receiver.url("/alice")


def test_the_store_keeps_the_last_error_short(services: Services, make_user: MakeUser) -> None:
    make_user("recorded")
    with services.write_conn() as conn:
        user_pk = conn.execute(select(User.id).where(User.user_id == "recorded")).scalar_one()
        webhook_store.set_webhook(conn, user_pk, "https://hooks.example/x", "slack", AT)
        webhook_store.record_error(conn, user_pk, AT, "e" * 500)
        webhook_store.record_ok(conn, user_pk, AT)
    with services.read_conn() as conn:
        row = webhook_store.get(conn, user_pk)
    assert row is not None
    assert row.last_error == "e" * 299 + "\u2026"
    assert webhook_store.payload(row) == {
        "url": "https://hooks.example/x",
        "format": "slack",
        "created_at": "2026-03-01T12:30:00+00:00",
        "last_ok_at": "2026-03-01T12:30:00+00:00",
        "last_error": "e" * 299 + "\u2026",
        "last_error_at": "2026-03-01T12:30:00+00:00",
    }
