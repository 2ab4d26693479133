"""Ten Thousand scoring: what a set-aside is worth, and every legal set-aside of a roll.

Everything works on sorted tuples of faces. There are only 923 non-empty multisets of up to
six dice, so values and set-aside lists are cached per sorted roll.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from itertools import product

#: The value of three of a kind, by face: three 1s are 1000, otherwise 100 x face.
TRIPLE = (0, 1000, 200, 300, 400, 500, 600)
#: Four, five and six of a kind multiply the three-of-a-kind value by 2, 3 and 4.
GROUP_FACTOR = {3: 1, 4: 2, 5: 3, 6: 4}
#: Single dice that score on their own: a 1 is 100, a 5 is 50.
SINGLE = (0, 100, 0, 0, 0, 50, 0)
STRAIGHT = 1500
THREE_PAIRS = 500


def counts_of(dice: Iterable[int]) -> tuple[int, ...]:
    """How many dice show each face, indexed 0..6 (index 0 unused)."""
    counts = [0] * 7
    for face in dice:
        counts[face] += 1
    return tuple(counts)


def _face_value(face: int, count: int) -> int | None:
    """The best value of ``count`` dice of one face that all score, or None."""
    if count == 0:
        return 0
    single = SINGLE[face]
    best: int | None = count * single if single else None
    for group in range(3, count + 1):
        value = TRIPLE[face] * GROUP_FACTOR[group] + (count - group) * single
        if (single or group == count) and (best is None or value > best):
            best = value
    if count == 6:  # two triples of one face: never better than six of a kind, but valid
        best = max(best or 0, 2 * TRIPLE[face])
    return best


@cache
def keep_value(dice: tuple[int, ...], four_and_pair: bool = False) -> int | None:
    """The value of setting ``dice`` (sorted) aside from one roll, or None if any die is dead.

    The value is the best way to split the dice into combinations, so 1,1,1,5 is 1050 and
    2,2,2,2 is 400. Three pairs and the straight need all six dice; with ``four_and_pair``
    four of a kind plus a pair also counts as three pairs.
    """
    if not dice:
        return None
    counts = counts_of(dice)
    best: int | None = 0
    for face in range(1, 7):
        value = _face_value(face, counts[face])
        if value is None:
            best = None
            break
        assert best is not None
        best += value
    if len(dice) == 6:
        shape = sorted(c for c in counts[1:] if c)
        special: int | None = None
        if shape == [1, 1, 1, 1, 1, 1]:
            special = STRAIGHT
        elif shape == [2, 2, 2] or (four_and_pair and shape == [2, 4]):
            special = THREE_PAIRS
        if special is not None and (best is None or special > best):
            best = special
    return best


@cache
def set_asides(
    roll: tuple[int, ...], four_and_pair: bool = False
) -> tuple[tuple[tuple[int, ...], int], ...]:
    """Every legal set-aside of a sorted roll with its points, best first.

    Order: more points first, then fewer dice, then the dice themselves ascending. Empty when
    the roll has no scoring dice (the player zeroes out).
    """
    counts = counts_of(roll)
    faces = [f for f in range(1, 7) if counts[f]]
    found: list[tuple[tuple[int, ...], int]] = []
    for taken in product(*(range(counts[f] + 1) for f in faces)):
        keep = tuple(f for f, n in zip(faces, taken, strict=True) for _ in range(n))
        value = keep_value(keep, four_and_pair)
        if value is not None:
            found.append((keep, value))
    found.sort(key=lambda kv: (-kv[1], len(kv[0]), kv[0]))
    return tuple(found)


def dead_dice(dice: tuple[int, ...], four_and_pair: bool = False) -> tuple[int, ...]:
    """The faces in ``dice`` that cannot score in any split (for error messages)."""
    counts = counts_of(dice)
    dead: list[int] = []
    for face in range(1, 7):
        if _face_value(face, counts[face]) is None:
            dead.extend([face] * counts[face])
    if dead and keep_value(tuple(sorted(dice)), four_and_pair) is not None:
        return ()  # a six-dice combination (three pairs, straight) makes every die score
    return tuple(dead)
