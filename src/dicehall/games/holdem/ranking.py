"""Ranking Hold'em Dice hands: any five dice, and the best five of up to seven.

A hand's rank is compared by three keys in turn: the category; the faces with groups first
(largest group first, equal groups by higher face, then the rest high to low); the most dice
of one colour. Equal on all three keys is a split.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from dicehall.games.holdem.dice import COLOURS, Die, colour, face

#: Categories from lowest (0) to highest (10); the names are used in JSON.
CATEGORIES: tuple[str, ...] = (
    "nothing",
    "one_pair",
    "two_pair",
    "three_kind",
    "full_house",
    "straight",
    "four_kind",
    "flush",
    "five_kind",
    "straight_flush",
    "yahtzee_flush",
)
CATEGORY_TITLES: dict[str, str] = {
    "nothing": "nothing",
    "one_pair": "one pair",
    "two_pair": "two pair",
    "three_kind": "three of a kind",
    "full_house": "full house",
    "straight": "straight",
    "four_kind": "four of a kind",
    "flush": "flush",
    "five_kind": "Yahtzee (five of a kind)",
    "straight_flush": "straight flush",
    "yahtzee_flush": "Yahtzee flush",
}
(
    NOTHING,
    ONE_PAIR,
    TWO_PAIR,
    THREE_KIND,
    FULL_HOUSE,
    STRAIGHT,
    FOUR_KIND,
    FLUSH,
    FIVE_KIND,
    STRAIGHT_FLUSH,
    YAHTZEE_FLUSH,
) = range(11)


@dataclass(frozen=True, slots=True, order=True)
class HandRank:
    """The three tie-break keys of a five-dice hand, compared in order."""

    category: int
    faces: tuple[int, ...]
    colour: int

    @property
    def name(self) -> str:
        """The category's JSON name, such as ``full_house``."""
        return CATEGORIES[self.category]

    @property
    def title(self) -> str:
        """The category as words, such as ``full house``."""
        return CATEGORY_TITLES[self.name]

    def code(self) -> int:
        """The rank as one integer that orders exactly like the rank itself."""
        value = self.category
        for f in self.faces:
            value = value * 6 + (f - 1)
        return value * 8 + self.colour


def rank_five(dice: Sequence[Die]) -> HandRank:
    """The rank of exactly five dice."""
    if len(dice) != 5:
        raise ValueError(f"a hand is five dice, not {len(dice)}")
    faces = [face(d) for d in dice]
    counts = Counter(faces)
    most_colour = max(Counter(colour(d) for d in dice).values())
    ordered = tuple(sorted(faces, key=lambda f: (counts[f], f), reverse=True))
    shape = sorted(counts.values(), reverse=True)
    flush = most_colour == 5
    straight = sorted(faces) in ([1, 2, 3, 4, 5], [2, 3, 4, 5, 6])
    if shape[0] == 5:
        category = YAHTZEE_FLUSH if flush else FIVE_KIND
    elif straight:
        category = STRAIGHT_FLUSH if flush else STRAIGHT
    elif flush:
        category = FLUSH
    elif shape[0] == 4:
        category = FOUR_KIND
    elif shape[:2] == [3, 2]:
        category = FULL_HOUSE
    elif shape[0] == 3:
        category = THREE_KIND
    elif shape[:2] == [2, 2]:
        category = TWO_PAIR
    elif shape[0] == 2:
        category = ONE_PAIR
    else:
        category = NOTHING
    return HandRank(category, ordered, most_colour)


@dataclass(frozen=True, slots=True)
class BestHand:
    """The best five dice out of a seat's dice, and their rank."""

    rank: HandRank
    five: tuple[Die, ...]


def best_hand(dice: Sequence[Die]) -> BestHand:
    """The best five of five to seven dice under all three keys, groups first."""
    if not 5 <= len(dice) <= 7:
        raise ValueError(f"a best hand needs 5 to 7 dice, not {len(dice)}")
    best: BestHand | None = None
    for five in combinations(dice, 5):
        rank = rank_five(five)
        if best is None or rank > best.rank:
            best = BestHand(rank, tuple(five))
    assert best is not None
    counts = Counter(face(d) for d in best.five)
    shown = sorted(best.five, key=lambda d: (-counts[face(d)], -face(d), COLOURS.index(d[1])))
    return BestHand(best.rank, tuple(shown))
