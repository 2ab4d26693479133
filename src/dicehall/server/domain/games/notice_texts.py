"""What the bell says about a game: who moved, whose turn it is and how much time is left,
the game's title and the opponents ("bob moved in Boatzee: your turn, 2 d 4 h left (game 12
with bob)"), clock reminders and timeouts, invitations with the game's options and pace.

Every text is made from what the caller already holds (the record, its seats, the clock):
nothing here replays events, so the move path stays cheap. Texts stay under
:data:`LONGEST` characters (the bell's column): the opponents are the first thing cut.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from datetime import datetime

from dicehall.engine import codec
from dicehall.engine.options import option_text
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.games.pace import DAY, HOUR, Pace
from dicehall.server.domain.games.records import (
    GameRecord,
    SeatInfo,
    entry_of,
    seats_json,
    variant_title,
)
from dicehall.server.domain.notices.zones import local

#: The most characters a notice's text holds (the bell's column).
LONGEST = 200
#: The most opponents named before "and N more".
MOST_NAMED = 3


def game_title(kind: str, options: object = None) -> str:
    """The game's name as people read it, as its options make it ("Triple Boatzee"; see
    :func:`~dicehall.server.domain.games.records.variant_title`); its kind for a game not
    installed."""
    return variant_title(kind, options)


def seat_names(seats: Sequence[SeatInfo]) -> list[str]:
    """Each seat's name as the game JSON gives it (user id, "equity bot 2", "open seat")."""
    return [str(seat["name"]) for seat in seats_json(seats)]


def listing(names: Sequence[str]) -> str:
    """ "bob", "bob and carol", "bob, carol and dave", "bob, carol, dave and 2 more"."""
    if len(names) > MOST_NAMED + 1:
        return f"{', '.join(names[:MOST_NAMED])} and {len(names) - MOST_NAMED} more"
    if len(names) <= 2:
        return " and ".join(names)
    return f"{', '.join(names[:-1])} and {names[-1]}"


def opponents(seats: Sequence[SeatInfo], user_pk: int) -> list[str]:
    """The names of every seat but ``user_pk``'s."""
    return [
        name for seat, name in zip(seats, seat_names(seats), strict=True) if seat.user_pk != user_pk
    ]


def where(game_id: int, seats: Sequence[SeatInfo], user_pk: int) -> str:
    """ "game 12 with bob and carol" (or "game 12" alone at a table of one)."""
    others = opponents(seats, user_pk)
    return f"game {game_id} with {listing(others)}" if others else f"game {game_id}"


def fit(head: str, game_id: int, seats: Sequence[SeatInfo], user_pk: int) -> str:
    """``head (game N with ...)`` cut to :data:`LONGEST` characters: the opponents go
    first, then the head is shortened."""
    text = f"{head} ({where(game_id, seats, user_pk)})"
    if len(text) <= LONGEST:
        return text
    text = f"{head} (game {game_id})"
    if len(text) <= LONGEST:
        return text
    room = LONGEST - len(f"… (game {game_id})")
    return f"{head[:room]}… (game {game_id})"


def your_turn(
    record: GameRecord,
    seats: Sequence[SeatInfo],
    seat: int,
    mover: int | None,
    left: float | None,
) -> str:
    """The turn came to ``seat``: "bob moved in Boatzee: your turn, 2 d 4 h left (game 12
    with bob)". ``mover``: the seat that moved last (None: not known, or the game began);
    ``left``: the seat's time bank in seconds (None: no clock)."""
    user_pk = seats[seat].user_pk
    assert user_pk is not None
    title = game_title(record.kind, record.options)
    clock = "" if left is None else f", {time_left(left)} left"
    if mover is None or mover == seat:
        head = f"Your turn in {title}{clock}"
    else:
        head = f"{seat_names(seats)[mover]} moved in {title}: your turn{clock}"
    return fit(head, record.id, seats, user_pk)


def time_low(record: GameRecord, seats: Sequence[SeatInfo], seat: int, left: str) -> str:
    """A clock reminder: "Time runs low in Boatzee: your turn, 1 h 0 min left (game 12 with
    bob)"."""
    user_pk = seats[seat].user_pk
    assert user_pk is not None
    head = f"Time runs low in {game_title(record.kind, record.options)}: your turn, {left} left"
    return fit(head, record.id, seats, user_pk)


def timed_out(record: GameRecord, seats: Sequence[SeatInfo], seat: int) -> str:
    """The seat's own clock ran out: what becomes of the game."""
    user_pk = seats[seat].user_pk
    assert user_pk is not None
    title = game_title(record.kind, record.options)
    if record.seats != 2:
        then = "the autopilot plays your seat (you may take it back)"
    elif any(s.user_pk is not None and not s.moved for s in seats):
        then = "the game is aborted"
    else:
        then = "you lose"
    return fit(f"You ran out of time in {title}: {then}", record.id, seats, user_pk)


def time_left(seconds: float) -> str:
    """A time bank as people say it: "2 d 4 h", "3 h 5 min", "45 s"."""
    whole = max(0, int(seconds))
    days, rest = divmod(whole, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    if days:
        return f"{days} d {hours} h"
    if hours:
        return f"{hours} h {minutes} min"
    if minutes:
        return f"{minutes} min {secs} s" if minutes < 10 else f"{minutes} min"
    return f"{secs} s"


# -- invitations -------------------------------------------------------------------------------


def duration(seconds: int) -> str:
    """A span in whole units where it has them: "2 days", "1 day", "12 h", "3 min"."""
    if seconds and seconds % DAY == 0:
        days = seconds // DAY
        return f"{days} day{'s' if days != 1 else ''}"
    if seconds and seconds % HOUR == 0:
        return f"{seconds // HOUR} h"
    return time_left(seconds)


def pace_words(pace: Pace | None) -> str:
    """A pace as people say it: "2 days per move", "3 days, +12 h a move, at most 5 days",
    "no clock"."""
    if pace is None:
        return "no clock"
    if pace.initial == pace.increment == pace.cap:
        return f"{duration(pace.initial)} per move"
    return (
        f"{duration(pace.initial)}, +{duration(pace.increment)} a move, at most "
        f"{duration(pace.cap)}"
    )


def options_words(kind: str, options: object) -> str:
    """The options that differ from the game's defaults, as people read them ("Triple
    Boatzee (3 columns)", "Target score 5000, Ante (cents) 50"), or "standard rules"."""
    try:
        game = entry_of(kind).game
        defaults = codec.encode(game.options({}))
    except Refused:
        return "standard rules"
    chosen = codec.encode(options)
    fields = {f.name: f for f in dataclasses.fields(game.options_type)}
    said = []
    for name, value in chosen.items():
        if name not in fields or defaults.get(name) == value:
            continue
        text = option_text(fields[name])
        named = dict(text.choices).get(str(value))
        if named is not None:
            said.append(named)  # a choice's label says it all: "Yahtzee scoring"
        elif isinstance(value, bool):
            said.append(f"{text.label}: {'on' if value else 'off'}")
        else:
            said.append(f"{text.label} {'none' if value is None else value}")
    return ", ".join(said) or "standard rules"


def invitation(
    creator: str, record: GameRecord, options: object, seats: Sequence[SeatInfo], user_pk: int
) -> str:
    """An invitation to play: "alice invites you to Boatzee: Target score 300; 2 days per
    move (game 12 with alice)"."""
    pace = pace_words(Pace.loads(record.pace))
    head = f"{creator} invites you to {game_title(record.kind)}: "
    head += f"{options_words(record.kind, options)}; {pace}"
    return fit(head, record.id, seats, user_pk)


def invite_declined(
    decliner: str, record: GameRecord, seats: Sequence[SeatInfo], user_pk: int, mine: bool
) -> str:
    """Someone declined: "bob declined your invitation to Boatzee: the game is called off
    (game 12 with bob)"."""
    whose = "your" if mine else "the"
    head = f"{decliner} declined {whose} invitation to {game_title(record.kind, record.options)}"
    return fit(f"{head}: the game is called off", record.id, seats, user_pk)


def exact_time(moment: datetime, zone_name: str | None) -> str:
    """A moment as people read it in their zone: "Mon 7 Dec 2026, 23:05 CET"."""
    there = local(moment, zone_name)
    return f"{there:%a} {there.day} {there:%b %Y, %H:%M} {there.tzname() or 'UTC'}"
