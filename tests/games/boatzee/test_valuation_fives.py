"""The five-of-a-kind rows of a valuation: read off the column states, they agree with the
card filled by the rules (jokers, the 100 bonus, the upper bonus) and valued whole."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from dicehall.games.boatzee.card import Card, Joker, allowed, fill, open_boxes, total
from dicehall.games.boatzee.dice_tables import FIVE_OF_A_KIND
from dicehall.games.boatzee.scoring import HANDS
from dicehall.games.boatzee.valuation import TableValuation
from tests.games.boatzee.helpers import cards

TABLE_SHAPE = (2, 1 << 13, 64)


def _reference_rows(valuation: TableValuation, card: Card) -> dict[tuple[int, int], float]:
    """Each five of a kind's value in each allowed choice, by filling the card itself."""
    choices = open_boxes(card)
    before = total(card)
    rows = {}
    for h in FIVE_OF_A_KIND:
        dice = HANDS[h]
        for box, k in allowed(card, dice, valuation.ruleset, valuation.joker):
            after = fill(card, dice, valuation.ruleset, box, k, valuation.joker)
            rows[(h, choices.index((box, k)))] = total(after) - before + valuation.future(after)
    return rows


@settings(max_examples=150, deadline=None)
@given(
    position=cards(),
    joker=st.sampled_from(["forced", "free"]),
    seed=st.integers(0, 2**32 - 1),
)
def test_five_of_a_kind_rows_match_the_filled_card(
    position: tuple[Card, str], joker: Joker, seed: int
) -> None:
    card, _ = position
    rng = np.random.default_rng(seed)
    # Any table will do: the rows must be the same function of it.
    tables = [rng.uniform(0, 300, TABLE_SHAPE) for _ in range(card.columns)]
    valuation = TableValuation(tables, "yahtzee", joker)
    _, values = valuation.choice_values(card, "yahtzee", joker)
    expected = _reference_rows(valuation, card)
    for h in FIVE_OF_A_KIND:
        for c in range(values.shape[1]):
            if (h, c) in expected:
                assert np.isclose(values[h, c], expected[(h, c)], rtol=0, atol=1e-9)
            else:
                assert values[h, c] == -np.inf
