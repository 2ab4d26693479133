"""The pages the account's mails lead to, and the Notifications section of the settings page.

Without a browser: sign-up asks for the password twice and keeps the browser's time zone; an
address set on the settings page is proved by the link mailed to it (read from the Maildir);
a forgotten password is reset through the mailed link, once, ending every session; the
unsubscribe link turns one kind of e-mail off, by a one-click POST without any session or
form token; the section saves kinds, channels, time zone and reminders, and refuses bad ones
and an unsafe webhook next to their fields.
"""

from __future__ import annotations

import mailbox
import re
from collections.abc import Iterator
from datetime import timedelta
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from dicehall.server.core.clock import now
from dicehall.server.core.models import User
from dicehall.server.domain import site_secrets
from dicehall.server.domain.notices import delivery, links
from dicehall.server.domain.people import settings
from dicehall.server.domain.services import Services, build_services
from dicehall.server.domain.site_secrets import site_secret
from tests.server.conftest import site_settings
from tests.server.webhook_receiver import receiving
from tests.sqlite_template import migrated_sqlite
from tests.web.test_pages_forms import _error_of, _signup, _token

PASSWORD = "correct horse 42"


@pytest.fixture
def services(tmp_path: Path) -> Iterator[Services]:
    """The site on SQLite with its mail in a Maildir of the test's own; deliveries are run
    by the test (no background job), and the loopback may take webhooks."""
    built = build_services(
        site_settings(
            migrated_sqlite(tmp_path / "pages.sqlite3"),
            mail_dir=str(tmp_path / "mail"),
            deliveries=False,
            outbound_allow="127.0.0.1",
        )
    )
    try:
        yield built
    finally:
        built.engine.dispose()


def _mails(services: Services) -> list[EmailMessage]:
    """Send what is queued, then every mail in the Maildir."""
    delivery.run(services, now())
    box = mailbox.Maildir(services.settings.mail_dir, create=True)
    found = [
        message_from_bytes(box.get_bytes(key), policy=policy.default) for key in box.iterkeys()
    ]
    return [m for m in found if isinstance(m, EmailMessage)]


def _link(mail: EmailMessage, path: str) -> str:
    body = mail.get_body(preferencelist=("plain",))
    assert body is not None
    found = re.search(rf"https?://[^/\s]+(/{path}/\S+)", str(body.get_content()))
    assert found, f"no /{path}/ link in the mail"
    return found.group(1)


def _form_token(html: str, action: str) -> str:
    """The CSRF field of the form posting to ``action`` (a member's page has others)."""
    found = re.search(
        rf'action="{re.escape(action)}".*?name="csrf_token" value="([^"]*)"', html, re.S
    )
    assert found, f"no form posting to {action}"
    return found.group(1)


def _user_pk(services: Services, user_id: str) -> int:
    with services.sessions() as db:
        found = db.query(User).filter(User.user_id == user_id).one()
        return int(found.id)


def _settings_of(services: Services, user_id: str) -> settings.UserSettings:
    with services.read_conn() as conn:
        return settings.of(conn, _user_pk(services, user_id))


def _verified_address(web: TestClient, services: Services, csrf: str, address: str) -> None:
    """Set ``address`` on the settings page and open the link mailed to it."""
    answer = web.post("/settings/email", data={"csrf_token": csrf, "email": address})
    assert answer.status_code == 303
    assert answer.headers["location"] == "/settings?notices=email-sent#notices"
    (mail,) = [m for m in _mails(services) if m["To"] == address]
    opened = web.get(_link(mail, "verify-email"))
    assert opened.status_code == 200 and "is verified" in opened.text


# -- sign-up ---------------------------------------------------------------------------------


def test_sign_up_asks_twice_and_keeps_the_browsers_time_zone(
    web: TestClient, services: Services
) -> None:
    form = web.get("/signup").text
    assert '<label for="f-password_again">Repeat the password' in form
    assert 'type="hidden" name="time_zone"' in form and "/static/js/time-zone-field.js" in form
    token = _token(form)
    sent = {"csrf_token": token, "user_id": "zoe", "password": PASSWORD}
    answer = web.post("/signup", data={**sent, "password_again": PASSWORD + "!"})
    assert answer.status_code == 422
    assert "differ" in _error_of(answer.text, "password_again")
    assert 'href="#f-password_again"' in answer.text and PASSWORD not in answer.text
    assert web.get("/settings").status_code == 303  # nobody is signed in: nothing was made
    answer = web.post("/signup", data={**sent, "password_again": ""})
    assert answer.status_code == 422 and "differ" in _error_of(answer.text, "password_again")

    answer = web.post(
        "/signup", data={**sent, "password_again": PASSWORD, "time_zone": "Europe/Paris"}
    )
    assert answer.status_code == 303
    assert _settings_of(services, "zoe").time_zone == "Europe/Paris"
    web.cookies.clear()
    assert 'href="/forgot-password"' in web.get("/login").text
    token = _token(web.get("/signup").text)
    answer = web.post(
        "/signup",
        data={
            "csrf_token": token,
            "user_id": "yan",
            "password": PASSWORD,
            "password_again": PASSWORD,
            "time_zone": "Mars/Olympus_Mons",
        },
    )
    assert answer.status_code == 303  # an unknown zone is ignored, not refused
    assert _settings_of(services, "yan").time_zone == "UTC"


# -- e-mail address, forgotten password ------------------------------------------------------


def test_a_forgotten_password_is_reset_once_through_the_mailed_link(
    web: TestClient, services: Services
) -> None:
    csrf = _signup(web, "rosa")
    _verified_address(web, services, csrf, "rosa@example.org")
    section = web.get("/settings").text
    assert 'id="notices"' in section and "rosa@example.org</strong>: verified" in section

    token = _form_token(web.get("/forgot-password").text, "/forgot-password")
    bad = web.post("/forgot-password", data={"csrf_token": token, "email": "rosa at home"})
    assert bad.status_code == 422 and "name@example.org" in _error_of(bad.text, "email")
    before = len(_mails(services))
    unknown = web.post("/forgot-password", data={"csrf_token": token, "email": "x@example.org"})
    asked = web.post("/forgot-password", data={"csrf_token": token, "email": "rosa@example.org"})
    for answer in (unknown, asked):
        assert answer.status_code == 200 and 'id="reset-asked"' in answer.text
    mails = _mails(services)
    resets = [m for m in mails if "password" in str(m["Subject"])]
    assert len(mails) == before + 1 and [m["To"] for m in resets] == ["rosa@example.org"]
    link = _link(resets[0], "reset-password")

    shown = web.get(link)
    assert shown.status_code == 200 and "Set a new password" in shown.text
    form = {"csrf_token": _form_token(shown.text, link), "password": "a new secret 7"}
    differ = web.post(link, data={**form, "password_again": "a new secret 8"})
    assert differ.status_code == 422 and "differ" in _error_of(differ.text, "password_again")
    short = web.post(link, data={**form, "password": "short", "password_again": "short"})
    assert short.status_code == 422 and "8 characters" in _error_of(short.text, "password")
    assert web.get("/settings").status_code == 200  # nothing changed yet: still signed in

    done = web.post(link, data={**form, "password_again": "a new secret 7"})
    assert done.status_code == 200 and 'id="reset-done"' in done.text
    assert 'href="/login"' in done.text
    assert web.get("/settings").status_code == 303  # every session ended, this one too
    used = web.get(link)
    assert used.status_code == 410 and 'href="/forgot-password"' in used.text
    again = web.post(link, data={**form, "password_again": "a new secret 7"})
    assert again.status_code == 410 and "used already" in again.text
    login = web.post("/api/v1/auth/login", json={"user_id": "rosa", "password": "a new secret 7"})
    assert login.status_code == 200


def test_reset_and_verify_links_that_do_not_work_say_why(
    web: TestClient, services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    csrf = _signup(web, "ivo")
    pk = _user_pk(services, "ivo")
    forged = web.get("/reset-password/not-a-token")
    assert forged.status_code == 404 and "not valid" in forged.text
    assert 'href="/forgot-password"' in forged.text
    assert web.get("/verify-email/" + "x" * 2000).status_code == 404

    with services.sessions() as db:
        user = db.get(User, pk)
        assert user is not None
        password_hash = user.password_hash
    token = links.reset_token(site_secret(services), pk, password_hash)
    later = now() + links.RESET_LIFETIME + timedelta(minutes=1)
    monkeypatch.setattr(site_secrets, "now", lambda: later)
    expired = web.get(f"/reset-password/{token}")
    assert expired.status_code == 410 and "expired" in expired.text
    monkeypatch.undo()

    # A link for an address the account no longer has.
    web.post("/settings/email", data={"csrf_token": csrf, "email": "ivo@example.org"})
    old = links.verify_token(site_secret(services), pk, "ivo@example.net")
    changed = web.get(f"/verify-email/{old}")
    assert changed.status_code == 409 and 'href="/settings#notices"' in changed.text
    assert "not verified yet" in web.get("/settings").text
    bad = web.post("/settings/email", data={"csrf_token": csrf, "email": "ivo@@example"})
    assert bad.status_code == 422 and _error_of(bad.text, "email")
    removed = web.post("/settings/email", data={"csrf_token": csrf, "action": "remove"})
    assert removed.headers["location"] == "/settings?notices=email-removed#notices"
    assert "You have no address" in web.get("/settings").text


# -- unsubscribe -----------------------------------------------------------------------------


def test_one_click_unsubscribe_needs_no_session_nor_form_token(
    web: TestClient, services: Services
) -> None:
    _signup(web, "una")
    pk = _user_pk(services, "una")
    token = links.unsubscribe_token(site_secret(services), pk, "your_turn")
    web.cookies.clear()  # a mail client: no cookie at all
    shown = web.get(f"/unsubscribe/{token}")
    assert shown.status_code == 200 and "e-mails about <strong>your turn</strong>" in shown.text
    assert f'action="/unsubscribe/{token}"' in shown.text
    assert "your_turn" in _settings_of(services, "una").email_kinds

    answer = web.post(
        f"/unsubscribe/{token}",
        content=b"List-Unsubscribe=One-Click",
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert answer.status_code == 200 and 'id="unsubscribed"' in answer.text
    kinds = _settings_of(services, "una").email_kinds
    assert "your_turn" not in kinds and "invitation" in kinds
    # Any body, again: still 200, still off; the page says so.
    again = web.post(f"/unsubscribe/{token}", content=b"\x00junk")
    assert again.status_code == 200
    assert "off already" in web.get(f"/unsubscribe/{token}").text
    assert web.post("/unsubscribe/forged").status_code == 404


# -- the Notifications section ---------------------------------------------------------------


def _notice_form(**changes: str) -> dict[str, Any]:
    form: dict[str, Any] = {
        "email_mode": "immediate",
        "digest_hour": "19",
        "email-your_turn": "on",
        "push-your_turn": "on",
        "push-message": "on",
        "webhook-game_over": "on",
        "time_zone": "America/Sao_Paulo",
        "reminders": "50%, 2h",
    }
    form.update(changes)
    return form


def test_the_notifications_section_saves_and_refuses_next_to_each_field(
    web: TestClient, services: Services
) -> None:
    csrf = _signup(web, "nell")
    page = web.get("/settings").text
    assert '<section class="settings-section notices" id="notices"' in page
    assert '<label for="f-push-message" class="visually-hidden">Messages by push</label>' in page
    assert '<option value="Europe/Paris">' in page and 'id="push-state"' in page

    answer = web.post("/settings/notices", data={"csrf_token": csrf, **_notice_form()})
    assert answer.status_code == 303
    assert answer.headers["location"] == "/settings?notices=saved#notices"
    saved = _settings_of(services, "nell")
    assert (saved.email_mode, saved.digest_hour) == ("immediate", 19)
    assert saved.email_kinds == ["your_turn"] and saved.push_kinds == ["your_turn", "message"]
    assert saved.webhook_kinds == ["game_over"]
    assert saved.time_zone == "America/Sao_Paulo" and saved.reminders == ["50%", "2h"]
    shown = web.get("/settings?notices=saved").text
    assert 'id="notices-done"' in shown and 'value="50%, 2h"' in shown
    assert re.search(r'id="f-push-message"[^>]* checked', shown)
    assert not re.search(r'id="f-email-message"[^>]* checked', shown)

    wrong = web.post(
        "/settings/notices",
        data={
            "csrf_token": csrf,
            **_notice_form(time_zone="Atlantis/Capital", reminders="80%, soon", digest_hour="25"),
        },
    )
    assert wrong.status_code == 422 and "<title>Error: Settings" in wrong.text
    assert "Unknown time zone" in _error_of(wrong.text, "time_zone")
    assert "'soon' is not a reminder" in _error_of(wrong.text, "reminders")
    assert "0 to 23" in _error_of(wrong.text, "digest_hour")
    assert 'value="Atlantis/Capital"' in wrong.text  # what was typed stays
    assert _settings_of(services, "nell") == saved
    forged = web.post("/settings/notices", data={"csrf_token": "forged", **_notice_form()})
    assert forged.status_code == 422 and "expired" in forged.text


def test_the_webhook_is_checked_tested_and_removed_from_the_section(
    web: TestClient, services: Services
) -> None:
    csrf = _signup(web, "hugo")
    unsafe = web.post(
        "/settings/webhook",
        data={"csrf_token": csrf, "url": "http://10.1.2.3/hook", "format": "json"},
    )
    assert unsafe.status_code == 422 and "refused" in _error_of(unsafe.text, "url")
    assert 'value="http://10.1.2.3/hook"' in unsafe.text
    with receiving() as receiver:
        url = receiver.url()
        saved = web.post(
            "/settings/webhook", data={"csrf_token": csrf, "url": url, "format": "ntfy"}
        )
        assert saved.headers["location"] == "/settings?notices=webhook-saved#notices"
        tested = web.post("/settings/webhook", data={"csrf_token": csrf, "action": "test"})
        assert tested.headers["location"] == "/settings?notices=webhook-ok#notices"
        assert len(receiver.wait_for(1)) == 1
        page = web.get("/settings?notices=webhook-ok").text
        assert "reached your webhook" in page and "Last delivered: not yet" not in page
        receiver.status = 500
        failed = web.post("/settings/webhook", data={"csrf_token": csrf, "action": "test"})
        assert failed.headers["location"] == "/settings?notices=webhook-failed#notices"
        assert 'id="webhook-error"' in web.get("/settings").text
    removed = web.post("/settings/webhook", data={"csrf_token": csrf, "action": "remove"})
    assert removed.headers["location"] == "/settings?notices=webhook-removed#notices"
    assert "You have no webhook" in web.get("/settings").text
