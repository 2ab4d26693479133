"""The e-mails the site sends: a notice, a day's digest, an address check, a password reset.

Each is plain text with a simple HTML alternative (everything escaped; no images, no outside
styles), marked ``Auto-Submitted: auto-generated`` so that mail robots do not answer it.
Notices and digests carry ``List-Unsubscribe`` with one-click unsubscribe (RFC 8058); the
two account mails do not, as they are answers to what the user just did.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid, parseaddr
from html import escape

from dicehall.server.domain.notices.kinds import KIND_LABELS, Notice


def notice_mail(
    notice: Notice, to: str, sender: str, unsubscribe_url: str, settings_url: str
) -> EmailMessage:
    """One notice as a mail. Its Message-ID comes from the notice's id, so that a mail sent
    again after a failed try is recognised as the same one."""
    label = KIND_LABELS[notice.kind]
    opens = "Open the game" if notice.game_id is not None else "Open dicehall"
    text = f"{notice.text}\n\n{opens}: {notice.url}\n" + _footer_text(
        label, unsubscribe_url, settings_url
    )
    html = _html(
        notice.title,
        f"<p>{_lines(notice.text)}</p>\n"
        f'<p><a href="{escape(notice.url)}">{opens}</a></p>\n'
        + _footer_html(label, unsubscribe_url, settings_url),
    )
    message = _message(
        notice.title,
        to,
        sender,
        message_id=f"<dicehall.notice.{notice.id}@{_domain(sender)}>",
        date=notice.created_at,
    )
    _unsubscribe_headers(message, unsubscribe_url)
    _bodies(message, text, html)
    return message


def digest_mail(
    notices: Sequence[Notice],
    to: str,
    sender: str,
    day_label: str,
    unsubscribe_url: str,
    settings_url: str,
) -> EmailMessage:
    """A day's notices in one mail ("Your dicehall digest for Monday 7 December: 3 games wait
    on you"), one entry each, in the order given. Its Message-ID comes from the notices'
    ids. Raises ValueError when there is no notice."""
    if not notices:
        raise ValueError("a digest needs at least one notice")
    subject = f"Your dicehall digest for {day_label}: {_summary(notices)}"
    labels = sorted({KIND_LABELS[notice.kind] for notice in notices})
    label = ", ".join(labels)
    entries = "\n\n".join(f"{n.title}\n{n.text}\n{n.url}" for n in notices)
    text = f"{subject}.\n\n{entries}\n" + _footer_text(label, unsubscribe_url, settings_url)
    items = "\n".join(
        f'<li><p><a href="{escape(n.url)}">{escape(n.title)}</a><br>\n{_lines(n.text)}</p></li>'
        for n in notices
    )
    html = _html(
        subject,
        f"<h1>{escape(subject)}</h1>\n<ul>\n{items}\n</ul>\n"
        + _footer_html(label, unsubscribe_url, settings_url),
    )
    ids = ",".join(str(notice.id) for notice in sorted(notices, key=lambda n: n.id))
    digest = hashlib.sha256(ids.encode()).hexdigest()[:16]
    message = _message(
        subject,
        to,
        sender,
        message_id=f"<dicehall.digest.{notices[0].user_pk}.{digest}@{_domain(sender)}>",
        date=datetime.now(UTC),
    )
    _unsubscribe_headers(message, unsubscribe_url)
    _bodies(message, text, html)
    return message


def verification_mail(to: str, sender: str, user_id: str, link: str, hours: int) -> EmailMessage:
    """The mail that confirms an address: a link that works for ``hours`` hours."""
    subject = "Confirm your e-mail address on dicehall"
    lasts = _count(hours, "hour")
    text = (
        f"Hello {user_id},\n\n"
        f"this address was given for the dicehall account {user_id}. Open this link within "
        f"{lasts} to confirm it:\n\n{link}\n\n"
        "If you did not ask for this, ignore this mail: the address stays unconfirmed.\n"
    )
    html = _html(
        subject,
        f"<p>Hello {escape(user_id)},</p>\n"
        f"<p>this address was given for the dicehall account {escape(user_id)}. Open this "
        f"link within {lasts} to confirm it:</p>\n"
        f'<p><a href="{escape(link)}">Confirm this address</a></p>\n'
        "<p>If you did not ask for this, ignore this mail: the address stays "
        "unconfirmed.</p>\n",
    )
    message = _message(subject, to, sender, message_id=_random_id("verify", sender))
    _bodies(message, text, html)
    return message


def reset_mail(to: str, sender: str, user_id: str, link: str, minutes: int) -> EmailMessage:
    """The mail with a password-reset link: it works once, for ``minutes`` minutes."""
    subject = "Reset your dicehall password"
    lasts = _count(minutes, "minute")
    text = (
        f"Hello {user_id},\n\n"
        f"someone asked to reset the password of the dicehall account {user_id}. This link "
        f"sets a new one; it works once, for {lasts}:\n\n{link}\n\n"
        "A new password signs out every session of the account and ends its API tokens.\n\n"
        "If you did not ask for this, ignore this mail: your password stays as it is.\n"
    )
    html = _html(
        subject,
        f"<p>Hello {escape(user_id)},</p>\n"
        f"<p>someone asked to reset the password of the dicehall account {escape(user_id)}. "
        f"This link sets a new one; it works once, for {lasts}:</p>\n"
        f'<p><a href="{escape(link)}">Set a new password</a></p>\n'
        "<p>A new password signs out every session of the account and ends its API "
        "tokens.</p>\n"
        "<p>If you did not ask for this, ignore this mail: your password stays as it is.</p>\n",
    )
    message = _message(subject, to, sender, message_id=_random_id("reset", sender))
    _bodies(message, text, html)
    return message


def _message(
    subject: str, to: str, sender: str, *, message_id: str, date: datetime | None = None
) -> EmailMessage:
    message = EmailMessage()
    message["Subject"] = _one_line(subject)
    message["From"] = sender
    message["To"] = to
    when = date or datetime.now(UTC)
    message["Date"] = format_datetime(when if when.tzinfo else when.replace(tzinfo=UTC))
    message["Message-ID"] = message_id
    message["Auto-Submitted"] = "auto-generated"
    # Outlook's own auto-replies (out of office) honour this header, not Auto-Submitted.
    message["X-Auto-Response-Suppress"] = "All"
    return message


def _unsubscribe_headers(message: EmailMessage, unsubscribe_url: str) -> None:
    message["List-Unsubscribe"] = f"<{unsubscribe_url}>"
    message["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"


def _bodies(message: EmailMessage, text: str, html: str) -> None:
    message.set_content(text)
    message.add_alternative(html, subtype="html")


def _footer_text(label: str, unsubscribe_url: str, settings_url: str) -> str:
    return (
        f"\n-- \nYou get this mail because e-mail is on for these dicehall notices: {label}.\n"
        f"Turn these e-mails off: {unsubscribe_url}\n"
        f"All notification settings: {settings_url}\n"
    )


def _footer_html(label: str, unsubscribe_url: str, settings_url: str) -> str:
    return (
        "<hr>\n"
        f"<p>You get this mail because e-mail is on for these dicehall notices: "
        f"{escape(label)}.<br>\n"
        f'<a href="{escape(unsubscribe_url)}">Turn these e-mails off</a> · '
        f'<a href="{escape(settings_url)}">All notification settings</a></p>\n'
    )


def _html(title: str, body: str) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{escape(_one_line(title))}</title>\n</head>\n<body>\n{body}</body>\n</html>\n"
    )


def _lines(text: str) -> str:
    return "<br>\n".join(escape(line) for line in text.splitlines())


def _summary(notices: Sequence[Notice]) -> str:
    waiting = {n.game_id for n in notices if n.kind == "your_turn" and n.game_id is not None}
    if waiting:
        return f"{_count(len(waiting), 'game')} {'waits' if len(waiting) == 1 else 'wait'} on you"
    return _count(len(notices), "notice")


def _count(number: int, word: str) -> str:
    return f"{number} {word}" if number == 1 else f"{number} {word}s"


def _one_line(text: str) -> str:
    # A header holds one line: a stray newline in a title must not end it early.
    return " ".join(text.split())


def _domain(sender: str) -> str:
    return parseaddr(sender)[1].rpartition("@")[2].strip("[]") or "localhost"


def _random_id(kind: str, sender: str) -> str:
    # Each account mail holds a new link, so each is a new message.
    return make_msgid(idstring=f"dicehall.{kind}", domain=_domain(sender))
