"""``dicehall mail``: the mail the embedded default wrote to its Maildir."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from dicehall.server.domain.notices.emails import notice_mail, reset_mail
from dicehall.server.domain.notices.kinds import Notice
from dicehall.server.infra.mail import MaildirMailer
from tests.conftest import CliRunner

SENDER = "dicehall <dicehall@localhost>"


@pytest.fixture(autouse=True)
def no_smtp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The embedded default: no SMTP server, the data directory in ``tmp_path``."""
    monkeypatch.setenv("DICEHALL_DATA", str(tmp_path / "data"))
    monkeypatch.delenv("DICEHALL_SMTP_URL", raising=False)
    monkeypatch.delenv("DICEHALL_MAIL_DIR", raising=False)


def write_two_mails(folder: Path) -> None:
    """A notice for alice, then (written later) a password reset for bob."""
    mailer = MaildirMailer(folder)
    notice = Notice(
        id=5,
        user_pk=1,
        kind="your_turn",
        game_id=24,
        title="Your turn: Boatzee with bob",
        text="bob scored 50 in Boatzee; your turn",
        url="http://127.0.0.1:8000/games/24",
        created_at=datetime(2024, 12, 7, 9, 30, tzinfo=UTC),
    )
    mailer.send(notice_mail(notice, "alice@example.org", SENDER, "http://u/1", "http://s/"))
    mailer.send(reset_mail("bob@example.org", SENDER, "bob", "http://r/?t=abc", 30))
    # Make the write order unmistakable whatever the file system's clock resolution.
    files = sorted((folder / "new").iterdir(), key=lambda file: file.stat().st_mtime_ns)
    for age, file in enumerate(reversed(files)):
        stamp = 1_700_000_000 - age * 60
        os.utime(file, (stamp, stamp))


def test_no_mail_yet(cli: CliRunner, tmp_path: Path) -> None:
    missing = cli("mail")
    assert missing.code == 0, missing.err
    assert f"no mail yet in {tmp_path / 'data' / 'mail'}" in missing.out
    (tmp_path / "empty").mkdir()
    empty = cli("mail", "--dir", str(tmp_path / "empty"), "--json")
    assert empty.code == 0 and json.loads(empty.out)["mails"] == []
    nothing = cli("mail", "--show", "1")
    assert nothing.code == 2 and "no mail 1" in nothing.err


def test_lists_and_shows_the_mail_newest_first(cli: CliRunner, tmp_path: Path) -> None:
    write_two_mails(tmp_path / "data" / "mail")
    listed = cli("mail")
    assert listed.code == 0, listed.err
    assert listed.out.index("bob@example.org") < listed.out.index("alice@example.org")
    assert "Reset your dicehall password" in listed.out
    assert "DICEHALL_SMTP_URL" not in listed.out

    shown = cli("mail", "--show", "1")
    assert shown.code == 0, shown.err
    assert "To: bob@example.org" in shown.out
    assert "Subject: Reset your dicehall password" in shown.out
    assert "http://r/?t=abc" in shown.out and "<html" not in shown.out

    second = cli("mail", "--show", "2")
    assert "List-Unsubscribe: <http://u/1>" in second.out
    assert "bob scored 50 in Boatzee; your turn" in second.out

    beyond = cli("mail", "--show", "3")
    assert beyond.code == 2 and "there is no mail 3" in beyond.err and "holds 2" in beyond.err


def test_json_and_another_folder(cli: CliRunner, tmp_path: Path) -> None:
    folder = tmp_path / "elsewhere"
    write_two_mails(folder)
    listed = cli("mail", "--dir", str(folder), "--json")
    assert listed.code == 0, listed.err
    data = json.loads(listed.out)
    assert data["dir"] == str(folder) and data["smtp"] is None
    assert [(m["number"], m["to"]) for m in data["mails"]] == [
        (1, "bob@example.org"),
        (2, "alice@example.org"),
    ]
    assert data["mails"][1]["subject"] == "Your turn: Boatzee with bob"
    assert data["mails"][1]["message_id"] == "<dicehall.notice.5@localhost>"
    assert data["mails"][1]["date"].startswith("2024-12-07")

    shown = json.loads(cli("mail", "--dir", str(folder), "--show", "2", "--json").out)
    assert shown["number"] == 2
    assert ["Auto-Submitted", "auto-generated"] in shown["headers"]
    assert "bob scored 50" in shown["text"] and "Turn these e-mails off" in shown["text"]


def test_says_where_mail_goes_when_smtp_is_set(
    cli: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_two_mails(tmp_path / "data" / "mail")
    monkeypatch.setenv("DICEHALL_SMTP_URL", "smtp://me:hunter22@mail.example.org:587")
    listed = cli("mail")
    assert listed.code == 0, listed.err
    assert "mail goes to SMTP mail.example.org:587" in listed.out
    assert "holds only what was written before" in listed.out
    assert "hunter22" not in listed.out
    assert json.loads(cli("mail", "--json").out)["smtp"] == "SMTP mail.example.org:587"


def test_refuses_a_folder_that_is_not_a_maildir(cli: CliRunner, tmp_path: Path) -> None:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "todo.txt").write_text("x")
    refused = cli("mail", "--dir", str(tmp_path / "notes"))
    assert refused.code == 2 and "is not a Maildir" in refused.err


def test_a_malformed_smtp_url_is_refused_without_its_password(
    cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DICEHALL_SMTP_URL", "http://me:hunter2secret@mail.example.org")
    refused = cli("mail")
    assert refused.code != 0
    assert "DICEHALL_SMTP_URL" in refused.err and "smtp://" in refused.err
    assert "hunter2secret" not in refused.out + refused.err
