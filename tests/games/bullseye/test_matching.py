"""The matching rule on crafted dice, and the exact distribution it gives a counted throw."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from itertools import combinations

import pytest

from dicehall.engine.chance import Roll
from dicehall.engine.dice import Scripted, Seeded, resolve_request
from dicehall.engine.errors import IllegalMove, InvalidOutcome
from dicehall.engine.game import Chance, ToAct
from dicehall.games.bullseye import GAME, Stop, ThrowOn
from dicehall.games.bullseye.scoring import shared_positions
from dicehall.games.bullseye.throws import counted_distribution, expected_rolls
from tests.games.bullseye.helpers import BullseyeTable, lead_sets, new_table


def _serve(table: BullseyeTable, source: Scripted) -> None:
    """Answer chance requests from ``source`` until a seat must act."""
    while isinstance(turn := table.turn(), Chance):
        table.resolve(resolve_request(source, turn.request))


def test_shared_positions() -> None:
    assert shared_positions((1, 2, 3)) == ()
    assert shared_positions((4, 2, 4)) == (0, 2)
    assert shared_positions((5, 5, 5)) == (0, 1, 2)
    assert shared_positions((3, 3)) == (0, 1)
    assert shared_positions((6,)) == ()


def test_a_pair_rerolls_exactly_the_two_matching_dice() -> None:
    table = new_table(3, lead=0)
    table.resolve((4, 1, 4))
    assert table.turn() == Chance(Roll(2))
    table.resolve((6, 3))
    rnd = table.state.round
    assert rnd is not None and rnd.dice == (6, 1, 3)  # the 1 stayed where it was
    assert rnd.counted[0] == ((6, 1, 3),)
    assert table.turn() == ToAct(0)


def test_three_of_a_kind_rerolls_all_three() -> None:
    table = new_table(3, lead=0)
    source = Scripted([(5, 5, 5), (2, 2, 2), (6, 1, 4)])
    table.resolve(source.roll(3))
    assert table.turn() == Chance(Roll(3))
    table.resolve(source.roll(3))
    assert table.turn() == Chance(Roll(3))
    table.resolve(source.roll(3))
    rnd = table.state.round
    assert rnd is not None and rnd.counted[0] == ((6, 1, 4),) and source.remaining == 0


def test_a_reroll_that_matches_the_kept_die_rerolls_it_too() -> None:
    table = new_table(3, lead=0)
    source = Scripted([(4, 4, 2), (2, 5), (1, 6)])
    table.resolve(source.roll(3))
    table.resolve(source.roll(2))  # 2 5 2: the new 2 matches the kept 2
    rnd = table.state.round
    assert rnd is not None and rnd.dice == (2, 5, 2) and rnd.counted[0] == ()
    assert table.turn() == Chance(Roll(2))
    table.resolve(source.roll(2))  # the two 2s are re-rolled; the 5 stays
    rnd = table.state.round
    assert rnd is not None and rnd.dice == (1, 5, 6) and rnd.counted[0] == ((1, 5, 6),)


def test_a_reroll_can_turn_a_pair_into_three_of_a_kind() -> None:
    table = new_table(3, lead=0)
    _serve(table, Scripted([(3, 3, 6), (6, 6), (1, 2, 5)]))
    rnd = table.state.round
    assert rnd is not None and rnd.counted[0] == ((1, 2, 5),)


def test_a_pair_on_two_dice_rerolls_both_and_one_die_always_counts() -> None:
    table = new_table(3, lead=0)
    lead_sets(table)
    table.resolve((1, 2, 6))
    table.act(1, ThrowOn())
    table.resolve((3, 3))
    assert table.turn() == Chance(Roll(2))
    table.resolve((4, 4))
    table.resolve((5, 6))
    table.act(1, ThrowOn())
    table.resolve((6,))  # matches an earlier throw's die: no matter, only one die is thrown
    rnd = table.state.round
    assert rnd is not None and rnd.counted[1] == ((1, 2, 6), (5, 6), (6,))
    assert table.turn() == ToAct(1)


def test_nobody_may_act_before_the_throw_counts() -> None:
    table = new_table(3, lead=0)
    lead_sets(table)
    table.resolve((2, 2, 5))
    before = table.state
    for seat in range(3):
        assert GAME.legal(table.state, seat) == ()
    with pytest.raises(IllegalMove, match="dice must be rolled"):
        table.act(1, ThrowOn())
    with pytest.raises(InvalidOutcome, match="expected 2 results"):
        table.resolve((1, 3, 4))
    assert table.state == before


# -- the distribution of a counted throw -----------------------------------------------------


@pytest.mark.parametrize(("dice", "sets"), [(1, 6), (2, 15), (3, 20)])
def test_a_counted_throw_is_uniform_over_sets_of_different_faces(dice: int, sets: int) -> None:
    # Solved from the re-roll chain, not assumed: uniformity follows from face symmetry.
    dist = counted_distribution(dice)
    assert set(dist) == set(combinations(range(1, 7), dice))
    assert set(dist.values()) == {Fraction(1, sets)}


def test_expected_rolls_per_counted_throw() -> None:
    # Every roll (first or re-roll) of 3 dice ends the throw with chance 5/9, of 2 dice 5/6.
    assert expected_rolls(3) == Fraction(9, 5)
    assert expected_rolls(2) == Fraction(6, 5)
    assert expected_rolls(1) == 1


def test_counted_throws_in_play_match_the_exact_distribution() -> None:
    source = Seeded(2024)
    seen: Counter[tuple[int, ...]] = Counter()
    rolls = 0
    table = new_table(3, lead=0, rounds=0, target_points=10**6)
    # Every counted throw here has three dice: the lead's three, and the others stop at once.
    while len(table.state.history) < 1200:
        turn = table.turn()
        if isinstance(turn, Chance):
            rolls += 1
            table.resolve(resolve_request(source, turn.request))
            continue
        assert isinstance(turn, ToAct)
        rnd = table.state.round
        assert rnd is not None
        seen[tuple(sorted(rnd.dice))] += 1
        lead_goes_on = turn.seat == rnd.lead and len(rnd.counted[rnd.lead]) < 3
        table.act(turn.seat, ThrowOn() if lead_goes_on else Stop())
    n = sum(seen.values())
    assert n == 5 * 1200
    expected = counted_distribution(3)
    chi2 = sum((seen[k] - n * float(p)) ** 2 / (n * float(p)) for k, p in expected.items())
    assert set(seen) == set(expected)
    assert chi2 < 50, chi2  # 19 degrees of freedom: beyond 50 has p < 1e-4
    assert abs(rolls / n - 9 / 5) < 0.05
