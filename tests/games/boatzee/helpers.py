"""Building scorecards and positions for the Boatzee tests."""

from __future__ import annotations

from collections.abc import Mapping

from hypothesis import strategies as st

from dicehall.games.boatzee.card import Card, Ruleset
from dicehall.games.boatzee.scoring import BOX_INDEX, BOXES


def make_card(columns: int, filled: Mapping[tuple[str, int], int], extra: int = 0) -> Card:
    """A card with ``filled[(box, column)]`` unmultiplied points and every other box open."""
    boxes: list[list[int | None]] = [[None] * len(BOXES) for _ in range(columns)]
    for (box, column), points in filled.items():
        boxes[column - 1][BOX_INDEX[box]] = points
    return Card(tuple(tuple(column) for column in boxes), extra)


def full_except(columns: int, open_boxes: set[tuple[str, int]], value: int = 0) -> Card:
    """A card with every box holding ``value`` except ``open_boxes``."""
    filled: dict[tuple[str, int], int] = {
        (box, k): value
        for k in range(1, columns + 1)
        for box in BOXES
        if (box, k) not in open_boxes
    }
    return make_card(columns, filled)


@st.composite
def cards(draw: st.DrawFn) -> tuple[Card, Ruleset]:
    """A random position: a card with some boxes filled (one left open), and a ruleset."""
    columns = draw(st.integers(1, 3))
    ruleset: Ruleset = draw(st.sampled_from(["boatzee", "yahtzee"]))
    filled: dict[tuple[str, int], int] = {}
    for k in range(1, columns + 1):
        for box in BOXES:
            if draw(st.booleans()):
                if box == "boatzee":
                    filled[(box, k)] = draw(st.sampled_from([0, 50]))
                elif BOX_INDEX[box] < 6:
                    filled[(box, k)] = (BOX_INDEX[box] + 1) * draw(st.integers(0, 5))
                else:
                    filled[(box, k)] = draw(st.integers(0, 30))
    if len(filled) == 13 * columns:
        del filled[("chance", 1)]
    return make_card(columns, filled, draw(st.integers(0, 2))), ruleset
