"""Boss Dice hands: the first-roll ranking, the showdown ranking, the Boss's keep, legal keeps.

A rank is a tuple that compares the way the rules say: the category first, then the faces of
the groups. Unmatched dice never appear in a rank, so they never count.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from functools import cache
from itertools import combinations

Dice = tuple[int, ...]
Rank = tuple[int, ...]

NOTHING, ONE_PAIR, TWO_PAIR, THREE, FULL_HOUSE, FOUR, FIVE = range(7)

_SHAPES: dict[tuple[int, ...], int] = {
    (): NOTHING,
    (2,): ONE_PAIR,
    (2, 2): TWO_PAIR,
    (3,): THREE,
    (3, 2): FULL_HOUSE,
    (4,): FOUR,
    (5,): FIVE,
}


def _groups(dice: Iterable[int]) -> list[tuple[int, int]]:
    """(count, face) of every face shown at least twice, largest group first, then high face."""
    counts = Counter(dice)
    return sorted(((n, face) for face, n in counts.items() if n >= 2), reverse=True)


@cache
def _showdown_rank(dice: Dice) -> Rank:
    groups = _groups(dice)
    category = _SHAPES[tuple(n for n, _ in groups)]
    return (category, *(face for _, face in groups))


def showdown_rank(dice: Sequence[int]) -> Rank:
    """The showdown rank of five dice: nothing < pair < two pair < three < full house < four
    < five; within a category the group faces, largest group first, then the lower pair."""
    return _showdown_rank(tuple(sorted(dice)))


@cache
def _first_roll_rank(dice: Dice) -> Rank | None:
    groups = _groups(dice)
    if not groups:
        return None
    shape = tuple(n for n, _ in groups)
    if shape == (2, 2):
        return (ONE_PAIR, groups[0][1])  # two pair counts only as its higher pair
    return (_SHAPES[shape], *(face for _, face in groups))


def first_roll_rank(dice: Sequence[int]) -> Rank | None:
    """The first-roll rank, or None without a pair: two pair counts as its higher pair."""
    return _first_roll_rank(tuple(sorted(dice)))


def beats_first(a: Rank | None, b: Rank | None) -> bool:
    """True when first-roll rank ``a`` is better than ``b`` (no pair is below everything)."""
    if a is None:
        return False
    return b is None or a > b


def boss_keep(first_roll: Sequence[int]) -> Dice:
    """The dice that made a first roll Boss: the pair (the higher of two pair), the three,
    the full house, the four or the five, in ascending order; () without a pair."""
    groups = _groups(first_roll)
    if not groups:
        return ()
    if [n for n, _ in groups] == [2, 2]:
        groups = groups[:1]
    return tuple(sorted(face for n, face in groups for _ in range(n)))


def is_boss_keep(dice: Sequence[int]) -> bool:
    """True when ``dice`` are exactly a made first-roll hand with nothing unmatched."""
    return len(dice) >= 2 and tuple(sorted(dice)) == boss_keep(dice)


def two_pairs_in(keep: Sequence[int]) -> tuple[int, int] | None:
    """The two faces kept exactly twice each (the banned two-pair keep), high face first."""
    pairs = sorted((f for f, n in Counter(keep).items() if n == 2), reverse=True)
    return (pairs[0], pairs[1]) if len(pairs) >= 2 else None


@cache
def _legal_keeps(first_roll: Dice) -> tuple[Dice, ...]:
    found: set[Dice] = set()
    for size in range(len(first_roll) + 1):
        for keep in combinations(first_roll, size):
            if two_pairs_in(keep) is None:
                found.add(keep)
    return tuple(sorted(found, key=lambda k: (len(k), k)))


def legal_keeps(first_roll: Sequence[int]) -> tuple[Dice, ...]:
    """Every distinct keep (ascending faces) from a first roll: none to all five dice,
    except a keep in which two different faces appear exactly twice each."""
    return _legal_keeps(tuple(sorted(first_roll)))


def missing_from(keep: Sequence[int], roll: Sequence[int]) -> tuple[int, ...]:
    """The faces of ``keep`` that ``roll`` does not have enough of (empty when it is a subset)."""
    short = Counter(keep) - Counter(roll)
    return tuple(sorted(short.elements()))


def faces_text(dice: Iterable[int]) -> str:
    """Dice written the way players read them: ``6 6 4 4 1``."""
    return " ".join(str(d) for d in dice)


def _plural(face: int) -> str:
    return f"{face}s"


def describe(rank: Rank | None) -> str:
    """A rank in words: ``two pair, 6s and 4s``; None reads as ``no pair``."""
    if rank is None:
        return "no pair"
    category, *faces = rank
    if category == NOTHING:
        return "nothing"
    if category == ONE_PAIR:
        return f"a pair of {_plural(faces[0])}"
    if category == TWO_PAIR:
        return f"two pair, {_plural(faces[0])} and {_plural(faces[1])}"
    if category == THREE:
        return f"three {_plural(faces[0])}"
    if category == FULL_HOUSE:
        return f"a full house, {_plural(faces[0])} over {_plural(faces[1])}"
    if category == FOUR:
        return f"four {_plural(faces[0])}"
    return f"five {_plural(faces[0])}"
