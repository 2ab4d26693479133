"""Tournament paces: one fixed time bank per player for a whole game, and round deadlines.

A tournament game gives each seat ``bank`` seconds for the whole game: no increment, no
vacation, so no game can outlast its players' banks together, and each round has a known
deadline: its start, plus ``bank`` times the seats of its largest table, plus a grace
(:func:`grace`: an hour, or the bank when that is shorter) for the dice, the bots and the
sweeper. Presets by name, or ``{"bank": seconds}`` (1 s to 14 days).
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta

from dicehall.server.domain.errors import Refused
from dicehall.server.domain.games.pace import DAY, HOUR, LONGEST, Pace

#: The named tournament paces: each player's bank for a whole game, in seconds.
PRESETS: dict[str, int] = {
    "live": 20 * 60,
    "brisk": 2 * DAY,
    "daily": 7 * DAY,
    "relaxed": 14 * DAY,
}


def _bad(message: str) -> Refused:
    return Refused("invalid", "invalid_pace", message)


def parse(raw: object) -> tuple[str, int]:
    """A tournament pace as given (a preset's name or ``{"bank": seconds}``): the text the
    tournament stores and the bank in seconds. 422 ``invalid_pace`` otherwise."""
    if isinstance(raw, str):
        name = raw.strip().lower()
        if name in PRESETS:
            return json.dumps(name), PRESETS[name]
        known = ", ".join(PRESETS)
        raise _bad(f"unknown tournament pace {raw[:30]!r} (paces: {known}, or {{bank: seconds}})")
    if isinstance(raw, dict):
        if set(raw) != {"bank"}:
            raise _bad('a custom tournament pace is exactly {"bank": seconds}')
        bank = raw["bank"]
        if isinstance(bank, bool) or not isinstance(bank, int) or not 1 <= bank <= LONGEST:
            raise _bad(f"a tournament bank is 1 to {LONGEST} seconds (14 days)")
        return json.dumps({"bank": bank}, separators=(",", ":")), bank
    raise _bad('a tournament pace is a preset name or {"bank": seconds}')


def shown(stored: str) -> str | dict[str, int]:
    """A stored tournament pace as the API shows it (as it was given)."""
    value: str | dict[str, int] = json.loads(stored)
    return value


def game_pace(bank: int) -> Pace:
    """The pace of a tournament game: ``bank`` seconds for the whole game, nothing added."""
    return Pace(bank, 0, bank)


def grace(bank: int) -> int:
    """What a round's deadline allows beyond its players' banks (dice, bots, the sweeper)."""
    return min(HOUR, bank)


def round_deadline(start: datetime, bank: int, seats: int) -> datetime:
    """When a round that starts at ``start`` with tables of up to ``seats`` must be over."""
    return start + timedelta(seconds=bank * max(1, seats) + grace(bank))
