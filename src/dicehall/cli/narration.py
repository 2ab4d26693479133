"""Words every screen and command shares: who does what, counted nouns, dice on the screen.

The player at the keyboard is named ``You``; the verbs after that name agree with it ("You
roll", "alice rolls"). Phrases are written in the third person ("rolls 3 dice", "calls 10 and
raises 10") and :func:`agree` turns them round for ``You``.
"""

from __future__ import annotations

from collections.abc import Sequence

# The plain words live with the games, so the site tells a game in the same words.
from dicehall.games.narration import (
    YOU,
    agree,
    base_form,
    counted,
    does,
    faces,
    faces_counted,
    is_you,
    noun,
    number_word,
    together,
    whose,
)

__all__ = [
    "YOU",
    "agree",
    "base_form",
    "boxed_dice",
    "coloured_dice",
    "counted",
    "dice_to_roll",
    "does",
    "faces",
    "faces_counted",
    "is_you",
    "noun",
    "number_word",
    "together",
    "whose",
]


def dice_to_roll(left: int) -> str:
    """Ten Thousand's dice still to roll; none left means all six again: "6 (hot dice)"."""
    return "6 (hot dice)" if left == 0 else counted(left, "die")


def boxed_dice(dice: Sequence[int]) -> str:
    """Dice as Rich markup, each face in bold brackets: [3] [3] [6]."""
    return " ".join(f"[bold]\\[{d}][/]" for d in dice)


_COLOUR_STYLES = {"r": "bold red", "k": "bold bright_black", "w": "bold white", "y": "bold yellow"}


def coloured_dice(dice: Sequence[str]) -> str:
    """Coloured dice (``6r``, ``2k``) as Rich markup, each in its colour; none: "none"."""
    if not dice:
        return "[dim]none[/]"
    return " ".join(f"[{_COLOUR_STYLES[d[1]]}]{d}[/]" for d in dice)
