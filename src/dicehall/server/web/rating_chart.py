"""A profile's rating cards: each shown rating ("1540?" while provisional) with a small chart
of its recent games, drawn here as inline SVG (no script, no third-party code).

The chart is a line over the last :data:`CHART_GAMES` rated games, evenly spaced by game
(not by date), between the lowest and the highest rating reached, with those two written at
the side. It is an image to assistive technology (``role="img"``) whose label says what it
shows in words; the template adds the same games as a table.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection

from dicehall.server.domain.ratings import history, kinds
from dicehall.server.domain.ratings.views import profile_ratings

#: How many of the latest rated games a chart draws.
CHART_GAMES = 40
#: The chart's drawing box (SVG user units; it scales to the card's width).
WIDTH, HEIGHT, MARGIN = 240.0, 64.0, 6.0


@dataclass(frozen=True)
class ChartGame:
    """One game on the chart, and in its table."""

    game: int
    day: str
    place: int
    players: int
    change: int
    after: int


@dataclass(frozen=True)
class RatingCard:
    """One rating on a profile: the figure, its recent games, and their chart."""

    kind: str
    title: str
    rating: int
    provisional: bool
    games: int
    #: Oldest first.
    recent: tuple[ChartGame, ...]
    #: The chart's polyline ("x,y x,y ..."); empty when there is nothing to draw.
    points: str
    last_point: tuple[float, float] | None
    low: int
    high: int
    label: str


def _day(at: str) -> str:
    moment = datetime.fromisoformat(at)
    return f"{moment.day} {moment.strftime('%b %Y')}"


def _points(values: list[int], low: int, high: int) -> list[tuple[float, float]]:
    span = max(1, high - low)
    step = (WIDTH - 2 * MARGIN) / max(1, len(values) - 1)
    return [
        (
            round(MARGIN + i * step, 1),
            round(HEIGHT - MARGIN - (value - low) * (HEIGHT - 2 * MARGIN) / span, 1),
        )
        for i, value in enumerate(values)
    ]


def card(kind: str, shown: dict[str, Any], changes: list[dict[str, Any]]) -> RatingCard:
    """The card of one rating (``shown``: as profiles show it) from its latest changes
    (newest first, as the history answers them)."""
    recent = tuple(
        ChartGame(
            c["game"],
            _day(c["at"]),
            c["place"],
            c["players"],
            c["change"],
            c["rating_after"],
        )
        for c in reversed(changes)
    )
    values = [changes[-1]["rating_before"], *(g.after for g in recent)] if changes else []
    low, high = (min(values), max(values)) if values else (shown["rating"], shown["rating"])
    drawn = _points(values, low, high) if len(values) > 1 else []
    title = kinds.title(kind)
    mark = " (provisional)" if shown["provisional"] else ""
    if recent:
        label = (
            f"{title} rating over the last {len(recent)} rated "
            f"game{'s' if len(recent) != 1 else ''}: from {values[0]} to {values[-1]}{mark}; "
            f"highest {high}, lowest {low}."
        )
    else:
        label = f"{title} rating: {shown['rating']}{mark}; no rated game to draw."
    return RatingCard(
        kind,
        title,
        shown["rating"],
        shown["provisional"],
        shown["games"],
        recent,
        " ".join(f"{x},{y}" for x, y in drawn),
        drawn[-1] if drawn else None,
        low,
        high,
        label,
    )


def rating_cards(conn: Connection, user_pk: int) -> list[RatingCard]:
    """The cards of the ratings ``user_pk``'s profile shows, in the site's order."""
    return [
        card(kind, shown, history.history(conn, user_pk, kind, limit=CHART_GAMES)["changes"])
        for kind, shown in profile_ratings(conn, user_pk).items()
    ]
