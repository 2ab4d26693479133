"""The clock reminders a player chooses: at a share of the turn's time used (``"80%"``) or at
a time left (``"1h"``, ``"30m"``, ``"2d"``)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime, timedelta

#: What a new account is reminded at (what the site always did: 80% used, an hour left).
DEFAULT = ("80%", "1h")
#: The most reminders one player may set.
MOST = 5

_MARK = re.compile(r"^(?:(?P<share>[1-9][0-9]?)%|(?P<count>[1-9][0-9]{0,2})(?P<unit>[mhd]))$")
_UNITS = {"m": 60, "h": 3600, "d": 86400}


def check(marks: list[str]) -> list[str]:
    """``marks`` cleaned (each once, in the order given), or ValueError naming the bad one;
    at most ``MOST`` of them as given (so a schema's ``maxItems`` says the same)."""
    if len(marks) > MOST:
        raise ValueError(f"at most {MOST} reminders")
    kept: list[str] = []
    for mark in marks:
        cleaned = mark.strip().lower()
        if not _MARK.match(cleaned):
            raise ValueError(
                f"{mark[:20]!r} is not a reminder: use a share of the time used (50%) or the "
                "time left (1h, 30m, 2d)"
            )
        if cleaned not in kept:
            kept.append(cleaned)
    if len(kept) > MOST:
        raise ValueError(f"at most {MOST} reminders")
    return kept


def moments(marks: Sequence[str], since: datetime, bank: float) -> list[datetime]:
    """When to remind a turn that began at ``since`` with ``bank`` seconds on its clock,
    sorted. A time-left mark counts only on a turn at least twice as long (an hour left of a
    90-minute turn would remind at once)."""
    due: set[datetime] = set()
    for mark in marks:
        found = _MARK.match(mark)
        if found is None:
            continue
        if found["share"]:
            at = since + timedelta(seconds=bank * int(found["share"]) / 100)
        else:
            left = int(found["count"]) * _UNITS[found["unit"]]
            if bank < 2 * left:
                continue
            at = since + timedelta(seconds=bank - left)
        if at > since:
            due.add(at)
    return sorted(due)
