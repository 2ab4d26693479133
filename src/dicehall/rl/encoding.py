"""How a game's actions and views become numbers: a fixed action list and a flat vector.

Every game with an encoder (its entry's ``encoder``, ``"module:function"`` of ``(seats,
options) -> Encoding``) has an :class:`Encoding` per seat count and options: the list of
every action that can ever be legal (its index is the action's number), and a function from a
seat's view to a ``float32`` vector of fixed length. The legal moves of a position become a mask
over the list. Encoders read only the view, never the state, so an observation can hold
nothing its seat may not see.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from dicehall import games
from dicehall.engine.errors import InvalidInput
from dicehall.games.entry import load

Vector = npt.NDArray[np.float32]
Mask = npt.NDArray[np.int8]


@dataclass(frozen=True)
class Encoding:
    """A game's action numbering and observation vector, for one seat count and options."""

    game: str
    actions: tuple[Hashable, ...]
    size: int
    observe: Callable[[Any, int], Vector]
    index: dict[Hashable, int] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        index = {action: i for i, action in enumerate(self.actions)}
        if len(index) != len(self.actions):
            raise ValueError(f"{self.game}: two actions share a number")
        object.__setattr__(self, "index", index)

    def number(self, action: Hashable) -> int:
        """The number of an action (KeyError names it when the encoding has none)."""
        try:
            return self.index[action]
        except KeyError:
            raise KeyError(f"{self.game}: {action!r} has no number in this encoding") from None

    def mask(self, legal: Sequence[Hashable]) -> Mask:
        """1 for each legal action's number, 0 elsewhere."""
        out = np.zeros(len(self.actions), dtype=np.int8)
        for action in legal:
            out[self.number(action)] = 1
        return out

    def vector(self, view: Any, seat: int) -> Vector:
        """The observation of ``seat`` from its view, checked for its length."""
        out = self.observe(view, seat)
        if out.shape != (self.size,):
            raise AssertionError(f"{self.game}: observation of shape {out.shape}, not {self.size}")
        return out


def encoded() -> tuple[str, ...]:
    """The installed games with an encoder, in the site's order."""
    return tuple(name for name in games.available() if games.get(name).encoder is not None)


def encoding_for(game: str, seats: int, options: Any) -> Encoding:
    """The encoding of ``game`` for ``seats`` seats and these (validated) options."""
    entry = games.find(game)
    if entry is None or entry.encoder is None:
        raise InvalidInput(
            f"{game!r} has no reinforcement-learning encoding yet (encoded: {', '.join(encoded())})"
        )
    made: Encoding = load(entry.encoder)(seats, options)
    return made


def rotated(values: Sequence[Any], seat: int) -> list[Any]:
    """``values`` (one per seat) starting from ``seat``: the observer always comes first."""
    return [*values[seat:], *values[:seat]]


def one_hot(size: int, at: int | None) -> list[float]:
    """``size`` zeros with a one at ``at`` (all zeros for None)."""
    out = [0.0] * size
    if at is not None:
        out[at] = 1.0
    return out
