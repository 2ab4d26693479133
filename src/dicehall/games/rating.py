"""Rating kinds as a game declares them: which rating its games count for, and the rating
model's constants for each kind.

A game's entry lists its kinds (:attr:`GameEntry.rating_kinds`); the site derives every
table of kinds from the installed games' entries. A game of the game counts for the first
kind whose :attr:`RatingKindSpec.options` its options match (Boatzee's columns decide its
kind), unless the entry names a function that chooses (:attr:`GameEntry.rating_kind_of`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

#: The performance noise of a kind nobody has calibrated: openskill's default (25/6), to two
#: figures; its drift is a fiftieth of it, openskill's own ratio.
DEFAULT_BETA = 4.2
DEFAULT_TAU = 0.084


@dataclass(frozen=True)
class RatingKindSpec:
    """One rating kind: its name (in URLs, settings and the database), its title, the
    options that select it, whether it has a ladder, and the rating model's constants."""

    name: str
    title: str
    #: The options a game must have to count for this kind (and that a ladder game of the
    #: kind plays with); empty: every game of the game.
    options: Mapping[str, Any] = field(default_factory=dict)
    #: Which games count, in words (the ratings page); empty: the title.
    games: str = ""
    #: Whether the kind has a ladder (its games played two-handed).
    ladder: bool = False
    #: The rating model's performance noise and per-game drift (see
    #: ``dicehall.server.domain.ratings.model``; a change of a calibrated kind's constants
    #: is a new ``CONSTANTS_VERSION`` there).
    beta: float = DEFAULT_BETA
    tau: float = DEFAULT_TAU

    def selects(self, options: Any) -> bool:
        """Whether a game with ``options`` (the game's options object) counts for it."""
        return all(getattr(options, key, None) == value for key, value in self.options.items())

    @property
    def games_words(self) -> str:
        """Which games count, in words."""
        return self.games or self.title
