"""The game on the contract: options, the turn as the site plays it, errors, the end."""

from __future__ import annotations

from dataclasses import replace

import pytest

from dicehall import games
from dicehall.engine import (
    Chance,
    Finished,
    IllegalMove,
    InvalidOptions,
    InvalidOutcome,
    Roll,
    Table,
    ToAct,
    codec,
)
from dicehall.games.boatzee import BOTS, GAME, BoatzeeOptions, BoatzeeState, Reroll, Score
from dicehall.games.boatzee.card import total
from tests.games.boatzee.helpers import full_except, make_card


def new_table(seats: int = 1, **options: object) -> Table[BoatzeeState, Reroll | Score]:
    return Table(GAME, seats, GAME.options(options))


def test_registry_entry_and_rules_text() -> None:
    entry = games.get("boatzee")
    assert entry.game is GAME
    assert set(entry.bots) == {"random", "greedy", "heuristic", "optimal", "strong", "winmax"}
    assert set(BOTS) == {"greedy", "heuristic", "optimal", "strong", "winmax"}
    text = entry.rules
    for word in ("columns", "ruleset", "joker", "63", "126", "start this move over"):
        assert word.lower() in text.lower()


def test_options_and_seats() -> None:
    assert GAME.options({}) == BoatzeeOptions(1, "boatzee")
    assert GAME.options({"columns": "3", "ruleset": "yahtzee"}) == BoatzeeOptions(3, "yahtzee")
    for bad, message in [
        ({"columns": "4"}, "1, 2 or 3"),
        ({"columns": "0"}, "1, 2 or 3"),
        ({"columns": "two"}, "whole number"),
        ({"ruleset": "kniffel"}, "boatzee, yahtzee"),
        ({"colour": "red"}, "unknown option"),
    ]:
        with pytest.raises(InvalidOptions, match=message):
            GAME.options(bad)
    with pytest.raises(InvalidOptions, match="1, 2 or 3"):
        BoatzeeOptions(columns=True)
    for seats in (0, 9):
        with pytest.raises(InvalidOptions, match="1 to 8 seats"):
            GAME.start(seats, BoatzeeOptions())
    assert len(GAME.start(8, BoatzeeOptions()).cards) == 8


def test_turn_rolls_five_then_rerolls_only_the_selected_positions() -> None:
    table = new_table()
    assert table.turn() == Chance(Roll(5))
    table.resolve((1, 2, 3, 4, 5))
    assert table.turn() == ToAct(0)
    assert GAME.view(table.state, 0).rerolls_left == 2
    table.act(0, Reroll((1, 3)))
    assert table.turn() == Chance(Roll(2))
    table.resolve((6, 6))
    assert table.state.dice == (1, 6, 3, 6, 5)
    assert GAME.view(table.state, 0).rerolls_left == 1
    table.act(0, Reroll((0, 1, 2, 3, 4)))
    table.resolve((2, 2, 2, 2, 2))
    assert table.state.dice == (2, 2, 2, 2, 2)
    assert GAME.view(table.state, 0).rerolls_left == 0


def test_at_most_two_rerolls_a_fourth_roll_is_refused() -> None:
    table = new_table()
    table.resolve((1, 2, 3, 4, 5))
    table.act(0, Reroll((0,)))
    table.resolve((6,))
    table.act(0, Reroll((0,)))
    table.resolve((5,))
    assert not any(isinstance(a, Reroll) for a in GAME.legal(table.state, 0))
    before = table.state
    with pytest.raises(IllegalMove, match="no re-rolls left"):
        table.act(0, Reroll((0,)))
    assert table.state == before


def test_scoring_is_allowed_after_any_roll() -> None:
    table = new_table()
    table.resolve((3, 3, 3, 5, 5))
    legal = GAME.legal(table.state, 0)
    assert Score("full_house") in legal and Reroll((0, 1)) in legal
    table.act(0, Score("full_house"))
    assert table.state.cards[0].boxes[0][8] == 25
    table.resolve((1, 2, 3, 4, 6))
    table.act(0, Reroll((4,)))
    table.resolve((5,))
    table.act(0, Score("large_straight"))
    assert total(table.state.cards[0]) == 65


def test_a_reroll_is_final_the_moment_it_is_made() -> None:
    table = new_table()
    table.resolve((6, 6, 6, 6, 1))
    table.act(0, Reroll((0,)))
    # Saved and reloaded (leaving and returning), the game still waits for the new die...
    saved = codec.loads(codec.dumps(table.state), BoatzeeState)
    assert GAME.turn(saved) == Chance(Roll(1))
    # ...and nothing the player may do brings the old dice back: no action is possible.
    for seat in (0,):
        assert GAME.legal(saved, seat) == ()
        with pytest.raises(IllegalMove, match="dice must be rolled"):
            GAME.act(saved, seat, Score("sixes"))
    table.resolve((2,))
    assert table.state.dice == (2, 6, 6, 6, 1)
    assert GAME.view(table.state, 0).rerolls_left == 1


def test_every_turn_fills_exactly_one_box_and_passes_the_turn() -> None:
    table = new_table(2, columns=2)
    table.resolve((4, 4, 4, 1, 2))
    table.act(0, Score("fours", 2))
    card = table.state.cards[0]
    assert card.boxes[1][3] == 12 and sum(v is not None for c in card.boxes for v in c) == 1
    assert total(card) == 24
    assert table.turn() == Chance(Roll(5))
    table.resolve((1, 1, 1, 1, 1))
    assert table.turn() == ToAct(1)
    assert table.state.turns == 1


def test_illegal_moves_raise_a_readable_reason_and_change_nothing() -> None:
    table = new_table(2, columns=2)
    table.resolve((3, 3, 3, 5, 5))
    table.act(0, Score("chance", 1))
    table.resolve((1, 1, 2, 2, 3))
    table.act(1, Score("chance", 1))
    table.resolve((3, 3, 3, 5, 5))
    state = table.state
    cases: list[tuple[int, object, str]] = [
        (0, Score("chance", 1), "Chance in column 1 is already filled"),
        (0, Score("chance", 3), "no column 3: columns are 1 to 2"),
        (0, Score("chance", 0), "no column 0"),
        (0, Score("yacht", 1), "'yacht' is not a box"),  # type: ignore[arg-type]
        (0, Reroll(()), "at least one die"),
        (0, Reroll((5,)), "positions must be 0 to 4"),
        (0, Reroll((2, 1)), "increasing order"),
        (0, Reroll((1, 1)), "each at most once"),
        (0, "pass", "not a Boatzee move"),
        (1, Score("ones", 1), "it is seat 1's turn, not seat 2's"),
    ]
    for seat, action, reason in cases:
        with pytest.raises(IllegalMove, match=reason) as info:
            GAME.act(state, seat, action)  # type: ignore[arg-type]
        assert info.value.reason
        assert table.state == state
    one_column = new_table()
    one_column.resolve((3, 3, 3, 5, 5))
    with pytest.raises(IllegalMove, match="this game has one column"):
        one_column.act(0, Score("chance", 2))


def test_no_one_acts_while_dice_are_pending() -> None:
    table = new_table(2)
    with pytest.raises(IllegalMove, match="dice must be rolled"):
        table.act(0, Score("chance"))
    assert GAME.legal(table.state, 0) == () and GAME.legal(table.state, 1) == ()


def _nearly_done(seats: int, open_box: str, value: int) -> BoatzeeState:
    start = GAME.start(seats, BoatzeeOptions())
    cards = tuple(full_except(1, {(open_box, 1)}, value=value) for _ in range(seats))
    return replace(start, cards=cards, turns=seats * 13 - seats)


def test_highest_total_wins_and_result_reports_totals_and_turns() -> None:
    state = _nearly_done(2, "chance", 1)
    table = new_table(2)
    table.state = state
    table.resolve((6, 6, 6, 6, 5))
    table.act(0, Score("chance"))
    table.resolve((1, 1, 1, 1, 2))
    table.act(1, Score("chance"))
    turn = table.turn()
    assert isinstance(turn, Finished)
    assert turn.result.winners == (0,)
    assert turn.result.scores == (12 + 29, 12 + 6)
    assert turn.result.turns == 26
    with pytest.raises(IllegalMove, match="the game is over"):
        table.act(0, Score("chance"))
    assert GAME.view(table.state, None).finished


def test_equal_totals_draw() -> None:
    table = new_table(3)
    table.state = _nearly_done(3, "chance", 2)
    for seat, dice in enumerate([(6, 6, 6, 6, 5), (5, 6, 6, 6, 6), (1, 1, 1, 1, 1)]):
        table.resolve(dice)
        table.act(seat, Score("chance"))
    turn = table.turn()
    assert isinstance(turn, Finished)
    assert turn.result.winners == (0, 1)
    assert turn.result.scores == (24 + 29, 24 + 29, 24 + 5)


def test_double_game_bonus_through_play() -> None:
    card = make_card(2, {("sixes", 2): 30, ("fives", 2): 25})
    table = new_table(1, columns=2)
    table.state = replace(table.state, cards=(card,))
    table.resolve((4, 4, 1, 2, 3))
    table.act(0, Score("fours", 2))
    assert total(table.state.cards[0]) == 2 * 63 + 35


def test_views_are_complete_and_identical_for_every_viewer() -> None:
    table = new_table(2, columns=3, ruleset="yahtzee")
    table.resolve((1, 2, 3, 4, 5))
    views = [GAME.view(table.state, seat) for seat in (None, 0, 1)]
    assert {replace(v, seat=None) for v in views} == {views[0]}
    view = views[1]
    assert view.dice == (1, 2, 3, 4, 5) and view.current == 0 and view.totals == (0, 0)
    assert view.options == BoatzeeOptions(3, "yahtzee") and not view.finished


def test_bad_dice_outcomes_are_refused_and_change_nothing() -> None:
    table = new_table()
    state = table.state
    for bad in [(1, 2, 3), (1, 2, 3, 4, 7), (0, 1, 2, 3, 4), (1, 2, 3, 4, 5, 6)]:
        with pytest.raises(InvalidOutcome):
            table.resolve(bad)
        assert table.state == state
    table.resolve((1, 2, 3, 4, 5))
    table.act(0, Reroll((2, 4)))
    with pytest.raises(InvalidOutcome, match="expected 2 results"):
        table.resolve((6,))
    with pytest.raises(InvalidOutcome, match="no dice are pending"):
        GAME.resolve(replace(table.state, rerolling=()), (1, 2))
