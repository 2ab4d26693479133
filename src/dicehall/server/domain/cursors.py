"""Keyset cursors as opaque text: JSON in unpadded URL-safe base64. Each list checks the
shape of what it decoded; anything unreadable is the same 422 ``invalid_cursor``."""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from dicehall.server.domain.errors import Refused


def encode(raw: Any) -> str:
    """``raw`` (JSON-able) as opaque cursor text."""
    text = json.dumps(raw, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(text).decode().rstrip("=")


def decode(text: str) -> Any:
    """What :func:`encode` made of ``text``; ValueError when it is not such a text."""
    try:
        return json.loads(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))
    except (ValueError, TypeError, binascii.Error) as exc:
        raise ValueError("not a cursor") from exc


def refused(message: str) -> Refused:
    """The answer to a cursor a list did not give."""
    return Refused("invalid", "invalid_cursor", message)
