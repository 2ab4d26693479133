"""The bots: optimal choices, bets only when the pot looks won, and within the bank."""

from __future__ import annotations

import random
from fractions import Fraction

from dicehall.games.bullseye import BOTS, GAME, Stop, ThrowOn
from dicehall.games.bullseye.bots import HeuristicBot, OptimalBot, top_score_chance
from dicehall.games.bullseye.stopping import best_choice, score_distribution
from tests.games.bullseye.helpers import BullseyeTable, lead_sets, new_table, seat_plays, throw


def _choose(table: BullseyeTable, bot: OptimalBot | HeuristicBot, seat: int) -> object:
    return bot.choose(GAME.view(table.state, seat), GAME.legal(table.state, seat))


def test_registry_names() -> None:
    assert set(BOTS) == {"optimal", "heuristic", "potmax"}


def test_lead_throws_on_then_stops_without_betting() -> None:
    table = new_table(3, lead=0)
    bot = OptimalBot(random.Random(0))
    for i, dice in enumerate([(1, 2, 6), (1, 3, 5), (2, 4, 6)]):
        throw(table, dice)
        action = _choose(table, bot, 0)
        assert action == (ThrowOn(0) if i < 2 else Stop(0))
        assert isinstance(action, Stop | ThrowOn)
        table.act(0, action)


def test_optimal_bot_follows_the_exact_best_choice() -> None:
    bot = OptimalBot(random.Random(0))
    for first, second in [((1, 2, 3), (1, 2)), ((4, 5, 6), (1, 2)), ((2, 3, 4), (5, 6))]:
        table = new_table(3, lead=0, bet_limit=0)
        lead_sets(table)  # 23
        throw(table, first)
        expected = best_choice(23, sum(first), 1)
        action = _choose(table, bot, 1)
        assert isinstance(action, Stop if expected == "stop" else ThrowOn)
        if isinstance(action, ThrowOn):
            table.act(1, action)
            throw(table, second)
            expected = best_choice(23, sum(first) + sum(second), 2)
            assert isinstance(_choose(table, bot, 1), Stop if expected == "stop" else ThrowOn)


def test_optimal_bot_bets_its_most_when_the_pot_is_sure() -> None:
    table = new_table(3, lead=0, bank=6)
    lead_sets(table)  # 23
    seat_plays(table, (4, 5, 6), (3, 5))  # seat 1 scores 50
    throw(table, (4, 5, 6))
    chance = top_score_chance(GAME.view(table.state, 2), "throw")
    assert 0 < chance < Fraction(8, 10)  # 15 against 23: only a Bull's Eye ties seat 1
    assert _choose(table, OptimalBot(random.Random(0)), 2) == ThrowOn(0)
    table.act(2, ThrowOn(0))
    throw(table, (3, 5))  # 23: a Bull's Eye too, and the last seat to throw: a sure share
    view = GAME.view(table.state, 2)
    assert top_score_chance(view, "stop") == 1
    assert _choose(table, OptimalBot(random.Random(0)), 2) == Stop(6)  # the bank, not 10


def test_optimal_bot_does_not_bet_on_a_poor_chance() -> None:
    table = new_table(3, lead=0)
    lead_sets(table)  # 23
    seat_plays(table, (4, 5, 6), (3, 5))  # seat 1: Bull's Eye, 50
    throw(table, (4, 5, 6))
    table.act(2, ThrowOn(0))
    throw(table, (2, 4))  # seat 2: 21
    table.act(2, ThrowOn(0))
    throw(table, (6,))
    view = GAME.view(table.state, 2)
    assert top_score_chance(view, "stop") == 0  # 27 cannot beat a posted 50
    assert _choose(table, OptimalBot(random.Random(0)), 2) == Stop(0)


def test_top_score_chance_counts_the_seats_still_to_throw() -> None:
    table = new_table(4, lead=0)
    lead_sets(table)  # 23
    throw(table, (4, 5, 6))  # seat 1: 15, two seats still to throw
    view = GAME.view(table.state, 1)
    later = score_distribution(23, 0, 0)
    mine = score_distribution(23, 15, 1, "throw")
    expected = sum(
        (
            p * sum((q for t, q in later.items() if t <= s), Fraction(0)) ** 2
            for s, p in mine.items()
            if s > 0
        ),
        Fraction(0),
    )
    assert top_score_chance(view, "throw") == expected
    assert 0 < expected < 1


def test_heuristic_bot() -> None:
    bot = HeuristicBot(random.Random(0))
    table = new_table(3, lead=0)
    lead_sets(table)  # 23
    throw(table, (4, 5, 6))  # 15: more than 3 short
    assert _choose(table, bot, 1) == ThrowOn(0)
    table.act(1, ThrowOn(0))
    throw(table, (3, 5))  # 23: exact
    assert _choose(table, bot, 1) == Stop(10)
    table.act(1, Stop(10))
    throw(table, (4, 5, 6))
    table.act(2, ThrowOn(0))
    throw(table, (1, 5))  # 21: within 3
    assert _choose(table, bot, 2) == Stop(0)
