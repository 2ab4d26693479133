"""How strong each bot is: the bot ladder's win shares and ratings, shipped with the package.

``bench/bot_ladder.py --write`` plays every bot of every game against the others and rates
them with the site's rating model; the table it writes (``bot_ladder.json`` next to this
module) is read here, so ``dicehall games``, the API's game kinds and the site's "Bots" page
show a bot's strength and the figures behind it. A bot the table does not name (a new bot,
a plug-in game's) simply has no figure.

"Strongest first" means by the share of the wins (:func:`ranked`): every bot meets the same
opponents in the same seats, so the share compares them directly. The rating, fitted to the
whole finishing order (a second place of three counts), can disagree with it between bots
whose shares are close; it is shown beside the share, never used to order them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

#: The table ``bench/bot_ladder.py --write`` stores.
LADDER_PATH = Path(__file__).with_name("bot_ladder.json")
#: The table's format; a table of another version is not read.
LADDER_VERSION = 1


def ranked(rows: dict[str, dict[str, Any]]) -> list[str]:
    """The bots of one kind's table rows, strongest first: by share of the wins, then (on
    equal shares) by rating mean ``mu``, then by name."""
    return sorted(
        rows, key=lambda bot: (-float(rows[bot]["win_share"]), -float(rows[bot]["mu"]), bot)
    )


@dataclass(frozen=True, slots=True)
class BotStrength:
    """One bot's place on one rating kind's ladder."""

    kind: str
    bot: str
    #: The rating as the site shows players' (1500 at the start), and its 95% interval.
    rating: int
    rating_low: int
    rating_high: int
    games: int
    #: Share of the wins it took (winners split a win) with its 95% interval.
    win_share: float
    win_share_low: float
    win_share_high: float
    #: A bot's share if every bot were equally strong (1 / seats at the ladder's tables).
    even_share: float
    #: Its place on the kind's ladder, 1 for the strongest (the largest share of the wins).
    place: int

    def _share(self) -> str:
        # One decimal: neighbours on a ladder can be that close.
        low, high = 100 * self.win_share_low, 100 * self.win_share_high
        return f"{100 * self.win_share:.1f}% ({low:.1f} .. {high:.1f}%)"

    def line(self) -> str:
        """The strength in one line, the figures behind it included."""
        return (
            f"wins {self._share()} of {self.games} ladder games (even share "
            f"{self.even_share:.0%}), rated {self.rating} ({self.rating_low} .. "
            f"{self.rating_high})"
        )

    def short(self) -> str:
        """The strength in a few words, for a terminal line (80 columns with the name):
        ``wins 44.7% (43.5 .. 45.9%) of 6000  rated 1781 (1723 .. 1840)``."""
        return (
            f"wins {self._share()} of {self.games}  "
            f"rated {self.rating} ({self.rating_low} .. {self.rating_high})"
        )

    def to_json(self) -> dict[str, Any]:
        """The fields as JSON."""
        return {
            "kind": self.kind,
            "place": self.place,
            "rating": self.rating,
            "rating_low": self.rating_low,
            "rating_high": self.rating_high,
            "games": self.games,
            "win_share": self.win_share,
            "win_share_low": self.win_share_low,
            "win_share_high": self.win_share_high,
            "even_share": self.even_share,
        }


@dataclass(frozen=True, slots=True)
class KindLadder:
    """One rating kind's ladder: its game, options, when and how it was measured."""

    kind: str
    game: str
    options: dict[str, Any]
    seats: int
    measured: str
    command: str
    games: int
    bots: tuple[BotStrength, ...]


@cache
def ladders() -> dict[str, KindLadder]:
    """Every kind's ladder from the shipped table (empty when there is none)."""
    return read_ladders(LADDER_PATH)


def read_ladders(path: Path) -> dict[str, KindLadder]:
    """The ladders stored at ``path``; a missing file is no ladders, a broken one an error."""
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("version") != LADDER_VERSION:
            raise ValueError(f"version {data.get('version')!r}, expected {LADDER_VERSION}")
        return {kind: _kind(kind, entry) for kind, entry in data["kinds"].items()}
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        raise ValueError(f"the bot ladder table {path} is unreadable: {error}") from error


def _kind(kind: str, entry: dict[str, Any]) -> KindLadder:
    even = float(entry["even_share"])
    bots = tuple(
        BotStrength(
            kind=kind,
            bot=bot,
            rating=int(row["rating"]),
            rating_low=int(row["rating_low"]),
            rating_high=int(row["rating_high"]),
            games=int(row["games"]),
            win_share=float(row["win_share"]),
            win_share_low=float(row["win_share_low"]),
            win_share_high=float(row["win_share_high"]),
            even_share=even,
            place=place,
        )
        for place, bot in enumerate(ranked(entry["bots"]), 1)
        for row in (entry["bots"][bot],)
    )
    return KindLadder(
        kind=kind,
        game=str(entry["game"]),
        options=dict(entry["options"]),
        seats=int(entry["seats"]),
        measured=str(entry["measured"]),
        command=str(entry["command"]),
        games=int(entry["games"]),
        bots=bots,
    )


def ladders_of(game: str) -> list[KindLadder]:
    """The ladders of one game (Boatzee has one per column count), in the table's order."""
    return [ladder for ladder in ladders().values() if ladder.game == game]


def strength(game: str, bot: str) -> BotStrength | None:
    """A bot's strength on its game's first ladder (Boatzee: one column), if measured."""
    for ladder in ladders_of(game):
        for found in ladder.bots:
            if found.bot == bot:
                return found
    return None
