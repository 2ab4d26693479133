"""Hints for single-column solitaire play: every choice ranked by its expected final total.

The expected final total of a choice is the points already on the card plus the optimal
expectation of everything that follows it (see :mod:`valuation`). While re-rolls are left
the choices are every distinct keep of the dice (the dice held back, the rest re-rolled)
and every box the dice may go in now; on the last roll, the boxes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from itertools import combinations
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from dicehall.engine.errors import InvalidInput
from dicehall.games.boatzee.card import (
    EXTRA_BOATZEE_BONUS,
    UPPER_BONUS,
    UPPER_BONUS_THRESHOLD,
    Card,
    Joker,
    Ruleset,
    points,
)
from dicehall.games.boatzee.dice_tables import FIVE_OF_A_KIND, KEEP_INDEX
from dicehall.games.boatzee.planner import TurnPlan
from dicehall.games.boatzee.scoring import (
    BOATZEE,
    BOATZEE_POINTS,
    BOX_INDEX,
    BOXES,
    HAND_INDEX,
    SCORES,
    TITLES,
    Box,
    hand_of,
)
from dicehall.games.boatzee.turn import turn_values
from dicehall.games.boatzee.valuation import TableValuation

if TYPE_CHECKING:
    from dicehall.games.boatzee.bots import ChoiceValuer

MAX_REROLLS = 2
_UPPER_BOXES = 6


class Choice(NamedTuple):
    """One choice: hold ``keep`` and re-roll the rest, or score ``box``; and its expected
    final total. ``points`` is what the box would score now (None for a keep).

    A named tuple (immutable, compared field by field): a hint makes a few dozen of them,
    and a tuple is made several times faster than a frozen dataclass.
    """

    expected_final: float
    keep: tuple[int, ...] | None = None
    box: Box | None = None
    points: int | None = None

    def as_json(self) -> dict[str, object]:
        """``{"keep": [...], "expected_final": e}`` or ``{"box": name, "expected_final": e}``."""
        if self.keep is not None:
            return {"keep": list(self.keep), "expected_final": self.expected_final}
        return {"box": self.box, "expected_final": self.expected_final}


@cache
def achievable(box: Box) -> frozenset[int]:
    """Every value a box can hold: what some five dice score there, and 0 (a scratch)."""
    return frozenset({0, *(row[BOX_INDEX[box]] for row in SCORES)})


def scored_card(
    scored: Mapping[Box, int], ruleset: Ruleset, bonuses: int = 0, *, full_ok: bool = False
) -> Card:
    """A one-column card with ``scored`` filled; raises InvalidInput for impossible values.

    ``bonuses`` counts the 100-point bonuses already earned (yahtzee ruleset only: they need
    50 in the Boatzee box, and each came with another filled box). A full card is refused
    (nothing is left to hint) unless ``full_ok`` (an opponent who has finished).
    """
    for box, value in scored.items():
        if value not in achievable(box):
            shown = ", ".join(map(str, sorted(achievable(box))))
            raise InvalidInput(f"{TITLES[box]} cannot hold {value} (possible: {shown})")
    if len(scored) == len(BOXES) and not full_ok:
        raise InvalidInput("every box is filled: the game is over, there is nothing to hint")
    if bonuses < 0:
        raise InvalidInput(f"bonuses must be 0 or more, not {bonuses}")
    if bonuses:
        if ruleset != "yahtzee":
            raise InvalidInput("bonuses exist only in the yahtzee ruleset")
        if scored.get(BOXES[BOATZEE]) != 50:
            raise InvalidInput("a 100 bonus needs 50 in the Boatzee box")
        if not 0 <= bonuses < len(scored):
            raise InvalidInput(
                f"{bonuses} bonuses need {bonuses} filled boxes besides the Boatzee box"
            )
    boxes = tuple(scored.get(box) for box in BOXES)
    return Card((boxes,), bonuses)


def _distinct_keeps(dice: Sequence[int]) -> list[tuple[int, ...]]:
    hand = hand_of(dice)
    keeps = {keep for size in range(len(hand)) for keep in combinations(hand, size)}
    return sorted(keeps, key=lambda keep: (-len(keep), keep))


def ranked(
    card: Card,
    dice: Sequence[int],
    rolls_left: int,
    ruleset: Ruleset,
    valuer: ChoiceValuer,
    joker: Joker = "forced",
) -> list[tuple[float, tuple[int, ...] | None, Box | None]]:
    """Every (value, keep, box) choice for ``dice`` with ``rolls_left`` re-rolls left, best
    first, valued by ``valuer``'s final choices planned over the re-rolls."""
    if card.columns != 1:
        raise InvalidInput("hints are for one-column games")
    if not 0 <= rolls_left <= MAX_REROLLS:
        raise InvalidInput(f"rolls left must be 0, 1 or 2, not {rolls_left}")
    hand = HAND_INDEX[hand_of(dice)]
    choices, values = valuer.choice_values(card, ruleset, joker)
    out: list[tuple[float, tuple[int, ...] | None, Box | None]] = []
    if rolls_left:
        keep_values = TurnPlan(values).keep_value[rolls_left - 1]
        for keep in _distinct_keeps(dice):
            out.append((float(keep_values[KEEP_INDEX[keep]]), keep, None))
    for c, (box, _) in enumerate(choices):
        value = values[hand, c]
        if np.isfinite(value):
            out.append((float(value), None, box))
    out.sort(key=lambda choice: -choice[0])
    return out


def hint(
    card: Card,
    dice: Sequence[int],
    rolls_left: int,
    ruleset: Ruleset,
    valuation: TableValuation,
    joker: Joker = "forced",
) -> list[Choice]:
    """Every choice for ``dice`` with ``rolls_left`` re-rolls left, best first (``joker``:
    the yahtzee ruleset's joker rule, which ``valuation`` must be solved for).

    The state's turn is evaluated from the table by :func:`turn.turn_values` (flat arrays,
    a compiled kernel once a process asks for more than one hint)."""
    if card.columns != 1:
        raise InvalidInput("hints are for one-column games")
    if not 0 <= rolls_left <= MAX_REROLLS:
        raise InvalidInput(f"rolls left must be 0, 1 or 2, not {rolls_left}")
    if (ruleset, joker) != (valuation.ruleset, valuation.joker) or len(valuation.tables) != 1:
        raise ValueError("these tables are for another ruleset, joker rule or number of columns")
    hand = HAND_INDEX[hand_of(dice)]
    boxes = card.boxes[0]
    mask = upper = filled = 0
    for i, value in enumerate(boxes):
        if value is not None:
            mask |= 1 << i
            filled += value
            if i < _UPPER_BOXES:
                upper += value
    now = filled + EXTRA_BOATZEE_BONUS * card.extra_bonuses
    if upper >= UPPER_BONUS_THRESHOLD:
        now += UPPER_BONUS
        upper = UPPER_BONUS_THRESHOLD
    fifty = int(ruleset == "yahtzee" and boxes[BOATZEE] == BOATZEE_POINTS)
    order, ranked, labels = turn_values(
        valuation.tables[0], (fifty, mask, upper), hand, rolls_left, ruleset, joker, now
    )
    make = tuple.__new__
    choices = [
        make(Choice, (value,) + labels[i])
        for i, value in zip(order.tolist(), ranked.tolist(), strict=True)
    ]
    if ruleset == "yahtzee" and hand in FIVE_OF_A_KIND:  # a joker may score other points
        choices = [
            c if c.box is None else c._replace(points=points(card, dice, ruleset, c.box))
            for c in choices
        ]
    return choices
