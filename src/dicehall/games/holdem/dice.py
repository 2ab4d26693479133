"""Hold'em dice and their notation: a face then a colour letter, such as ``6r`` or ``2w``.

A die is kept as its notation string everywhere (states, views, JSON). For fast code a die
is also a *kind*, a number 0..23: ``(face - 1) * 4 + colour``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from dicehall.engine.errors import InvalidInput

#: Colour letters in their fixed order: red, black, white, yellow.
COLOURS: tuple[str, ...] = ("r", "k", "w", "y")
COLOUR_NAMES: dict[str, str] = {"r": "red", "k": "black", "w": "white", "y": "yellow"}
#: Dice of each colour in the bag.
PER_COLOUR = 5
#: Every die kind in kind order: 1r, 1k, 1w, 1y, 2r, ...
KINDS: tuple[str, ...] = tuple(f"{f}{c}" for f in range(1, 7) for c in COLOURS)

Die = str
"""A die in notation form: face 1..6 then a colour letter."""


def face(die: Die) -> int:
    """The face a die shows."""
    return int(die[0])


def colour(die: Die) -> str:
    """The colour letter of a die."""
    return die[1]


def kind(die: Die) -> int:
    """The die's kind number 0..23."""
    return (int(die[0]) - 1) * 4 + COLOURS.index(die[1])


def make(face_value: int, colour_letter: str) -> Die:
    """The die showing ``face_value`` in ``colour_letter``."""
    return f"{face_value}{colour_letter}"


def parse_die(text: str, what: str = "dice") -> Die:
    """One die from text such as ``6r`` (case and spaces ignored)."""
    token = text.strip().lower()
    if (
        len(token) != 2
        or not token[0].isdigit()
        or not 1 <= int(token[0]) <= 6
        or token[1] not in COLOURS
    ):
        raise InvalidInput(
            f"{what}: {text.strip()!r} is not a die; write a face 1-6 then a colour "
            "letter r (red), k (black), w (white) or y (yellow), like 6r"
        )
    return token


def parse_dice(
    text: str, *, what: str = "dice", min_count: int = 0, max_count: int | None = None
) -> tuple[Die, ...]:
    """Dice from comma- or space-separated text such as ``6r,6k,2w``; errors are clear."""
    dice = tuple(parse_die(p, what) for p in text.replace(",", " ").split())
    n = len(dice)
    if n < min_count or (max_count is not None and n > max_count):
        if max_count == min_count:
            wanted = f"{min_count}"
        elif max_count is None:
            wanted = f"at least {min_count}"
        else:
            wanted = f"{min_count} to {max_count}"
        raise InvalidInput(f"{what}: expected {wanted} dice, got {n}")
    return dice


def check_bag(dice: Iterable[Die], what: str = "dice") -> None:
    """Raise unless the bag could hold these dice together (five of each colour)."""
    counts = Counter(colour(d) for d in dice)
    for letter, count in counts.items():
        if count > PER_COLOUR:
            raise InvalidInput(
                f"{what}: {count} {COLOUR_NAMES[letter]} dice, but the bag has only "
                f"{PER_COLOUR} of each colour"
            )


def bag_after(taken: Iterable[str]) -> tuple[str, ...]:
    """The colours left in the bag once ``taken`` colours (or dice) are out, in order."""
    counts = Counter(t[-1] for t in taken)
    return tuple(c for c in COLOURS for _ in range(PER_COLOUR - counts[c]))
