"""The keep lattice for the exact solver: how keeps grow by one die and shrink by one die.

Keeps are indexed as in :data:`dice_tables.KEEPS` (by size, then lexicographically), so the
252 keeps of five dice come last, in :data:`scoring.HANDS` order: hand ``h`` is keep
``FIRST_HAND + h``. Two facts make a turn cheap to evaluate exactly:

- holding a keep of n < 5 dice and rolling the rest is worth the average, over the next
  die's six faces, of holding the keep plus that die (roll the dice one at a time);
- the best keep inside a hand is the best of the hand itself and the best keep inside each
  keep one die smaller.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from dicehall.games.boatzee.dice_tables import KEEP_INDEX, KEEPS, IntArray
from dicehall.games.boatzee.scoring import HANDS

#: Keep index of the first five-dice keep; hand ``h`` is keep ``FIRST_HAND + h``.
FIRST_HAND = len(KEEPS) - len(HANDS)
FACES = 6
#: The index just past the last keep: a slot for a value that never wins a maximum.
SENTINEL = len(KEEPS)


@dataclass(frozen=True)
class KeepLattice:
    """Index arrays over the 462 keeps.

    ``grow[k, f - 1]`` is keep k plus a die showing f (keeps of fewer than five dice only).
    ``shrink[k, :shrink_count[k]]`` are keep k less one die of each face it holds; the rest
    of the row (up to ``size[k]`` entries) is ``SENTINEL``, a slot past the last keep.
    ``size[k]`` is the number of dice in keep k; ``level_start[n]`` the first keep of n dice.
    """

    grow: IntArray
    shrink: IntArray
    shrink_count: IntArray
    size: IntArray
    level_start: IntArray


@cache
def lattice() -> KeepLattice:
    """The keep lattice (built once per process, in about a millisecond)."""
    grow = np.zeros((FIRST_HAND, FACES), dtype=np.int64)
    shrink = np.full((len(KEEPS), 5), SENTINEL, dtype=np.int64)
    count = np.zeros(len(KEEPS), dtype=np.int64)
    size = np.array([len(keep) for keep in KEEPS], dtype=np.int64)
    for k, keep in enumerate(KEEPS):
        if len(keep) < 5:
            for face in range(1, FACES + 1):
                grow[k, face - 1] = KEEP_INDEX[tuple(sorted((*keep, face)))]
        for face in sorted(set(keep)):
            smaller = list(keep)
            smaller.remove(face)
            shrink[k, count[k]] = KEEP_INDEX[tuple(smaller)]
            count[k] += 1
    starts = np.searchsorted(size, np.arange(7)).astype(np.int64)
    for array in (grow, shrink, count, size, starts):
        array.setflags(write=False)
    return KeepLattice(grow, shrink, count, size, starts)
