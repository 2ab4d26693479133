"""A hint's turn from the table (:mod:`turn`): the NumPy and compiled evaluations agree to
the last bit, and both agree with the valuation and turn planner the bots use."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dicehall.games.boatzee.card import Card, Joker, Ruleset, total
from dicehall.games.boatzee.hints import hint, ranked
from dicehall.games.boatzee.scoring import HAND_INDEX, hand_of
from dicehall.games.boatzee.turn import (
    hand_choices,
    turn_values_compiled,
    turn_values_numpy,
)
from dicehall.games.boatzee.valuation import TableValuation, column_state
from tests.games.boatzee.helpers import cards, full_except


def _table(ruleset: Ruleset, seed: int) -> np.ndarray:
    # Any table will do: every evaluation must be the same function of it.
    rng = np.random.default_rng(seed)
    table = rng.uniform(0, 300, (2 if ruleset == "yahtzee" else 1, 1 << 13, 64))
    table.setflags(write=False)
    return table


def _one_column(card: Card) -> Card:
    boxes = card.boxes[0]
    if all(v is not None for v in boxes):
        boxes = (*boxes[:-1], None)
    return Card((boxes,), card.extra_bonuses)


@settings(max_examples=150, deadline=None)
@given(
    position=cards(),
    joker=st.sampled_from(["forced", "free"]),
    dice=st.tuples(*[st.integers(1, 6)] * 5) | st.sampled_from([(f,) * 5 for f in range(1, 7)]),
    rolls_left=st.integers(0, 2),
    seed=st.integers(0, 2**32 - 1),
)
def test_numpy_and_the_kernel_agree_to_the_last_bit(
    position: tuple[Card, Ruleset], joker: Joker, dice: tuple[int, ...], rolls_left: int, seed: int
) -> None:
    card, ruleset = position
    card = _one_column(card)
    joker = joker if ruleset == "yahtzee" else "forced"
    table = _table(ruleset, seed)
    state = column_state(card, 1, ruleset)
    hand = HAND_INDEX[hand_of(dice)]
    ids, _ = hand_choices(hand, rolls_left > 0)
    args = (table, state, hand, rolls_left, ids, ruleset, joker, float(total(card)))
    order_a, ranked_a = turn_values_numpy(*args)
    order_b, ranked_b = turn_values_compiled(*args)
    assert order_a.tolist() == order_b.tolist()
    assert ranked_a.tobytes() == ranked_b.tobytes()


@settings(max_examples=100, deadline=None)
@given(
    position=cards(),
    joker=st.sampled_from(["forced", "free"]),
    dice=st.tuples(*[st.integers(1, 6)] * 5) | st.sampled_from([(f,) * 5 for f in range(1, 7)]),
    rolls_left=st.integers(0, 2),
    seed=st.integers(0, 2**32 - 1),
)
def test_hints_value_every_choice_as_the_turn_planner_does(
    position: tuple[Card, Ruleset], joker: Joker, dice: tuple[int, ...], rolls_left: int, seed: int
) -> None:
    card, ruleset = position
    card = _one_column(card)
    joker = joker if ruleset == "yahtzee" else "forced"
    valuation = TableValuation([_table(ruleset, seed)], ruleset, joker)
    planned = ranked(card, dice, rolls_left, ruleset, valuation, joker)
    choices = hint(card, dice, rolls_left, ruleset, valuation, joker)
    now = total(card)
    assert len(choices) == len(planned)
    assert {(c.keep, c.box) for c in choices} == {(k, b) for _, k, b in planned}
    by_choice = {(k, b): now + v for v, k, b in planned}
    for rank, choice in enumerate(choices):
        # The same value (the keeps' sums are taken in another order: the last bits differ)
        # and so the same rank, but for equal values.
        expected = by_choice[(choice.keep, choice.box)]
        assert choice.expected_final == pytest.approx(expected, abs=1e-9)
        assert choice.expected_final == pytest.approx(now + planned[rank][0], abs=1e-9)
        if choice.box is not None:  # a box's value is the valuation's, to the last bit
            assert choice.expected_final == expected


def test_equal_choices_are_listed_in_keep_order() -> None:
    # Only the Boatzee box open: holding one die of any face is worth the same, and so is
    # holding any two different faces. Rounding must not decide their order.
    card = full_except(1, {("boatzee", 1)})
    valuation = TableValuation([np.zeros((1, 1 << 13, 64))], "boatzee")
    choices = hint(card, (1, 2, 3, 4, 5), 2, "boatzee", valuation)
    singles = [c.keep for c in choices if c.keep is not None and len(c.keep) == 1]
    pairs = [c.keep for c in choices if c.keep is not None and len(c.keep) == 2]
    assert singles == [(1,), (2,), (3,), (4,), (5,)]
    assert pairs == sorted(pairs) and len(pairs) == 10
    values = {c.keep: c.expected_final for c in choices if c.keep is not None}
    assert max(values[k] for k in singles) - min(values[k] for k in singles) < 1e-12
    assert [c.box for c in choices if c.box is not None] == ["boatzee"]
