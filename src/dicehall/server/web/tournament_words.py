"""Tournaments in words, for the pages: formats, paces, states, deadlines; the marks of
tournament games on the status page and the results on profiles."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Connection

from dicehall import games
from dicehall.engine.errors import InvalidInput
from dicehall.server.core.clock import aware, now
from dicehall.server.domain.games.ending import time_left
from dicehall.server.domain.tournaments import paces, views
from dicehall.server.web.moments import Exact

FORMATS = {
    "cup": "Cup",
    "swiss": "Swiss",
    "knockout": "Knockout",
}
#: What each format does, for the create form and the tournament page.
FORMAT_HINTS = {
    "cup": "Everyone meets everyone; starts as soon as it is full.",
    "swiss": "A fixed number of rounds; players with the same score meet, leaders on table 1.",
    "knockout": "The top of each table goes on to the next round, until one is left.",
}
STATES = {
    "open": "open to join",
    "running": "running",
    "finished": "finished",
    "cancelled": "cancelled",
}
PLAYER_STATES = {
    "active": "playing",
    "withdrawn": "withdrew",
    "timed_out": "timed out",
    "out": "knocked out",
}


def title_of(game: str) -> str:
    """The game's title (its name when it is no longer installed)."""
    try:
        return games.get(game).title
    except InvalidInput:
        return game


def points(value: float | None) -> str:
    """Points as the standings show them: "3", "2.5", "1.33"."""
    if value is None:
        return ""
    return f"{value:.2f}".rstrip("0").rstrip(".")


def duration(seconds: int) -> str:
    """A time bank in words: "7 days", "1 day", "20 min", "2 h 30 min"."""
    days, rest = divmod(max(0, int(seconds)), 86400)
    if days and not rest:
        return f"{days} day{'s' if days != 1 else ''}"
    return time_left(seconds)


def pace_words(pace: object, bank_s: int | None = None) -> str:
    """A tournament's pace as given (a preset's name or ``{"bank": seconds}``): its name and
    the bank each player has for a whole game, "daily: 7 days a game"."""
    name = pace if isinstance(pace, str) else "custom"
    if bank_s is None and isinstance(pace, str):
        bank_s = paces.PRESETS.get(pace)
    if bank_s is None and isinstance(pace, Mapping) and isinstance(pace.get("bank"), int):
        bank_s = int(pace["bank"])
    return f"{name}: {duration(bank_s)} a game" if bank_s else name


def format_words(summary: Mapping[str, Any]) -> str:
    """ "Swiss, 5 rounds, tables of 3"."""
    words = FORMATS.get(str(summary["format"]), str(summary["format"]))
    rounds = summary.get("rounds_planned")
    if rounds:
        words += f", {rounds} round{'s' if rounds != 1 else ''}"
    seats = summary.get("table_seats")
    if seats:
        words += f", tables of {seats}"
    return words


def players_words(summary: Mapping[str, Any]) -> str:
    """ "4 of 6" for a tournament that starts when full, else "5"."""
    size = summary.get("size")
    joined = int(summary.get("players") or 0)
    return f"{joined} of {size}" if size else str(joined)


def when(iso: str | None, at: datetime | None = None) -> dict[str, str | Exact] | None:
    """A moment for a page: its ISO text, exact time (in the viewer's zone, worded as the
    page is drawn) and how far off it is ("in 2 d 4 h", "3 h 5 min ago"); None for None."""
    if not iso:
        return None
    moment = aware(datetime.fromisoformat(iso))
    seconds = (moment - (at or now())).total_seconds()
    away = f"in {time_left(seconds)}" if seconds >= 0 else f"{time_left(-seconds)} ago"
    return {"iso": moment.isoformat(), "exact": Exact(moment), "away": away}


def start_words(summary: Mapping[str, Any]) -> str | Exact:
    """When the tournament starts: "when full" or the exact time (in the viewer's zone)."""
    starts = summary.get("starts_at")
    if not starts:
        return "when full"
    suffix = " (or when full)" if summary.get("size") else ""
    return Exact(aware(datetime.fromisoformat(str(starts))), suffix)


def summary_row(summary: Mapping[str, Any]) -> dict[str, Any]:
    """One tournament of the area's lists, with its words."""
    return {
        **summary,
        "title": summary.get("title") or title_of(str(summary["game"])),
        "format_words": format_words(summary),
        "players_words": players_words(summary),
        "start_words": start_words(summary),
        "pace_words": pace_words(summary.get("pace")),
        "state_words": STATES.get(str(summary["status"]), str(summary["status"])),
    }


def game_marks(conn: Connection, game_ids: Sequence[int]) -> dict[int, dict[str, Any]]:
    """The status page's marks: game id -> its tournament's id and name, the round and the
    round's deadline (a moment, or None)."""
    if not game_ids:
        return {}
    found = views.game_markers(conn, list(game_ids))
    return {
        game_id: {**marker, "deadline": when(marker.get("deadline"))}
        for game_id, marker in found.items()
    }


def results_of(conn: Connection, user_pk: int) -> list[dict[str, Any]]:
    """A profile's tournaments: name, game, format, state, place of players and points."""
    out = []
    for row in views.of_user(conn, user_pk):
        place = row.get("place")
        out.append(
            {
                **row,
                "title": title_of(str(row["game"])),
                "format_words": FORMATS.get(str(row["format"]), str(row["format"])),
                "state_words": STATES.get(str(row["status"]), str(row["status"])),
                "place_words": f"{place} of {row['players']}" if place else "",
                "points_words": points(row.get("points")),
            }
        )
    return out
