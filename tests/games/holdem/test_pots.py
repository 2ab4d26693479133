"""Pots from contributions, and splits in units of 10 with odd units left of the dealer."""

from __future__ import annotations

from dicehall.games.holdem.pots import Pot, pots_from, split


def test_one_pot_while_nobody_is_all_in_even_mid_round() -> None:
    pots = pots_from((20, 30, 10), (False, False, True), (100, 100, 100))
    assert pots == (Pot(60, (0, 1)),)


def test_each_all_in_level_makes_a_pot_and_folded_chips_stay_in() -> None:
    contributions = (40, 20, 30, 40, 35)
    folded = (False, False, False, False, True)
    stacks = (100, 0, 0, 0, 50)
    assert pots_from(contributions, folded, stacks) == (
        Pot(100, (0, 1, 2, 3)),  # 20 from each of five seats
        Pot(40, (0, 2, 3)),  # 10 from seats 0, 2, 3 and 4
        Pot(25, (0, 3)),  # 10 from seats 0 and 3, 5 from the folded seat 4
    )


def test_chips_nobody_matched_come_back_as_a_pot_of_their_own() -> None:
    pots = pots_from((20, 50), (False, False), (0, 450))
    assert pots == (Pot(40, (0, 1)), Pot(30, (1,)))


def test_split_in_units_with_odd_units_left_of_the_dealer() -> None:
    assert split(60, [0, 2], dealer=1, seats=3) == {2: 30, 0: 30}
    assert split(30, [0, 2], dealer=0, seats=3) == {2: 20, 0: 10}
    assert split(30, [0, 2], dealer=2, seats=3) == {0: 20, 2: 10}
    # Two odd units among three: the first two seats left of the dealer get one each.
    assert split(50, [0, 1, 2], dealer=2, seats=4) == {0: 20, 1: 20, 2: 10}
    assert split(50, [1, 3, 0], dealer=0, seats=4) == {1: 20, 3: 20, 0: 10}
