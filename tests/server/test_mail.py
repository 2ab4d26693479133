"""Sending mail through a real SMTP server on the loopback and into a Maildir, and what the
site's mails say."""

from __future__ import annotations

import mailbox
import socket
from collections.abc import Iterator
from datetime import UTC, datetime
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path
from urllib.parse import quote

import pytest
from pydantic import SecretStr

from dicehall.server.core.config import Settings
from dicehall.server.core.smtp_url import SmtpTarget, parse_smtp_url
from dicehall.server.domain.notices.emails import (
    digest_mail,
    notice_mail,
    reset_mail,
    verification_mail,
)
from dicehall.server.domain.notices.kinds import Notice
from dicehall.server.infra.mail import (
    MaildirMailer,
    MailError,
    SmtpMailer,
    ehlo_name,
    mail_dir,
    mailer_for,
    on_this_machine,
)
from tests.server.smtpd import running_smtp_server

#: The test server takes a login without TLS, which aiosmtpd warns about.
pytestmark = pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS:UserWarning")

SENDER = "dicehall <dicehall@example.org>"
UNSUBSCRIBE = "https://dice.example.org/notices/unsubscribe?token=abc"
SETTINGS = "https://dice.example.org/settings/notifications"
#: A password with characters that must be percent-encoded in a URL.
PASSWORD = "s3cr/et:p@ss%word"


def a_notice(notice_id: int = 7, text: str = "bob scored 50 in Boatzee; your turn") -> Notice:
    return Notice(
        id=notice_id,
        user_pk=3,
        kind="your_turn",
        game_id=24,
        title="Your turn: Boatzee with bob",
        text=text,
        url="https://dice.example.org/games/24",
        created_at=datetime(2024, 12, 7, 9, 30, tzinfo=UTC),
    )


def a_mail(to: str = "alice@example.org", notice_id: int = 7) -> EmailMessage:
    return notice_mail(a_notice(notice_id), to, SENDER, UNSUBSCRIBE, SETTINGS)


def html_of(message: EmailMessage) -> str:
    part = message.get_body(preferencelist=("html",))
    assert isinstance(part, EmailMessage)
    return str(part.get_content())


def text_of(message: EmailMessage) -> str:
    part = message.get_body(preferencelist=("plain",))
    assert isinstance(part, EmailMessage)
    return str(part.get_content())


@pytest.fixture
def closed_port() -> Iterator[int]:
    """A port of 127.0.0.1 that refuses connections (bound, never listening)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]


# -- the SMTP URL -------------------------------------------------------------------------------


def test_smtp_urls_parse_with_default_ports_and_decoded_credentials() -> None:
    assert parse_smtp_url("smtp://mail.example.org") == SmtpTarget("smtp", "mail.example.org", 25)
    assert parse_smtp_url("smtps://mail.example.org") == SmtpTarget(
        "smtps", "mail.example.org", 465
    )
    target = parse_smtp_url("smtp://me%40example.org:s3cr%2Fet%3Ap%40ss%25word@127.0.0.1:2525/")
    assert (target.host, target.port, target.username) == ("127.0.0.1", 2525, "me@example.org")
    assert target.password == PASSWORD
    assert PASSWORD not in repr(target)


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("http://user:hunter22@mail.example.org", "smtp:// or smtps://"),
        ("mail.example.org:25", "smtp:// or smtps://"),
        ("smtp://user:hunter22@", "no host"),
        ("smtp://user:hunter22@mail.example.org:port", "port"),
        ("smtp://user:hunter22@mail.example.org:70000", "port"),
        ("smtp://user:hunter22@mail.example.org:0", "port"),
        ("smtp://user:hun/ter22@mail.example.org", "percent-encoded"),
        ("smtp://user@mail.example.org", "no password"),
        ("smtp://:hunter22@mail.example.org", "no user"),
    ],
)
def test_malformed_smtp_urls_are_refused_without_the_password(url: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem) as refused:
        parse_smtp_url(url)
    assert "hunter22" not in str(refused.value) and "ter22" not in str(refused.value)


# -- delivery over SMTP -------------------------------------------------------------------------


def test_plain_smtp_delivers_the_mail_with_its_envelope() -> None:
    with running_smtp_server() as server:
        mailer = SmtpMailer(parse_smtp_url(server.url()), timeout=5)
        assert mailer.describe() == f"SMTP 127.0.0.1:{server.port}"
        mailer.send(a_mail())
        (got,) = server.wait_for(1)
    assert got.mail_from == "dicehall@example.org"
    assert got.rcpt_tos == ("alice@example.org",)
    assert got.message["Subject"] == "Your turn: Boatzee with bob"
    assert "bob scored 50 in Boatzee" in text_of(got.message)
    assert not got.tls and got.login is None


def test_smtp_uses_starttls_when_the_server_offers_it(tmp_path: Path) -> None:
    with running_smtp_server(tls="starttls", cert_dir=tmp_path) as server:
        target = parse_smtp_url(server.url())
        SmtpMailer(target, timeout=5, ssl_context=server.client_context).send(a_mail())
        (got,) = server.wait_for(1)
        assert got.tls
        # The certificate is checked: one the client does not trust stops the mail.
        with pytest.raises(MailError, match=r"TLS .* failed") as failed:
            SmtpMailer(target, timeout=5).send(a_mail())
        assert not failed.value.permanent
        assert len(server.received) == 1


def test_smtp_logs_in_with_the_user_and_password_of_the_url() -> None:
    with running_smtp_server(auth=("me@example.org", PASSWORD)) as server:
        good = parse_smtp_url(server.url(user="me@example.org", password=PASSWORD))
        SmtpMailer(good, timeout=5).send(a_mail())
        (got,) = server.wait_for(1)
        assert got.login == "me@example.org"
        wrong = parse_smtp_url(server.url(user="me@example.org", password="not-" + PASSWORD))
        with pytest.raises(MailError, match="refused the login") as refused:
            SmtpMailer(wrong, timeout=5).send(a_mail())
        assert not refused.value.permanent
        assert PASSWORD not in str(refused.value)
        # Without a login the server takes nothing.
        with pytest.raises(MailError, match="asks for a login") as anonymous:
            SmtpMailer(parse_smtp_url(server.url()), timeout=5).send(a_mail())
        assert not anonymous.value.permanent
        assert len(server.received) == 1


def test_smtps_speaks_tls_from_the_start(tmp_path: Path) -> None:
    with running_smtp_server(tls="implicit", cert_dir=tmp_path, auth=("me", PASSWORD)) as server:
        target = parse_smtp_url(server.url("smtps", user="me", password=PASSWORD))
        mailer = SmtpMailer(target, timeout=5, ssl_context=server.client_context)
        assert mailer.describe() == f"SMTPS 127.0.0.1:{server.port}"
        mailer.send(a_mail())
        (got,) = server.wait_for(1)
    assert got.tls and got.login == "me"


def test_a_refused_recipient_is_permanent_and_a_busy_one_is_not() -> None:
    refuse = {
        "nobody@example.org": "550 5.1.1 no such user",
        "busy@example.org": "450 4.2.1 mailbox busy, try later",
    }
    with running_smtp_server(refuse=refuse) as server:
        mailer = SmtpMailer(parse_smtp_url(server.url()), timeout=5)
        with pytest.raises(MailError, match="no such user") as gone:
            mailer.send(a_mail("nobody@example.org"))
        assert gone.value.permanent
        with pytest.raises(MailError, match="mailbox busy") as busy:
            mailer.send(a_mail("busy@example.org"))
        assert not busy.value.permanent
        mailer.send(a_mail("alice@example.org"))
        assert [got.rcpt_tos for got in server.wait_for(1)] == [("alice@example.org",)]


def test_an_unreachable_server_is_a_clear_temporary_error(closed_port: int) -> None:
    target = parse_smtp_url(f"smtp://me:{quote(PASSWORD, safe='')}@127.0.0.1:{closed_port}")
    assert target.password == PASSWORD
    with pytest.raises(MailError) as failed:
        SmtpMailer(target, timeout=5).send(a_mail())
    assert not failed.value.permanent
    assert str(failed.value) == (
        f"cannot reach the SMTP server at 127.0.0.1:{closed_port}: Connection refused"
    )


def test_a_mail_without_recipient_is_refused_before_connecting(closed_port: int) -> None:
    message = a_mail()
    del message["To"]
    with pytest.raises(MailError, match="no recipient") as refused:
        SmtpMailer(parse_smtp_url(f"smtp://127.0.0.1:{closed_port}"), timeout=5).send(message)
    assert refused.value.permanent


# -- the Maildir and the choice of mailer -------------------------------------------------------


def test_the_maildir_mailer_writes_readable_messages(tmp_path: Path) -> None:
    folder = tmp_path / "data" / "mail"
    mailer = MaildirMailer(folder)
    assert mailer.describe() == f"Maildir {folder}"
    mailer.send(a_mail(notice_id=1))
    mailer.send(reset_mail("bob@example.org", SENDER, "bob", "https://x.example/r?t=1", 30))
    box = mailbox.Maildir(folder, create=False)
    read = [message_from_bytes(box.get_bytes(key), policy=policy.default) for key in box.iterkeys()]
    assert sorted(str(m["To"]) for m in read) == ["alice@example.org", "bob@example.org"]
    assert all(isinstance(m, EmailMessage) and text_of(m) for m in read)
    assert (folder.stat().st_mode & 0o777) == 0o700  # reset links are in there


def test_the_maildir_mailer_reports_a_folder_it_cannot_write(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(MailError, match="cannot write mail to the Maildir") as failed:
        MaildirMailer(blocker / "mail").send(a_mail())
    assert not failed.value.permanent


def test_mailer_for_picks_smtp_when_a_url_is_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DICEHALL_DATA", str(tmp_path))
    monkeypatch.delenv("DICEHALL_MAIL_DIR", raising=False)
    monkeypatch.delenv("DICEHALL_SMTP_URL", raising=False)
    embedded = Settings(db_url="sqlite://")
    assert mail_dir(embedded) == tmp_path / "mail"
    assert mailer_for(embedded).describe() == f"Maildir {tmp_path / 'mail'}"
    chosen = Settings(db_url="sqlite://", mail_dir=str(tmp_path / "box"))
    assert mailer_for(chosen).describe() == f"Maildir {tmp_path / 'box'}"
    smtp = Settings(
        db_url="sqlite://",
        smtp_url=SecretStr(f"smtp://me:{quote(PASSWORD, safe='')}@mail.example.org:587"),
        site_url="https://dice.example.org",
    )
    mailer = mailer_for(smtp)
    assert isinstance(mailer, SmtpMailer)
    assert mailer.describe() == "SMTP mail.example.org:587"
    assert mailer.local_hostname == "dice.example.org"
    assert ehlo_name("http://127.0.0.1:8000") == "[127.0.0.1]"


# -- composing ----------------------------------------------------------------------------------


def test_a_notice_mail_has_unsubscribe_headers_and_links() -> None:
    message = a_mail()
    assert message["List-Unsubscribe"] == f"<{UNSUBSCRIBE}>"
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert message["Auto-Submitted"] == "auto-generated"
    assert message["Date"] and message["Subject"] == "Your turn: Boatzee with bob"
    text = text_of(message)
    assert "https://dice.example.org/games/24" in text
    assert f"Turn these e-mails off: {UNSUBSCRIBE}" in text
    assert f"All notification settings: {SETTINGS}" in text
    html = html_of(message)
    assert 'href="https://dice.example.org/games/24"' in html
    assert "<img" not in html and "stylesheet" not in html
    assert 'href="https://dice.example.org/notices/unsubscribe?token=abc"' in html


def test_the_html_part_escapes_what_it_quotes() -> None:
    evil = notice_mail(
        a_notice(text='bob says <script>alert("hi")</script> & more'),
        "alice@example.org",
        SENDER,
        UNSUBSCRIBE,
        SETTINGS,
    )
    html = html_of(evil)
    assert "<script>" not in html
    assert "&lt;script&gt;alert(&quot;hi&quot;)&lt;/script&gt; &amp; more" in html
    assert '<script>alert("hi")</script>' in text_of(evil)


def test_the_message_id_is_stable_for_a_notice() -> None:
    first, again, other = a_mail(notice_id=7), a_mail(notice_id=7), a_mail(notice_id=8)
    assert first["Message-ID"] == again["Message-ID"] == "<dicehall.notice.7@example.org>"
    assert other["Message-ID"] != first["Message-ID"]


def test_a_digest_lists_every_notice_with_unsubscribe_headers() -> None:
    notices = [
        a_notice(1),
        Notice(
            2,
            3,
            "your_turn",
            25,
            "Your turn: Pig with carol",
            "carol held",
            "https://x/25",
            datetime(2024, 12, 7, tzinfo=UTC),
        ),
        Notice(
            3,
            3,
            "your_turn",
            26,
            "Your turn: Boss with dan",
            "dan rolled",
            "https://x/26",
            datetime(2024, 12, 7, tzinfo=UTC),
        ),
        Notice(
            4,
            3,
            "message",
            None,
            "A message from erin",
            "hi <b>",
            "https://x/m",
            datetime(2024, 12, 7, tzinfo=UTC),
        ),
    ]
    message = digest_mail(
        notices, "alice@example.org", SENDER, "Monday 7 December", UNSUBSCRIBE, SETTINGS
    )
    assert message["Subject"] == "Your dicehall digest for Monday 7 December: 3 games wait on you"
    assert message["List-Unsubscribe"] == f"<{UNSUBSCRIBE}>"
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    text = text_of(message)
    for notice in notices:
        assert notice.title in text and notice.text in text and notice.url in text
    assert "hi &lt;b&gt;" in html_of(message)
    again = digest_mail(
        list(reversed(notices)), "alice@example.org", SENDER, "Monday", UNSUBSCRIBE, SETTINGS
    )
    assert again["Message-ID"] == message["Message-ID"]
    one = digest_mail(notices[:1], "alice@example.org", SENDER, "Monday", UNSUBSCRIBE, SETTINGS)
    assert str(one["Subject"]).endswith(": 1 game waits on you")
    with pytest.raises(ValueError, match="at least one notice"):
        digest_mail([], "alice@example.org", SENDER, "Monday", UNSUBSCRIBE, SETTINGS)


def test_account_mails_have_no_unsubscribe_and_say_how_long_the_link_works() -> None:
    reset = reset_mail("bob@example.org", SENDER, "bob", "https://x.example/reset?t=abc", 30)
    verify = verification_mail("bob@example.org", SENDER, "bob", "https://x.example/v?t=1", 24)
    for message in (reset, verify):
        assert message["List-Unsubscribe"] is None
        assert message["List-Unsubscribe-Post"] is None
        assert message["Auto-Submitted"] == "auto-generated"
        assert str(message["Message-ID"]).endswith("@example.org>")
    reset_text = text_of(reset)
    assert "https://x.example/reset?t=abc" in reset_text
    assert "works once, for 30 minutes" in reset_text
    assert "If you did not ask for this, ignore this mail" in reset_text
    assert 'href="https://x.example/reset?t=abc"' in html_of(reset)
    assert "within 24 hours" in text_of(verify)
    assert (
        reset["Message-ID"]
        != reset_mail("bob@example.org", SENDER, "bob", "https://x.example/reset?t=abc", 30)[
            "Message-ID"
        ]
    )


@pytest.mark.parametrize(
    ("host", "local"),
    [
        ("127.0.0.1", True),
        ("127.0.0.53", True),
        ("::1", True),
        ("localhost", True),
        ("mail.example.org", False),
        ("10.0.0.5", False),
        ("192.0.2.7", False),
    ],
)
def test_a_password_crosses_only_this_machine_unencrypted(host: str, local: bool) -> None:
    assert on_this_machine(host) is local
