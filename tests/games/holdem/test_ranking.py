"""Hand ranking: the category order, each tie-break key, and the best five of seven."""

from __future__ import annotations

import pytest

from dicehall.engine.errors import InvalidInput
from dicehall.games.holdem.dice import bag_after, check_bag, kind, parse_dice
from dicehall.games.holdem.ranking import CATEGORIES, HandRank, best_hand, rank_five


def rank(text: str) -> HandRank:
    return rank_five(parse_dice(text))


# One hand per category, highest first (RULES.md section 4).
ORDER = [
    ("yahtzee_flush", "2r,2r,2r,2r,2r"),
    ("straight_flush", "1k,2k,3k,4k,5k"),
    ("five_kind", "6r,6k,6w,6y,6r"),
    ("flush", "1w,1w,3w,4w,6w"),
    ("four_kind", "6r,6k,6w,6y,5r"),
    ("straight", "2r,3k,4w,5y,6r"),
    ("full_house", "6r,6k,6w,5y,5r"),
    ("three_kind", "6r,6k,6w,5y,4r"),
    ("two_pair", "6r,6k,5w,5y,4r"),
    ("one_pair", "6r,6k,5w,4y,3r"),
    ("nothing", "6r,5k,4w,3y,1r"),
]


def test_the_category_order() -> None:
    ranks = [rank(dice) for _, dice in ORDER]
    assert [r.name for r in ranks] == [name for name, _ in ORDER]
    assert ranks == sorted(ranks, reverse=True)
    assert len(set(ranks)) == len(ranks)
    # Every category above beats every hand below, whatever their faces.
    assert rank("1r,1k,2w,2y,3r") > rank("6r,5k,4w,3y,1r")  # low two pair > high nothing
    assert rank("1r,2k,3w,4y,5r") > rank("6r,6k,6w,5y,5k")  # low straight > best full house
    assert rank("1w,2w,3w,4w,6w") > rank("6r,6k,6w,6y,5k")  # low flush > four sixes
    assert [name for name, _ in ORDER] == list(reversed(CATEGORIES))


def test_a_straight_beats_a_full_house_as_in_the_seed() -> None:
    a = best_hand(parse_dice("3r,2k,4r,4k,2w,1y,5k"))
    c = best_hand(parse_dice("1k,1w,4r,4k,2w,1y,5k"))
    assert a.rank.name == "straight" and c.rank.name == "full_house"
    assert a.rank > c.rank


def test_faces_compare_groups_first() -> None:
    # Full house 4s over 3s beats 2s over 6s (the seed's example).
    assert rank("4r,4k,4w,3y,3r") > rank("2r,2k,2w,6y,6r")
    assert rank("4r,4k,4w,3y,3r").faces == (4, 4, 4, 3, 3)
    assert rank("2r,2k,2w,6y,6r").faces == (2, 2, 2, 6, 6)
    # Two pair: the higher pair, then the lower pair, then the odd die.
    assert rank("6r,6k,1w,1y,2r") > rank("5r,5k,4w,4y,6r")
    assert rank("6r,6k,3w,3y,1r") > rank("6w,6y,2w,2y,5r")
    assert rank("6r,6k,3w,3y,5r") > rank("6w,6y,3k,3r,4r")
    # Four of a kind by its face, then the fifth die.
    assert rank("3r,3k,3w,3y,1r") > rank("2r,2k,2w,2y,6r")
    assert rank("3r,3k,3w,3y,5r") > rank("3r,3k,3w,3y,4r")
    # Nothing and one pair: the rest high to low.
    assert rank("6r,5k,4w,2y,1r") > rank("6r,5k,3w,2y,1r")
    assert rank("2r,2k,6w,4y,3r") > rank("2r,2k,6w,4y,1r")


def test_a_straight_ranks_by_its_top_die() -> None:
    assert rank("2r,3k,4w,5y,6r") > rank("1r,2k,3w,4y,5r")
    assert rank("2r,3k,4w,5y,6r").faces == (6, 5, 4, 3, 2)
    assert rank("2k,3k,4k,5k,6k") > rank("1w,2w,3w,4w,5w")


def test_flushes_compare_faces_with_groups_first() -> None:
    assert rank("3w,3w,6w,5w,1w").faces == (3, 3, 6, 5, 1)
    assert rank("6k,5k,4k,2k,1k") > rank("3w,3w,6w,5w,1w")


def test_colour_breaks_a_tie_of_faces_then_it_is_a_split() -> None:
    three_red = rank("6r,6r,6r,5y,5k")
    two_red = rank("6r,6k,6r,5y,5w")
    assert three_red.faces == two_red.faces
    assert (three_red.colour, two_red.colour) == (3, 2)
    assert three_red > two_red
    assert rank("6r,6k,6w,5y,5r") == rank("6k,6w,6y,5r,5k")


def test_best_of_seven_uses_all_three_keys() -> None:
    # Four sixes and a 5 either way; the red 5 makes three red dice and wins the colour key.
    best = best_hand(parse_dice("6r,6r,6k,6w,5r,5y,1k"))
    assert best.rank.name == "four_kind" and best.rank.faces == (6, 6, 6, 6, 5)
    assert best.rank.colour == 3
    assert sorted(best.five) == sorted(["6r", "6r", "6k", "6w", "5r"])
    # Pockets may be left out: the board plays.
    board = best_hand(parse_dice("1k,1w,2r,3r,4r,5r,6r"))
    assert board.rank.name == "straight_flush" and board.rank.faces == (6, 5, 4, 3, 2)
    # Best of seven is never below two pair or a straight.
    assert best_hand(parse_dice("1r,2k,3w,4y,6r,6k,1w")).rank.name == "two_pair"


def test_rank_five_and_best_hand_reject_wrong_counts() -> None:
    with pytest.raises(ValueError):
        rank_five(parse_dice("1r,2r,3r,4r"))
    with pytest.raises(ValueError):
        best_hand(parse_dice("1r,2r,3r,4r,5r,6r,1k,2k"))


def test_notation() -> None:
    assert parse_dice("6r, 6K 2w") == ("6r", "6k", "2w")
    assert kind("1r") == 0 and kind("6y") == 23 and kind("2k") == 5
    assert bag_after(["6r", "r", "5k"]) == ("r",) * 3 + ("k",) * 4 + ("w",) * 5 + ("y",) * 5
    for bad, message in (
        ("6x", "'6x' is not a die"),
        ("7r", "'7r' is not a die"),
        ("r6", "'r6' is not a die"),
        ("66r", "'66r' is not a die"),
    ):
        with pytest.raises(InvalidInput, match=message):
            parse_dice(bad)
    with pytest.raises(InvalidInput, match="expected 2 dice, got 3"):
        parse_dice("1r,2r,3r", min_count=2, max_count=2)
    with pytest.raises(InvalidInput, match="6 red dice, but the bag has only 5"):
        check_bag(parse_dice("1r,2r,3r,4r,5r,6r"))
