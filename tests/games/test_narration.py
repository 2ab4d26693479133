"""The games' sentences where the issue asked for words: why a Hold'em hand won (the colour
tie-break too) and how a split pot was shared; where a Bull's Eye split pot's odd chip went;
the one format of every game's final lines."""

from __future__ import annotations

from dicehall import games
from dicehall.games.feed import tell
from dicehall.games.holdem.model import HandEnd, PotResult, Showing
from dicehall.games.holdem.narration import hand_end
from dicehall.games.narration import YOU, final_lines
from tests.games.bullseye.helpers import BullseyeTable, lead_sets, new_table, seat_plays

NAMES = ["alice", "bob", "carol"]


def _end(showdown: tuple[Showing, ...], pot: PotResult) -> HandEnd:
    board = ("6r", "5r", "4r", "3k", "1y")
    return HandEnd(3, board, showdown, (pot,), (0, 0, 0), False, ())


def texts(end: HandEnd, names: list[str] = NAMES) -> list[str]:
    return [line.text for line in hand_end(end, names)]


def test_equal_straights_are_told_apart_by_colour() -> None:
    alice = Showing(0, ("2r", "1w"), ("6r", "5r", "4r", "3k", "2r"), "straight")
    bob = Showing(1, ("2w", "2y"), ("6r", "5r", "4r", "3k", "2w"), "straight")
    told = texts(_end((alice, bob), PotResult(40, (0, 1), (0,), (40,))))
    assert told[-1] == (
        "The pot of 40 goes to alice: alice's straight and bob's have the same faces "
        "(6 5 4 3 2); the tie-break is colour: 4 dice of one colour beat 3."
    )


def test_a_higher_category_and_higher_faces_say_so() -> None:
    alice = Showing(0, ("2r", "1w"), ("6r", "5r", "4r", "3k", "2r"), "straight")
    bob = Showing(1, ("6w", "6y"), ("6w", "6y", "6r", "5r", "4r"), "three_kind")
    told = texts(_end((alice, bob), PotResult(40, (0, 1), (0,), (40,))), [YOU, "bob", "c"])
    assert told[-1] == "The pot of 40 goes to you: your straight beats bob's three of a kind."
    high = Showing(0, ("6k", "6w"), ("6r", "6k", "6w", "5r", "4r"), "three_kind")
    low = Showing(1, ("5k", "5w"), ("5r", "5k", "5w", "6r", "4r"), "three_kind")
    told = texts(_end((high, low), PotResult(40, (0, 1), (0,), (40,))))
    assert told[-1] == (
        "The pot of 40 goes to alice: alice's three of a kind (6 6 6 5 4) beats bob's "
        "(5 5 5 6 4) on the faces."
    )


def test_a_split_pot_says_so_and_where_the_odd_unit_went() -> None:
    alice = Showing(0, ("2r", "1w"), ("6r", "5r", "4r", "3k", "2r"), "straight")
    bob = Showing(1, ("2k", "1y"), ("6r", "5r", "4r", "3k", "2k"), "straight")
    told = texts(_end((alice, bob), PotResult(30, (0, 1), (1, 0), (20, 10))))
    assert told[-1] == (
        "The pot of 30 is split between bob and alice (bob 20, alice 10): their hands are "
        "equal in category, faces and colour; the odd unit of 10 goes to bob, first left of "
        "the dealer."
    )
    even = texts(_end((alice, bob), PotResult(40, (0, 1), (0, 1), (20, 20))))
    assert even[-1].endswith(
        "(alice 20, bob 20): their hands are equal in category, faces and colour."
    )


def test_an_uncontested_pot_shows_no_dice() -> None:
    end = HandEnd(1, (), (), (PotResult(30, (0, 1, 2), (2,), (30,)),), (0, 0, 30), False, ())
    lines = hand_end(end, NAMES)
    assert [line.text for line in lines] == [
        "The pot of 30 goes to carol unseen: everyone else folded."
    ]
    assert all(not line.dice for line in lines)


def bullseye_story(table: BullseyeTable) -> list[str]:
    entry = games.get("bullseye")
    names = ["ann", "ben", "cat", "dan"]
    told = tell(entry, table.options, table.seats, table.events, None, names)
    return [line.text for t in told for line in t.lines]


def test_a_bullseye_split_pot_says_where_the_odd_chip_went() -> None:
    # As the rules' test: seats 1 and 2 tie on 30 and split 11 chips; 1 is carried over.
    table = new_table(4, lead=0)
    lead_sets(table)
    seat_plays(table, (4, 5, 6), (2, 4), bets=(3,))
    seat_plays(table, (4, 5, 6), (1, 5), bets=(4,))
    seat_plays(table, (1, 2, 3), bets=(4,))
    assert table.state.history[-1].carried == 1
    story = bullseye_story(table)
    assert "ben and cat tie on 30 and split the pot of 11 chips: 5 each." in story
    assert "The odd chip is carried over to the next round's pot." in story


def test_at_the_end_the_odd_chip_goes_to_the_first_winner_left_of_the_last_lead() -> None:
    table = new_table(3, lead=0, rounds=1)
    lead_sets(table)
    seat_plays(table, (4, 5, 6), (2, 4), bets=(3,))  # 30 points
    seat_plays(table, (4, 5, 6), (1, 5), bets=(4,))  # 30 points
    summary = table.state.history[-1]
    assert table.state.round is None and summary.carried == 0 and summary.won == (0, 4, 3)
    story = bullseye_story(table)
    assert "ben and cat tie on 30 and split the pot of 7 chips: 3 each." in story
    assert (
        "The game is over, so what was left in the pot (1 chip) goes to its winners: ben +1 "
        "(the odd chip to ben, the first winner left of the last lead)." in story
    )


def test_final_lines_are_one_format_for_every_game() -> None:
    assert [
        line.text for line in final_lines([1], [9800, 10250], [YOU, "heuristic bot"], "point")
    ] == [
        "Final: You 9,800 points, heuristic bot 10,250 points.",
        "heuristic bot won.",
    ]
    assert [line.text for line in final_lines([0, 1], [2, 2, 1], [YOU, "bob", "cat"], "horse")] == [
        "Final: You 2 horses, bob 2 horses, cat 1 horse.",
        "You and bob shared the win.",
    ]
    assert (
        final_lines([0, 1], [5, 5], ["a", "b"], "chip")[1].text
        == "A draw: everyone shared the win."
    )
