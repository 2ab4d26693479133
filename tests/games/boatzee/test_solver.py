"""The exact solver: the keep lattice, pruning, small games against plain expectimax, and
the published optima of the full games."""

from __future__ import annotations

from collections.abc import Mapping
from itertools import combinations_with_replacement
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dicehall.games.boatzee import table_cache
from dicehall.games.boatzee.card import Card, Ruleset
from dicehall.games.boatzee.dice_tables import KEEPS, transitions
from dicehall.games.boatzee.keeps import FIRST_HAND, SENTINEL, lattice
from dicehall.games.boatzee.scoring import BOX_INDEX, BOXES, HANDS, SCORES
from dicehall.games.boatzee.solver import layers, reachable_uppers, solve
from tests.games.boatzee.helpers import make_card
from tests.games.boatzee.reference import Reference
from tests.games.boatzee.solved import solved, solved_dir

__all__ = ["solved", "solved_dir"]


def test_keep_lattice_rolls_one_die_at_a_time() -> None:
    # Averaging over one more die, level by level, rebuilds the keep -> hand chances.
    lat = lattice()
    chances = np.zeros((len(KEEPS), len(HANDS)))
    chances[FIRST_HAND:] = np.eye(len(HANDS))
    for k in range(FIRST_HAND - 1, -1, -1):
        chances[k] = chances[lat.grow[k]].mean(axis=0)
    assert np.allclose(chances, transitions())


def test_keep_lattice_shrinks_to_every_smaller_keep() -> None:
    lat = lattice()
    for k, keep in enumerate(KEEPS):
        smaller = {KEEPS[c] for c in lat.shrink[k] if c != SENTINEL}
        expected = {keep[:i] + keep[i + 1 :] for i in range(len(keep))}
        assert smaller == expected
        assert lat.shrink_count[k] == len(expected) == len(set(keep))
        assert list(lat.shrink[k, len(expected) :]) == [SENTINEL] * (5 - len(expected))


def test_reachable_upper_totals() -> None:
    reach = reachable_uppers()
    assert list(np.nonzero(reach[0])[0]) == [0]
    assert list(np.nonzero(reach[0b000001])[0]) == [0, 1, 2, 3, 4, 5]
    assert list(np.nonzero(reach[0b100000])[0]) == [0, 6, 12, 18, 24, 30]
    # Fives and sixes: 5a + 6b for a, b in 0..5.
    fives_sixes = sorted({5 * a + 6 * b for a in range(6) for b in range(6)})
    assert list(np.nonzero(reach[0b110000])[0]) == fives_sixes
    assert reach[63, 63] and not reach[0b000011, 16]


def test_layers_leave_out_what_cannot_happen_and_share_dead_totals() -> None:
    found = layers("boatzee")
    assert len(found) == 13
    states = np.concatenate([layer.states for layer in found])
    copies = np.concatenate([layer.copies for layer in found])
    assert len({tuple(row) for row in states}) == len(states)
    assert [0, 0, 0] in states.tolist()
    reach = reachable_uppers()
    assert all(reach[m & 63, u] for m, u, _ in states.tolist())
    # A copied total is one from which 63 is out of reach, like the total it copies.
    for mask, upper, source in copies[:: max(1, len(copies) // 500)].tolist():
        room = sum(5 * f for f in range(1, 7) if not mask >> (f - 1) & 1)
        assert upper + room < 63 and source + room < 63 and reach[mask & 63, upper]
    yahtzee = np.concatenate([layer.states for layer in layers("yahtzee")])
    fifty = yahtzee[yahtzee[:, 2] == 1]
    assert len(fifty) and all(m & 1 << BOX_INDEX["boatzee"] for m in fifty[:, 0])
    assert len(yahtzee) == len(states) + len(fifty)


def _reduced(
    ruleset: Ruleset, open_boxes: set[str], values: Mapping[str, int], multiplier: int = 1
) -> tuple[float, float, float, float]:
    """(solver mean, reference mean, solver std, reference std) for a small game.

    The other boxes hold ``values`` (0 when not given); with a multiplier the game is column
    ``multiplier`` of a card whose other columns are full, for the reference.
    """
    filled: dict[tuple[str, int], int] = {
        (box, multiplier): values.get(box, 0) for box in BOXES if box not in open_boxes
    }
    filled |= {(box, k): 0 for k in range(1, multiplier) for box in BOXES}
    card: Card = make_card(multiplier, filled)
    reference = Reference(ruleset).future(card)
    mask = sum(1 << BOX_INDEX[box] for box in BOXES if box not in open_boxes)
    solution = solve(ruleset, multiplier, filled=mask)
    upper = min(63, sum(v for box, v in values.items() if BOX_INDEX[box] < 6))
    fifty = int(ruleset == "yahtzee" and values.get("boatzee") == 50)
    mean = float(solution.values[fifty, mask, upper])
    if upper == 0 and fifty == 0:
        return mean, reference.mean, solution.std, reference.std
    return mean, reference.mean, np.nan, np.nan


CASES = [
    ("boatzee", {"ones", "chance"}, {}, 1),
    ("boatzee", {"fives", "sixes", "small_straight"}, {"ones": 4, "twos": 8, "threes": 12}, 1),
    ("boatzee", {"boatzee", "full_house", "fours"}, {}, 1),
    # The forced joker and the 100 bonus: 50 in the Boatzee box, then 0 there.
    ("yahtzee", {"fours", "full_house", "large_straight"}, {"boatzee": 50}, 1),
    ("yahtzee", {"threes", "small_straight"}, {"boatzee": 0, "fours": 20}, 1),
    ("yahtzee", {"threes", "boatzee", "chance"}, {}, 1),
    # Joker with every lower box filled: the matching upper box, else a zero.
    ("yahtzee", {"ones", "twos"}, {"boatzee": 50}, 1),
    # Column 3 of Triple: boxes count three times, the upper bonus once.
    ("boatzee", {"sixes", "three_kind"}, {"fives": 25, "fours": 20}, 3),
    ("yahtzee", {"twos", "boatzee"}, {"sixes": 30, "fives": 25}, 2),
]


@pytest.mark.parametrize(("ruleset", "open_boxes", "values", "multiplier"), CASES)
def test_small_games_match_plain_expectimax(
    ruleset: Ruleset, open_boxes: set[str], values: dict[str, int], multiplier: int
) -> None:
    mean, expected, std, expected_std = _reduced(ruleset, open_boxes, values, multiplier)
    assert mean == pytest.approx(expected, rel=1e-12, abs=1e-9)
    if not np.isnan(expected_std):
        assert std == pytest.approx(expected_std, rel=1e-9)


@settings(max_examples=8, deadline=None)
@given(
    ruleset=st.sampled_from(["boatzee", "yahtzee"]),
    open_boxes=st.sets(st.sampled_from(BOXES), min_size=1, max_size=2),
    hand=st.sampled_from(list(combinations_with_replacement(range(1, 7), 5))),
)
def test_random_small_games_match_plain_expectimax(
    ruleset: Ruleset, open_boxes: set[str], hand: tuple[int, ...]
) -> None:
    # The filled boxes hold what one hand scores there (Boatzee: 50 or 0 as it falls).
    row = SCORES[HANDS.index(hand)]
    values: dict[str, int] = {box: row[i] for i, box in enumerate(BOXES) if box not in open_boxes}
    mean, expected, _, _ = _reduced(ruleset, open_boxes, values)
    assert mean == pytest.approx(expected, rel=1e-12, abs=1e-9)


def test_solve_rejects_what_it_cannot_solve() -> None:
    with pytest.raises(ValueError, match="ruleset"):
        solve("poker")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="multiplier"):
        solve("boatzee", 4)


def test_full_games_reach_the_published_optima(solved: Path) -> None:
    boatzee = table_cache.table("boatzee")
    yahtzee = table_cache.table("yahtzee")
    assert f"{boatzee.expected:.6f}" == "245.870775"
    assert f"{yahtzee.expected:.4f}" == "254.5877"
    assert float(boatzee.values[0, 0, 0]) == boatzee.expected
    assert 30 < boatzee.std < 50 and 50 < yahtzee.std < 70
    assert boatzee.seconds > 0


def test_every_state_play_reaches_is_solved(solved: Path) -> None:
    # NaN marks states the solver left out; play must never reach one.
    for ruleset in ("boatzee", "yahtzee"):
        values = table_cache.table(ruleset).values
        assert not np.isnan(values[0, 0, 0])
        for upper_mask in range(64):
            for upper in np.nonzero(reachable_uppers()[upper_mask])[0]:
                for lower in (0, 0b1010101, 0b1111111):
                    mask = upper_mask | lower << 6
                    assert not np.isnan(values[0, mask, upper])
                    if ruleset == "yahtzee" and mask & 1 << BOX_INDEX["boatzee"]:
                        assert not np.isnan(values[1, mask, upper])
        assert np.all(values[:, (1 << 13) - 1, :] == 0.0)


def test_the_x2_and_x3_tables_count_boxes_but_not_bonuses_twice(solved: Path) -> None:
    one, two, three = (table_cache.table("boatzee", k).values for k in (1, 2, 3))
    # Only Chance open: the multiplier scales it exactly.
    chance_only = ((1 << 13) - 1) ^ 1 << BOX_INDEX["chance"]
    assert two[0, chance_only, 0] == pytest.approx(2 * one[0, chance_only, 0])
    assert three[0, chance_only, 0] == pytest.approx(3 * one[0, chance_only, 0])
    # Whole games: more than k times the boxes' share, less than k times everything.
    assert 2 * one[0, 0, 0] - 35 < two[0, 0, 0] < 2 * one[0, 0, 0]
    assert 3 * one[0, 0, 0] - 70 < three[0, 0, 0] < 3 * one[0, 0, 0]
