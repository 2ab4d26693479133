"""Paces and the seat clock (issue 16, first part): presets, custom paces refused clearly,
and banks that run only on their seat's whole turn, gain the increment, and stop at the cap."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dicehall.server.domain.games.pace import DAY, HOUR, PRESETS, BadPace, Clock, Pace, parse_pace

T0 = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)


def test_presets_and_days_per_move() -> None:
    assert parse_pace("live") == Pace(180, 20, 180, "live")
    assert parse_pace("brisk") == Pace(DAY, 4 * HOUR, 2 * DAY, "brisk")
    assert parse_pace("daily") == Pace(3 * DAY, 12 * HOUR, 5 * DAY, "daily")
    assert parse_pace("relaxed") == Pace(5 * DAY, DAY, 7 * DAY, "relaxed")
    assert parse_pace("days-3") == Pace(3 * DAY, 3 * DAY, 3 * DAY, "days-3")
    assert parse_pace("none") is None
    assert parse_pace({"initial": 2, "increment": 1, "cap": 3}) == Pace(2, 1, 3)
    assert set(PRESETS) == {"live", "brisk", "daily", "relaxed"}


@pytest.mark.parametrize(
    ("raw", "says"),
    [
        ("days-15", "unknown pace"),
        ("days-0", "unknown pace"),
        ("fast", "unknown pace"),
        ({"initial": 5, "increment": 1}, "exactly initial, increment and cap"),
        ({"initial": 5.0, "increment": 1, "cap": 9}, "whole number"),
        ({"initial": True, "increment": 1, "cap": 9}, "whole number"),
        ({"initial": 0, "increment": 1, "cap": 9}, "1 to"),
        ({"initial": 5, "increment": 10, "cap": 9}, "increment must be 0 to the cap"),
        ({"initial": 10, "increment": 1, "cap": 9}, "may not exceed the cap"),
        (7, "preset name"),
    ],
)
def test_bad_paces_are_refused_with_a_reason(raw: object, says: str) -> None:
    with pytest.raises(BadPace, match=says):
        parse_pace(raw)


def test_a_bank_runs_on_its_seats_whole_turn_and_gains_the_increment() -> None:
    pace = Pace(100, 10, 105)
    clock = Clock.start(pace, 2).pass_to(pace, 0, T0)
    assert clock.deadline() == T0 + timedelta(seconds=100)
    # Seat 0 acts twice within its turn: its bank keeps running.
    later = clock.pass_to(pace, 0, T0 + timedelta(seconds=30))
    assert later is clock and later.remaining(0, T0 + timedelta(seconds=30)) == 70
    # The turn passes on after 40 s: 60 left, plus 10.
    clock = clock.pass_to(pace, 1, T0 + timedelta(seconds=40))
    assert clock.banks == (70.0, 100.0) and clock.running == 1
    assert clock.remaining(0, T0 + timedelta(days=1)) == 70  # not running
    # Seat 1 takes 1 s: 99 + 10 is capped at 105.
    clock = clock.pass_to(pace, 0, T0 + timedelta(seconds=41))
    assert clock.banks == (70.0, 105.0)
    # A bot or the dice: nobody's bank runs.
    clock = clock.pass_to(pace, None, T0 + timedelta(seconds=50))
    # Seat 0 used 9 s of its turn: 70 - 9 + 10.
    assert clock.running is None and clock.deadline() is None and clock.banks[0] == 71.0


@settings(max_examples=60, deadline=None)
@given(
    turns=st.lists(
        st.tuples(st.one_of(st.none(), st.integers(0, 3)), st.integers(0, 500)), max_size=30
    ),
    initial=st.integers(1, 300),
    increment=st.integers(0, 60),
    extra=st.integers(0, 300),
)
def test_banks_stay_between_zero_and_the_cap(
    turns: list[tuple[int | None, int]], initial: int, increment: int, extra: int
) -> None:
    cap = max(initial, increment) + extra
    pace = Pace(initial, increment, cap)
    clock = Clock.start(pace, 4)
    at = T0
    for seat, wait in turns:
        at += timedelta(seconds=wait)
        before = clock
        clock = clock.pass_to(pace, seat, at)
        assert all(0.0 <= bank <= cap for bank in clock.banks)
        # Stored and read back, the clock is the same; its reminders fall inside the turn.
        assert Clock.loads(clock.dumps()) == clock
        deadline = clock.deadline()
        for mark in clock.reminders():
            assert clock.since is not None and deadline is not None
            assert clock.since <= mark <= deadline
        for other in range(4):
            if other != before.running:
                assert clock.banks[other] == before.banks[other]


def test_a_clock_keeps_what_saved_its_seat_until_the_turn_passes() -> None:
    pace = Pace(DAY, DAY, DAY)
    clock = Clock.start(pace, 2).pass_to(pace, 0, T0)
    saved = clock.extended_to(T0 + timedelta(days=1, hours=1), "vacation")
    assert saved.saved == "vacation" and saved.deadline() == T0 + timedelta(days=1, hours=1)
    assert Clock.loads(saved.dumps()) == saved
    # The same seat acting again keeps it; the turn passing on clears it.
    assert saved.pass_to(pace, 0, T0 + timedelta(days=1)).saved == "vacation"
    assert saved.pass_to(pace, 1, T0 + timedelta(days=1)).saved is None
    # A clock stored before ``saved`` existed reads as saved by nothing.
    older = (
        '{"banks":[86400.0,86400.0],"running":0,"since":"2026-11-23T12:00:00+00:00","reminded":0}'
    )
    assert Clock.loads(older) == clock
