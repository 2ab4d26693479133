"""Paces: how much time each seat has to move, and the clock that keeps each seat's bank.

A pace is a time bank per seat: ``initial`` seconds at the start; the bank runs while the seat
is to act (its whole turn, every roll and choice of it); when the turn passes on, the seat
gains ``increment`` seconds, up to ``cap``. ``None`` is no clock at all.

Presets (seconds): ``live`` (180, 20, 180), ``brisk`` (1 day, 4 h, 2 days), ``daily`` (3
days, 12 h, 5 days), ``relaxed`` (5 days, 1 day, 7 days), ``days-N`` for N in 1..14 (N days
per move: N, N, N days) and ``none``.

Vacation (see :mod:`~dicehall.server.domain.vacation`) saves seats only at paces whose bank
starts at a day or more (every preset but ``live``): an hour of vacation in a game of minutes
would stall it for hours. :func:`vacation_saves` holds old games that stored vacation on at
such a pace to the same rule.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from dicehall.server.domain.notices import reminders as reminder_marks

HOUR = 3600
DAY = 24 * HOUR
#: The longest bank a pace may give (a fortnight), so deadlines stay sane.
LONGEST = 14 * DAY
#: The shortest starting bank at which vacation may save a seat.
VACATION_FROM = DAY
#: What moved a running seat's deadline after its bank ran out (``Clock.saved``).
SAVED_BY = ("vacation", "away")


class BadPace(ValueError):
    """A pace that is neither a preset nor a valid ``{initial, increment, cap}``."""


@dataclass(frozen=True, slots=True)
class Pace:
    """A seat's time bank: its start, what each finished turn adds, and its ceiling."""

    initial: int
    increment: int
    cap: int
    #: The preset's name, or "custom".
    name: str = "custom"

    def as_json(self) -> dict[str, Any]:
        """The pace as the API shows it."""
        return {
            "name": self.name,
            "initial": self.initial,
            "increment": self.increment,
            "cap": self.cap,
        }

    def spec(self) -> str | dict[str, int]:
        """The pace as :func:`parse_pace` reads it back: its preset's name, or the figures."""
        if self.name != "custom":
            return self.name
        return {"initial": self.initial, "increment": self.increment, "cap": self.cap}

    def dumps(self) -> str:
        """The pace as stored."""
        return json.dumps(self.as_json(), separators=(",", ":"))

    @classmethod
    def loads(cls, text: str | None) -> Pace | None:
        """A stored pace (None: no clock)."""
        if text is None:
            return None
        data = json.loads(text)
        return cls(int(data["initial"]), int(data["increment"]), int(data["cap"]), data["name"])

    @property
    def takes_vacation(self) -> bool:
        """Whether vacation may save a seat at this pace (a bank that starts at a day or
        more)."""
        return self.initial >= VACATION_FROM

    def after_turn(self, remaining: float, used: float) -> float:
        """The bank once a turn that took ``used`` seconds passes on."""
        return min(float(self.cap), max(0.0, remaining - used) + self.increment)


PRESETS: dict[str, Pace] = {
    "live": Pace(180, 20, 180, "live"),
    "brisk": Pace(DAY, 4 * HOUR, 2 * DAY, "brisk"),
    "daily": Pace(3 * DAY, 12 * HOUR, 5 * DAY, "daily"),
    "relaxed": Pace(5 * DAY, DAY, 7 * DAY, "relaxed"),
}
_DAYS = re.compile(r"days-(\d{1,2})")


def vacation_saves(asked: bool, pace: Pace | None) -> bool:
    """Whether vacation may save a seat of a game stored with ``asked`` at ``pace``: never at
    a pace under a day, whatever the game stored (games made before the rule)."""
    return asked and (pace is None or pace.takes_vacation)


def parse_pace(raw: object) -> Pace | None:
    """A preset name, ``days-N``, ``none``, or ``{"initial": s, "increment": s, "cap": s}``."""
    if isinstance(raw, str):
        name = raw.strip().lower()
        if name == "none":
            return None
        if name in PRESETS:
            return PRESETS[name]
        days = _DAYS.fullmatch(name)
        if days and 1 <= int(days.group(1)) <= 14:
            n = int(days.group(1)) * DAY
            return Pace(n, n, n, name)
        known = ", ".join([*PRESETS, "days-1 to days-14", "none"])
        raise BadPace(f"unknown pace {raw!r} (paces: {known}, or initial/increment/cap)")
    if isinstance(raw, dict):
        if set(raw) != {"initial", "increment", "cap"}:
            raise BadPace("a custom pace has exactly initial, increment and cap (seconds)")
        values = {}
        for key in ("initial", "increment", "cap"):
            value = raw[key]
            if isinstance(value, bool) or not isinstance(value, int):
                raise BadPace(f"pace {key} must be a whole number of seconds, not {value!r}")
            values[key] = value
        if not 1 <= values["initial"] <= LONGEST or not 1 <= values["cap"] <= LONGEST:
            raise BadPace(f"pace initial and cap must be 1 to {LONGEST} seconds (14 days)")
        if not 0 <= values["increment"] <= values["cap"]:
            raise BadPace("pace increment must be 0 to the cap")
        if values["initial"] > values["cap"]:
            raise BadPace("pace initial may not exceed the cap")
        return Pace(values["initial"], values["increment"], values["cap"])
    raise BadPace("a pace is a preset name or {initial, increment, cap}")


@dataclass(frozen=True, slots=True)
class Clock:
    """Every seat's bank (seconds), whose bank runs since when (None: nobody's), how many of
    the running turn's reminders were sent, and what saved the running seat when its bank
    ran out (one of ``SAVED_BY``; None: nothing yet this turn)."""

    banks: tuple[float, ...]
    running: int | None = None
    since: datetime | None = None
    reminded: int = 0
    saved: str | None = None

    @classmethod
    def start(cls, pace: Pace | None, seats: int) -> Clock:
        """Every seat with the pace's initial bank; nobody's running yet."""
        initial = 0.0 if pace is None else float(pace.initial)
        return cls(tuple(initial for _ in range(seats)))

    def dumps(self) -> str:
        """The clock as stored."""
        return json.dumps(
            {
                "banks": list(self.banks),
                "running": self.running,
                "since": None if self.since is None else self.since.isoformat(),
                "reminded": self.reminded,
                "saved": self.saved,
            },
            separators=(",", ":"),
        )

    @classmethod
    def loads(cls, text: str) -> Clock:
        """A stored clock."""
        data = json.loads(text)
        since = None if data["since"] is None else datetime.fromisoformat(data["since"])
        banks = tuple(float(b) for b in data["banks"])
        # Clocks stored before ``saved`` existed have none.
        return cls(banks, data["running"], since, data["reminded"], data.get("saved"))

    def remaining(self, seat: int, at: datetime) -> float:
        """``seat``'s bank at ``at`` (a running bank counts down)."""
        bank = self.banks[seat]
        if seat == self.running and self.since is not None:
            bank -= (at - self.since).total_seconds()
        return max(0.0, bank)

    def deadline(self) -> datetime | None:
        """When the running bank runs out (None when no bank runs)."""
        if self.running is None or self.since is None:
            return None
        return self.since + timedelta(seconds=self.banks[self.running])

    def used(self, at: datetime) -> float:
        """How long the running turn has taken by ``at`` (0 when nobody's runs)."""
        if self.running is None or self.since is None:
            return 0.0
        return max(0.0, (at - self.since).total_seconds())

    def reminders(self, marks: Sequence[str] = reminder_marks.DEFAULT) -> list[datetime]:
        """When the running seat is to be reminded (by default at 80% used and with an hour
        left; ``marks`` are its player's own, see ``notices.reminders``), in order, those
        already sent left out."""
        if self.deadline() is None or self.running is None or self.since is None:
            return []
        return reminder_marks.moments(marks, self.since, self.banks[self.running])[self.reminded :]

    def extended_to(self, deadline: datetime, by: str) -> Clock:
        """The running bank made to last until ``deadline``, saved ``by`` vacation or an
        announced absence (one of ``SAVED_BY``)."""
        assert self.running is not None and self.since is not None and by in SAVED_BY
        banks = list(self.banks)
        banks[self.running] = (deadline - self.since).total_seconds()
        return replace(self, banks=tuple(banks), saved=by)

    def pass_to(self, pace: Pace | None, seat: int | None, at: datetime) -> Clock:
        """The clock once the turn is ``seat``'s at ``at`` (None: no person to wait on).

        A seat's turn is all its rolls and choices: while the same seat stays to act its
        bank keeps running; when the turn passes on, the bank it used is settled and the
        increment added, up to the cap. Without a pace only whose turn runs since when is
        kept (for the time players take per turn).
        """
        if seat == self.running:
            return self
        banks = list(self.banks)
        if pace is not None and self.running is not None and self.since is not None:
            used = (at - self.since).total_seconds()
            banks[self.running] = pace.after_turn(banks[self.running], used)
        return Clock(tuple(banks), seat, at if seat is not None else None, 0)
