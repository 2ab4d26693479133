"""The issue's acceptance figures for one turn: 538.90 expected points under best play from six
fresh dice, and the bank thresholds by dice in hand (a plain threshold rule at every total)."""

from __future__ import annotations

import pytest

from dicehall.games.tenthousand.strategy import turn_tables

THRESHOLDS = {1: 300, 2: 250, 3: 450, 4: 1050, 5: 3050, 6: 16_000}


def test_best_play_expects_538_90_points_a_turn() -> None:
    assert f"{turn_tables().expected_if_rolling(6, 0, True):.2f}" == "538.90"


@pytest.mark.parametrize(("in_hand", "threshold"), sorted(THRESHOLDS.items()))
def test_bank_thresholds_by_dice_in_hand(in_hand: int, threshold: int) -> None:
    tables = turn_tables()
    assert tables.bank_threshold(in_hand) == threshold
    # A threshold rule: roll on below it, bank at it and at every total above (to the cap).
    for total in range(50, tables.cap + 1, 50):
        assert tables.should_bank(in_hand, total, True) == (total >= threshold), total


def test_before_entering_the_threshold_is_at_least_the_entry() -> None:
    tables = turn_tables()
    for in_hand, threshold in THRESHOLDS.items():
        assert tables.bank_threshold(in_hand, False) == max(1000, threshold)
