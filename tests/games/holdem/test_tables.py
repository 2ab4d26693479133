"""The fast rank tables agree with the reference ranking, exhaustively for five dice."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from dicehall.games.holdem.dice import KINDS
from dicehall.games.holdem.ranking import CATEGORIES, best_hand, rank_five
from dicehall.games.holdem.tables import BINOM, _index, code_of_rank, rank_batch, tables


def test_every_five_dice_hand_matches_the_reference() -> None:
    t = tables()
    mismatches = []
    for combo in itertools.combinations_with_replacement(range(24), 5):
        index = _index(np.array(combo, dtype=np.int64), BINOM)
        expected = rank_five([KINDS[k] for k in combo]).code()
        if int(t.keys[t.rank5[index]]) != expected:
            mismatches.append(combo)
    assert mismatches == []
    assert len(t.rank5) == 98_280


def test_best_of_seven_matches_the_reference_in_batch() -> None:
    rng = random.Random(7)
    hands = [[rng.randrange(24) for _ in range(7)] for _ in range(3000)]
    # A few hand-picked rare ones: a Yahtzee flush, a straight flush, a flush over four.
    hands += [[0, 0, 0, 0, 0, 1, 2], [1, 5, 9, 13, 17, 22, 3], [2, 2, 6, 10, 18, 3, 7]]
    ranks = rank_batch(np.array(hands))
    for hand, r in zip(hands, ranks, strict=True):
        assert code_of_rank(int(r)) == best_hand([KINDS[k] for k in hand]).rank.code()
    t = tables()
    assert CATEGORIES[int(t.category[ranks[-3]])] == "yahtzee_flush"


def test_rank_batch_checks_its_input() -> None:
    with pytest.raises(ValueError, match=r"shape \(n, 7\)"):
        rank_batch(np.zeros((3, 6), dtype=np.int64))
    with pytest.raises(ValueError, match="0 to 23"):
        rank_batch(np.full((1, 7), 24))
