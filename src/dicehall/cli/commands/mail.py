"""``dicehall mail``: the mail the site wrote to its Maildir while no SMTP server is set."""

from __future__ import annotations

import email
import email.policy
import mailbox
from dataclasses import dataclass
from datetime import datetime
from email.message import EmailMessage
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table

from dicehall.cli.apps import Groups
from dicehall.cli.common import (
    JsonTable,
    console,
    fail,
    print_json,
    require_extra,
    site_settings_or_fail,
)

if TYPE_CHECKING:
    pass


@dataclass(frozen=True)
class StoredMail:
    """One mail in the folder; number 1 is the newest."""

    number: int
    key: str
    date: str
    sender: str
    to: str
    subject: str
    message: EmailMessage

    def summary(self) -> dict[str, Any]:
        """The fields ``--json`` lists for each mail."""
        return {
            "number": self.number,
            "date": self.date,
            "from": self.sender,
            "to": self.to,
            "subject": self.subject,
            "message_id": str(self.message.get("Message-ID", "")),
            "file": self.key,
        }


def mail(
    show: Annotated[
        int | None,
        typer.Option("--show", min=1, metavar="N", help="Print mail N of the list whole."),
    ] = None,
    folder: Annotated[
        Path | None,
        typer.Option(
            "--dir",
            metavar="PATH",
            help="The Maildir (default: DICEHALL_MAIL_DIR, else data dir/mail).",
        ),
    ] = None,
    as_json: JsonTable = False,
) -> None:
    """List the mail the site wrote while no SMTP server is set, newest first."""
    require_extra("pydantic_settings", "site", "dicehall mail")
    from dicehall.server.core.smtp_url import parse_smtp_url
    from dicehall.server.infra.mail import mail_dir

    settings = site_settings_or_fail()
    path = folder if folder is not None else mail_dir(settings)
    smtp: str | None = None
    if settings.smtp_url is not None:
        try:
            target = parse_smtp_url(settings.smtp_url.get_secret_value())
        except ValueError as exc:
            smtp = f"an SMTP server whose URL is malformed ({exc})"
        else:
            smtp = f"{target.scheme.upper()} {target.address}"
    mails = _read(path)
    if show is not None:
        _show(path, mails, show, as_json)
        return
    if as_json:
        print_json({"dir": str(path), "smtp": smtp, "mails": [found.summary() for found in mails]})
        return
    if smtp is not None:
        console.print(
            f"note: DICEHALL_SMTP_URL is set: mail goes to {smtp}, "
            "this folder holds only what was written before",
            style="yellow",
            markup=False,
            soft_wrap=True,
        )
    if not mails:
        console.print(f"no mail yet in {path}", markup=False, soft_wrap=True)
        return
    table = Table(title=f"{len(mails)} {'mail' if len(mails) == 1 else 'mails'} in {path}")
    for column in ("#", "date", "to", "subject"):
        table.add_column(column, justify="right" if column == "#" else "left")
    for found in mails:
        shown = datetime.fromisoformat(found.date).strftime("%Y-%m-%d %H:%M")
        table.add_row(str(found.number), shown, found.to, found.subject)
    console.print(table)


def register(groups: Groups) -> None:
    """Add ``mail`` to the root command."""
    groups.root.command()(mail)


def _show(path: Path, mails: list[StoredMail], number: int, as_json: bool) -> None:
    if number > len(mails):
        held = f"holds {len(mails)}" if mails else "holds no mail yet"
        fail(f"there is no mail {number}: {path} {held}")
    found = mails[number - 1]
    body = found.message.get_body(preferencelist=("plain",))
    text = body.get_content() if isinstance(body, EmailMessage) else ""
    headers = [[name, str(value)] for name, value in found.message.items()]
    if as_json:
        print_json({**found.summary(), "headers": headers, "text": text})
        return
    for name, value in headers:
        console.print(f"{name}: {value}", markup=False, soft_wrap=True, highlight=False)
    console.print("", markup=False)
    console.print(text.rstrip("\n"), markup=False, soft_wrap=True, highlight=False)


def _read(path: Path) -> list[StoredMail]:
    """Every mail in the Maildir at ``path``, newest first; none when it does not exist."""
    if not path.exists():
        return []
    if not path.is_dir():
        fail(f"{path} is not a folder")
    if not any((path / sub).is_dir() for sub in ("new", "cur", "tmp")):
        if any(path.iterdir()):
            fail(f"{path} is not a Maildir (it has no new/ or cur/ folder)")
        return []
    try:
        box = mailbox.Maildir(path, create=False)
        found: list[tuple[float, str, EmailMessage]] = []
        for key in box.iterkeys():
            written = box.get_message(key).get_date()
            message = email.message_from_bytes(box.get_bytes(key), policy=email.policy.default)
            found.append((written, key, message))
    except OSError as exc:
        fail(f"cannot read the Maildir {path}: {exc.strerror or exc}")
    # Newest written first; the key breaks ties (it starts with the time it was written).
    found.sort(key=lambda item: (item[0], item[1]), reverse=True)
    return [
        StoredMail(
            number,
            key,
            _sent_text(message, written),
            str(message.get("From", "")),
            str(message.get("To", "")),
            str(message.get("Subject", "")),
            message,
        )
        for number, (written, key, message) in enumerate(found, start=1)
    ]


def _sent_text(message: EmailMessage, written: float) -> str:
    # The Date header says when the site composed it; the file's time is the fallback.
    try:
        when = parsedate_to_datetime(str(message["Date"]))
    except (TypeError, ValueError):
        when = datetime.fromtimestamp(written)
    return when.astimezone().isoformat(timespec="seconds")
