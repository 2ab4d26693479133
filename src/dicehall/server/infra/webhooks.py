"""A notice posted to a user's webhook: plain JSON, Discord, Slack or ntfy.

Each format is rendered as its receiver expects it, with what users wrote (names, messages)
escaped so that it cannot ping a channel, forge a link or break a header. Every post says
``Idempotency-Key: dicehall-<id>``, so a receiver may drop a notice delivered twice.

What a notice says is the domain's business: this module takes anything shaped like the
domain's ``Notice`` and raises its own :class:`WebhookFailed`, which
``domain.notices.webhook_store.deliver`` turns into the domain's failure (the layers keep
``infra`` below ``domain``).
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Sequence
from datetime import datetime
from typing import Protocol
from urllib.parse import quote

from dicehall.server.infra.outbound import OutboundError, OutboundRefused, post

USER_AGENT = "dicehall-webhook"
#: Discord refuses a message's content beyond this many characters.
DISCORD_LIMIT = 2000
#: Answers that may go right on a later try; any other 4xx will not (the URL is wrong).
_RETRY_STATUSES = frozenset({408, 425, 429})

_DISCORD_SPECIAL = re.compile(r"([\\*_~`|<>#\-\[\]()])")
_DISCORD_ORDERED = re.compile(r"^(\s*\d+)\.", re.MULTILINE)
_CONTROL = re.compile(r"[\x00-\x1f\x7f]+")


class Notice(Protocol):
    """What a webhook post says (the domain's ``Notice`` has this shape)."""

    @property
    def id(self) -> int: ...
    @property
    def kind(self) -> str: ...
    @property
    def game_id(self) -> int | None: ...
    @property
    def title(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def url(self) -> str: ...
    @property
    def created_at(self) -> datetime: ...


class WebhookFailed(Exception):
    """A post to a webhook failed; ``permanent``: trying again cannot help; ``status``: the
    HTTP status it answered, if it answered."""

    def __init__(self, message: str, *, permanent: bool, status: int | None = None) -> None:
        super().__init__(message)
        self.permanent = permanent
        self.status = status


def _common(notice: Notice) -> dict[str, str]:
    return {"Idempotency-Key": f"dicehall-{notice.id}", "User-Agent": USER_AGENT}


def _json_body(payload: object) -> bytes:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()


def discord_escape(text: str) -> str:
    """``text`` shown as written by Discord: markdown characters escaped, mentions (``@``)
    broken by a zero-width space."""
    text = _DISCORD_SPECIAL.sub(r"\\\1", text)
    text = _DISCORD_ORDERED.sub(r"\1\\.", text)
    return text.replace("@", "@\u200b")


def _cut(escaped: str, most: int) -> str:
    """``escaped`` in at most ``most`` characters, ending in an ellipsis when cut (never
    inside an escape)."""
    if len(escaped) <= most:
        return escaped
    kept = escaped[: max(0, most - 1)]
    trailing = len(kept) - len(kept.rstrip("\\"))
    if trailing % 2:
        kept = kept[:-1]
    return kept + "\u2026"


def _discord(notice: Notice) -> bytes:
    link = notice.url.replace(">", "%3E").replace(" ", "%20")
    title = _cut(discord_escape(notice.title), DISCORD_LIMIT // 4)
    tail = f"\n<{link}>"
    head = f"**{title}**\n"
    text = _cut(discord_escape(notice.text), max(0, DISCORD_LIMIT - len(head) - len(tail)))
    content = (head + text + tail)[:DISCORD_LIMIT]
    return _json_body(
        {"content": content, "allowed_mentions": {"parse": []}, "username": "dicehall"}
    )


def slack_escape(text: str) -> str:
    """``text`` with Slack's control characters (``&``, ``<``, ``>``) escaped."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _slack(notice: Notice) -> bytes:
    link = slack_escape(notice.url).replace("|", "%7C")
    title = slack_escape(notice.title)
    return _json_body({"text": f"<{link}|{title}>: {slack_escape(notice.text)}"})


def header_text(text: str) -> str:
    """``text`` as a header value: control characters made spaces, and anything not plain
    ASCII sent as an RFC 2047 encoded word (which ntfy decodes)."""
    text = _CONTROL.sub(" ", text).strip()
    if text.isascii() and "=?" not in text:
        return text
    return f"=?utf-8?b?{base64.b64encode(text.encode()).decode('ascii')}?="


def _ntfy(notice: Notice) -> tuple[bytes, dict[str, str]]:
    headers = {
        "Title": header_text(notice.title),
        "Click": quote(_CONTROL.sub("", notice.url), safe=":/?#[]@!$&'()*+,;=%~"),
        "Tags": "game_die",
        "Content-Type": "text/plain; charset=utf-8",
    }
    return notice.text.encode(), headers


def render(fmt: str, notice: Notice) -> tuple[bytes, dict[str, str]]:
    """The body and headers that post ``notice`` in the format ``fmt`` (json, discord,
    slack or ntfy; ValueError for another)."""
    headers = _common(notice)
    if fmt == "ntfy":
        body, own = _ntfy(notice)
        return body, {**own, **headers}
    headers["Content-Type"] = "application/json"
    if fmt == "discord":
        return _discord(notice), headers
    if fmt == "slack":
        return _slack(notice), headers
    if fmt == "json":
        payload = {
            "id": notice.id,
            "kind": notice.kind,
            "game": notice.game_id,
            "title": notice.title,
            "text": notice.text,
            "url": notice.url,
            "created_at": notice.created_at.isoformat(),
        }
        return _json_body(payload), headers
    raise ValueError(f"no webhook format {fmt!r}")


def deliver(
    url: str,
    fmt: str,
    notice: Notice,
    *,
    timeout: float,
    allow: Sequence[str],
) -> None:
    """Post ``notice`` to the webhook at ``url``, or raise :class:`WebhookFailed`:
    permanent for a refused URL and for answers that another try cannot change (4xx but
    408, 425 and 429; a redirect), temporary for the rest (5xx, timeouts, refused
    connections). Blocking: run it in a worker thread."""
    body, headers = render(fmt, notice)
    try:
        post(url, body, headers, timeout=timeout, allow=allow)
    except OutboundRefused as exc:
        raise WebhookFailed(f"webhook URL refused: {exc.reason}", permanent=True) from None
    except OutboundError as exc:
        status = exc.status
        if status is None:
            raise WebhookFailed(f"webhook failed: {exc}", permanent=False) from None
        if 300 <= status < 400:
            raise WebhookFailed(
                f"the webhook answered HTTP {status} (a redirect; give its final URL)",
                permanent=True,
                status=status,
            ) from None
        permanent = status < 500 and status not in _RETRY_STATUSES
        raise WebhookFailed(
            f"the webhook answered HTTP {status}", permanent=permanent, status=status
        ) from None


__all__ = [
    "Notice",
    "WebhookFailed",
    "deliver",
    "discord_escape",
    "header_text",
    "render",
    "slack_escape",
]
