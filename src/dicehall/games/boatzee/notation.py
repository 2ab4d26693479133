"""Box names as people type them: ``fh``, ``full house``, ``3k``, ``sixes 2``."""

from __future__ import annotations

from dicehall.engine.errors import InvalidInput
from dicehall.games.boatzee.scoring import BOX_INDEX, BOXES, Box

#: Short names accepted besides the box names themselves.
ALIASES: dict[str, Box] = {
    "1s": "ones",
    "aces": "ones",
    "2s": "twos",
    "3s": "threes",
    "4s": "fours",
    "5s": "fives",
    "6s": "sixes",
    "3k": "three_kind",
    "3ok": "three_kind",
    "three_of_a_kind": "three_kind",
    "3_of_a_kind": "three_kind",
    "4k": "four_kind",
    "4ok": "four_kind",
    "four_of_a_kind": "four_kind",
    "4_of_a_kind": "four_kind",
    "fh": "full_house",
    "fullhouse": "full_house",
    "ss": "small_straight",
    "small": "small_straight",
    "ls": "large_straight",
    "large": "large_straight",
    "bz": "boatzee",
    "yahtzee": "boatzee",
    "ch": "chance",
}

#: The shortest way to type each box, for help texts.
SHORT: dict[Box, str] = {
    "ones": "1s",
    "twos": "2s",
    "threes": "3s",
    "fours": "4s",
    "fives": "5s",
    "sixes": "6s",
    "three_kind": "3k",
    "four_kind": "4k",
    "full_house": "fh",
    "small_straight": "ss",
    "large_straight": "ls",
    "boatzee": "bz",
    "chance": "ch",
}


def parse_box(text: str) -> Box:
    """A box from its name or a short name; unknown text raises InvalidInput."""
    key = "_".join(text.strip().lower().replace("-", " ").split())
    if key in BOX_INDEX:
        return BOXES[BOX_INDEX[key]]
    if key in ALIASES:
        return ALIASES[key]
    raise InvalidInput(f"{text.strip()!r} is not a box (boxes: {', '.join(BOXES)})")


def parse_box_and_column(text: str) -> tuple[Box, int | None]:
    """``full house 2`` -> (``full_house``, 2); the column is None when not given."""
    words = text.strip().split()
    if len(words) > 1 and words[-1].isdigit():
        return parse_box(" ".join(words[:-1])), int(words[-1])
    return parse_box(text), None
