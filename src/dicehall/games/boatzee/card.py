"""A seat's scorecard: boxes per column, totals and bonuses, and where a roll may be scored.

Columns are numbered from 1; column k multiplies every box in it by k. A card stores each
box's *unmultiplied* points, so the per-column upper bonus reads the stored values directly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from dicehall.games.boatzee.scoring import (
    BOATZEE,
    BOATZEE_POINTS,
    BOX_INDEX,
    BOXES,
    TITLES,
    Box,
    box_score,
    is_five_of_a_kind,
    joker_score,
)

Ruleset = Literal["boatzee", "yahtzee"]
Joker = Literal["forced", "free"]
"""The yahtzee ruleset's joker rule: ``forced`` (the official rule) or ``free`` (Verhoeff's)."""
JOKERS: tuple[Joker, ...] = ("forced", "free")

UPPER_BONUS = 35
UPPER_BONUS_THRESHOLD = 63
EXTRA_BOATZEE_BONUS = 100


@dataclass(frozen=True, slots=True)
class Card:
    """One seat's scorecard.

    ``boxes[k - 1][i]`` is the unmultiplied points in box ``BOXES[i]`` of column k, or None
    while the box is open. ``extra_bonuses`` counts the 100-point bonuses (yahtzee ruleset).
    """

    boxes: tuple[tuple[int | None, ...], ...]
    extra_bonuses: int = 0

    @property
    def columns(self) -> int:
        """How many columns the card has."""
        return len(self.boxes)


def empty_card(columns: int) -> Card:
    """A card with every box open."""
    return Card(tuple((None,) * len(BOXES) for _ in range(columns)))


def _column(card: Card, column: int) -> tuple[int | None, ...]:
    if not 1 <= column <= card.columns:
        raise ValueError(f"there is no column {column} (columns are 1 to {card.columns})")
    return card.boxes[column - 1]


def upper_total(card: Card, column: int) -> int:
    """The unmultiplied Ones..Sixes total of a column (what counts toward 63)."""
    return sum(v for v in _column(card, column)[:6] if v is not None)


def upper_bonus(card: Card, column: int) -> int:
    """35 once the column's unmultiplied upper total reaches 63, else 0 (never multiplied)."""
    return UPPER_BONUS if upper_total(card, column) >= UPPER_BONUS_THRESHOLD else 0


def column_total(card: Card, column: int) -> int:
    """A column's boxes times its multiplier, plus its upper bonus."""
    boxes = _column(card, column)
    return column * sum(v for v in boxes if v is not None) + upper_bonus(card, column)


def total(card: Card) -> int:
    """The card's game total: every column's total plus the extra five-of-a-kind bonuses."""
    columns = sum(column_total(card, k) for k in range(1, card.columns + 1))
    return columns + EXTRA_BOATZEE_BONUS * card.extra_bonuses


def is_full(card: Card) -> bool:
    """True once every box of every column is filled."""
    return all(v is not None for column in card.boxes for v in column)


def open_boxes(card: Card) -> list[tuple[Box, int]]:
    """Every open (box, column), column by column in scorecard order."""
    return [
        (BOXES[i], k)
        for k, column in enumerate(card.boxes, start=1)
        for i, v in enumerate(column)
        if v is None
    ]


def joker_in_force(card: Card, dice: Sequence[int], ruleset: Ruleset) -> bool:
    """True when ``dice`` are a joker.

    Only in the yahtzee ruleset, for a five of a kind, once every column's Boatzee box is
    filled (with 50 or 0): while some Boatzee box is open the roll can still go there.
    """
    return (
        ruleset == "yahtzee"
        and is_five_of_a_kind(dice)
        and all(column[BOATZEE] is not None for column in card.boxes)
    )


def joker_values(card: Card, dice: Sequence[int], ruleset: Ruleset) -> bool:
    """True when a joker scores joker values (Full House 25, the straights 30 and 40).

    That is once the upper box of its face is filled in every column too. Under the forced
    rule a joker can reach a lower box only then; under the free rule it may go to a lower
    box before, and Full House and the straights then score 0 (Verhoeff's reading).
    """
    return joker_in_force(card, dice, ruleset) and all(
        column[dice[0] - 1] is not None for column in card.boxes
    )


def extra_bonus_due(card: Card, dice: Sequence[int], ruleset: Ruleset) -> bool:
    """True when scoring ``dice`` now earns the 100 bonus (yahtzee ruleset).

    That is a five of a kind scored while at least one of the card's Boatzee boxes already
    holds 50, whichever open box receives it.
    """
    return (
        ruleset == "yahtzee"
        and is_five_of_a_kind(dice)
        and any(column[BOATZEE] == BOATZEE_POINTS for column in card.boxes)
    )


def allowed(
    card: Card, dice: Sequence[int], ruleset: Ruleset, joker: Joker = "forced"
) -> list[tuple[Box, int]]:
    """Every (box, column) where ``dice`` may be scored now.

    Any open box, except that the yahtzee ruleset's forced joker rule narrows the choice:
    the upper box of the dice's face in any column where it is open; if none is open, any
    open lower box; if none is open either, any open (upper) box, which scores 0. The free
    joker rule leaves every open box.
    """
    boxes = open_boxes(card)
    if joker == "free" or not joker_in_force(card, dice, ruleset):
        return boxes
    face_box = BOXES[dice[0] - 1]
    same_face = [(box, k) for box, k in boxes if box == face_box]
    if same_face:
        return same_face
    lower = [(box, k) for box, k in boxes if BOX_INDEX[box] >= 6]
    return lower or boxes


def why_not_allowed(
    card: Card,
    dice: Sequence[int],
    ruleset: Ruleset,
    box: str,
    column: int,
    joker: Joker = "forced",
) -> str | None:
    """None when (box, column) may take ``dice`` now, else a sentence saying why not."""
    if box not in BOX_INDEX:
        return f"{box!r} is not a box (boxes: {', '.join(BOXES)})"
    if isinstance(column, bool) or not isinstance(column, int):
        return f"a column must be a whole number, not {column!r}"
    if not 1 <= column <= card.columns:
        if card.columns == 1:
            return f"there is no column {column}: this game has one column"
        return f"there is no column {column}: columns are 1 to {card.columns}"
    title = TITLES[BOXES[BOX_INDEX[box]]]
    where = f" in column {column}" if card.columns > 1 else ""
    if card.boxes[column - 1][BOX_INDEX[box]] is not None:
        return f"{title}{where} is already filled"
    choices = allowed(card, dice, ruleset, joker)
    if (box, column) in choices:
        return None
    shown = ", ".join(
        TITLES[b] + (f" (column {k})" if card.columns > 1 else "") for b, k in choices
    )
    face_title = TITLES[BOXES[dice[0] - 1]]
    if all(BOX_INDEX[b] == dice[0] - 1 for b, _ in choices):
        rule = f"the matching upper box, {face_title}, is open"
    else:
        rule = f"{face_title} is filled everywhere and a lower box is open"
    return (
        f"joker rule: a five of a kind with every Boatzee box filled must be scored in "
        f"{shown}, because {rule}"
    )


def points(card: Card, dice: Sequence[int], ruleset: Ruleset, box: Box) -> int:
    """The unmultiplied points ``dice`` would put in ``box`` (see :func:`joker_values`).

    The same under both joker rules for every box the rules allow.
    """
    if joker_values(card, dice, ruleset):
        return joker_score(box, dice)
    return box_score(box, dice)


def fill(
    card: Card,
    dice: Sequence[int],
    ruleset: Ruleset,
    box: Box,
    column: int,
    joker: Joker = "forced",
) -> Card:
    """The card after scoring ``dice`` in (box, column); raises ValueError if not allowed."""
    reason = why_not_allowed(card, dice, ruleset, box, column, joker)
    if reason is not None:
        raise ValueError(reason)
    extra = card.extra_bonuses + (1 if extra_bonus_due(card, dice, ruleset) else 0)
    value = points(card, dice, ruleset, box)
    columns = list(card.boxes)
    filled = list(columns[column - 1])
    filled[BOX_INDEX[box]] = value
    columns[column - 1] = tuple(filled)
    return Card(tuple(columns), extra)


def effects(
    card: Card, dice: Sequence[int], ruleset: Ruleset, box: Box, column: int
) -> tuple[int, int, int]:
    """What scoring ``dice`` in an allowed (box, column) does to the card's total, in parts.

    ``(points, upper_bonus, extra_bonus)``: the points the box would show (multiplied by the
    column, joker values when in force), the upper bonus this box completes in its column
    (35 or 0) and the extra five-of-a-kind bonus it earns (100 or 0, yahtzee ruleset). Their
    sum is :func:`gain`. The caller must know the box is allowed (see :func:`allowed`).
    """
    value = points(card, dice, ruleset, box)
    bonus = 0
    if BOX_INDEX[box] < 6:
        before = upper_total(card, column)
        if before < UPPER_BONUS_THRESHOLD <= before + value:
            bonus = UPPER_BONUS
    extra = EXTRA_BOATZEE_BONUS if extra_bonus_due(card, dice, ruleset) else 0
    return column * value, bonus, extra


def gain(
    card: Card,
    dice: Sequence[int],
    ruleset: Ruleset,
    box: Box,
    column: int,
    joker: Joker = "forced",
) -> int:
    """How much the card's total grows by scoring ``dice`` in (box, column), bonuses included."""
    return total(fill(card, dice, ruleset, box, column, joker)) - total(card)


def preview(
    dice: Sequence[int], card: Card, ruleset: Ruleset, joker: Joker = "forced"
) -> tuple[dict[Box, int], ...]:
    """What each box would score now, per column: the preview a player sees before choosing.

    One mapping per column (column k at index k - 1) from every box that may take ``dice``
    now to the points it would show there, multiplied by k. Filled boxes, and open boxes the
    joker rule closes for this roll, are absent. Bonuses are not included (see :func:`gain`).
    """
    out: tuple[dict[Box, int], ...] = tuple({} for _ in range(card.columns))
    for box, k in allowed(card, dice, ruleset, joker):
        out[k - 1][box] = k * points(card, dice, ruleset, box)
    return out
