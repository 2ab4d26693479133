"""The ``potmax`` bot: exact pot shares checked by enumeration, its choices, its bets."""

from __future__ import annotations

import random
from fractions import Fraction
from functools import cache
from itertools import combinations, product
from math import prod
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dicehall.engine import codec
from dicehall.engine.harness import check_random_play
from dicehall.games.bullseye import BOTS, GAME, BullseyeOptions, BullseyeView, Stop, ThrowOn
from dicehall.games.bullseye.bots import OptimalBot, PotMaxBot
from dicehall.games.bullseye.odds import target_distribution
from dicehall.games.bullseye.potmax import Field, Outlook, field_of, pot_hint, score_share
from dicehall.games.bullseye.stopping import best_choice, reachable_totals, score_distribution
from tests.games.bullseye.helpers import BullseyeTable, lead_sets, new_table, seat_plays, throw
from tests.games.bullseye.test_properties import check_invariants, games

FACES = range(1, 7)


def _points(total: int, target: int) -> int:
    d = abs(total - target)
    return 50 if d == 0 else 30 if d <= 3 else 20 if d <= 5 else 10 if d <= 7 else 0


@cache
def _later_scores(target: int) -> dict[int, Fraction]:
    """A later seat's scores, walking its equally likely sets of faces, stopping as optimal."""
    out: dict[int, Fraction] = {}

    def walk(total: int, taken: int, p: Fraction) -> None:
        if taken == 3 or (taken and best_choice(target, total, taken) == "stop"):
            out[_points(total, target)] = out.get(_points(total, target), Fraction(0)) + p
            return
        sets = list(combinations(FACES, 3 - taken))
        for faces in sets:
            walk(total + sum(faces), taken + 1, p / len(sets))

    walk(0, 0, Fraction(1))
    return out


def _share(target: int, posted: tuple[int, ...], later: int, mine: int) -> Fraction:
    """The expected share of the pot, over every combination of the later seats' scores."""
    got = Fraction(0)
    for outcome in product(_later_scores(target).items(), repeat=later):
        scores = [mine, *posted, *(s for s, _ in outcome)]
        if mine == max(scores) > 0:
            got += prod((p for _, p in outcome), start=Fraction(1)) / scores.count(mine)
    return got


@cache
def _best(target: int, total: int, taken: int, posted: tuple[int, ...], later: int) -> Fraction:
    """The largest expected share from a position, by enumeration of the seat's own throws."""
    stop = _share(target, posted, later, _points(total, target))
    if taken == 3:
        return stop
    return max(stop, _throw(target, total, taken, posted, later))


def _throw(target: int, total: int, taken: int, posted: tuple[int, ...], later: int) -> Fraction:
    sets = list(combinations(FACES, 3 - taken))
    step = [_best(target, total + sum(s), taken + 1, posted, later) for s in sets]
    return sum(step, Fraction(0)) / len(sets)


def _field(posted: tuple[int, ...], later: int) -> Field:
    top = max(posted, default=0)
    return Field(top, posted.count(top) if top else 0, later)


def _choose(table: BullseyeTable, bot: Any, seat: int) -> object:
    return bot.choose(GAME.view(table.state, seat), GAME.legal(table.state, seat))


def test_registered_with_its_note() -> None:
    from dicehall.games.bullseye import ENTRY, SLOW_BOTS

    assert BOTS["potmax"] is PotMaxBot
    assert ENTRY.bot_notes["potmax"] and SLOW_BOTS["potmax"].fallback == "heuristic"


def test_the_later_seats_distribution_is_the_optimal_bots() -> None:
    for target in (14, 20, 23, 27, 32):
        assert _later_scores(target) == score_distribution(target, 0, 0)


def test_a_later_seat_can_always_hit_the_bulls_eye() -> None:
    # Hence only the last seat to throw can be sure of the pot.
    assert all(score_distribution(t, 0, 0)[50] > 0 for t in target_distribution())


@pytest.mark.parametrize(
    ("posted", "later"),
    [((), 1), ((), 2), ((30,), 0), ((20,), 1), ((50,), 1), ((30, 30), 1), ((10, 20), 2)],
)
def test_shares_equal_enumeration(posted: tuple[int, ...], later: int) -> None:
    field = _field(posted, later)
    for target in (18, 23, 29):
        for score in (0, 10, 20, 30, 50):
            assert score_share(target, field, score) == _share(target, posted, later, score)
        for taken in (1, 2, 3):
            for total in sorted(reachable_totals(taken)):
                got = pot_hint(target, total, taken, field)
                assert got.stop is not None
                assert got.stop[0] == _share(target, posted, later, _points(total, target))
                if taken < 3:
                    assert got.throw is not None
                    assert got.throw[0] == _throw(target, total, taken, posted, later)
                assert got.share == _best(target, total, taken, posted, later)


def test_ties_take_a_binomial_share() -> None:
    # One posted 30 and two later seats: a tie with j of them splits three, two or one ways.
    later = score_distribution(23, 0, 0)
    equal, below = later[30], later[0] + later[10] + later[20]
    expected = below**2 / 2 + 2 * equal * below / 3 + equal**2 / 4
    assert score_share(23, Field(30, 1, 2), 30) == expected
    assert score_share(23, Field(30, 1, 2), 20) == 0
    assert score_share(23, Field(0, 0, 0), 0) == 0  # a top score of 0 takes nothing


def _outlook(share: Fraction | int, points: Fraction | int) -> Outlook:
    return (Fraction(share), Fraction(points))


def test_the_share_comes_first_then_the_points() -> None:
    got = pot_hint(14, 9, 1, Field(10, 1, 0))  # last to throw; 20 now beats the posted 10
    assert got.stop == _outlook(1, 20) and got.throw is not None
    assert got.throw[0] < 1 and got.throw[1] > 20 and got.best == "stop"
    both_sure = pot_hint(23, 21, 2, Field(0, 0, 0))  # 22 to 27 all score: throw for points
    assert both_sure.stop == _outlook(1, 30)
    assert both_sure.throw == _outlook(1, Fraction(95, 3)) and both_sure.best == "throw"
    worse = pot_hint(14, 20, 2, Field(30, 1, 0))  # no share either way: keep the 10 points
    assert worse.stop == _outlook(0, 10) and worse.throw == _outlook(0, Fraction(5, 3))
    assert worse.best == "stop"
    level = pot_hint(14, 13, 2, Field(0, 0, 0))  # a sure pot and 30 points either way
    assert level.stop == level.throw == _outlook(1, 30) and level.best == "stop"


def test_bad_fields_are_refused() -> None:
    for top, tied, later in [(15, 1, 0), (30, 0, 1), (0, 1, 1), (20, 1, -1)]:
        with pytest.raises(ValueError):
            Field(top, tied, later)
    with pytest.raises(ValueError):
        score_share(23, Field(0, 0, 1), 40)


def _fifty_then(table: BullseyeTable, second: tuple[int, ...]) -> None:
    """Lead sets 23, seat 1 hits it (50), seat 2 throws 4 5 6 then ``second``."""
    lead_sets(table)
    seat_plays(table, (4, 5, 6), (3, 5))
    throw(table, (4, 5, 6))
    table.act(2, ThrowOn(0))
    throw(table, second)


def test_potmax_throws_for_a_tie_where_optimal_stops() -> None:
    table = new_table(3, lead=0)
    _fifty_then(table, (3, 4))  # 22 against a posted 50: stopping scores 30 and no pot
    view = GAME.view(table.state, 2)
    assert view.round is not None
    got = pot_hint(23, 22, 2, field_of(view.round, 2))
    assert got.stop == _outlook(0, 30)
    assert got.throw == _outlook(Fraction(1, 12), 30)  # a 1 hits the Bull's Eye: half the pot
    assert best_choice(23, 22, 2) == "stop"  # 30 points either way: optimal stops
    assert _choose(table, OptimalBot(random.Random(0)), 2) == Stop(0)
    assert _choose(table, PotMaxBot(random.Random(0)), 2) == ThrowOn(0)


def test_potmax_throws_on_where_optimal_stops_with_later_seats() -> None:
    table = new_table(5, lead=0)
    lead_sets(table)  # 23
    throw(table, (4, 5, 6))
    table.act(1, ThrowOn(0))
    throw(table, (3, 4))  # 22, three seats still to throw
    view = GAME.view(table.state, 1)
    assert view.round is not None and field_of(view.round, 1) == Field(0, 0, 3)
    stop, throw_on = _share(23, (), 3, 30), _throw(23, 22, 2, (), 3)
    assert stop < throw_on  # by enumeration: throwing on takes more of the pot
    assert _choose(table, OptimalBot(random.Random(0)), 1) == Stop(0)
    assert _choose(table, PotMaxBot(random.Random(0)), 1) == ThrowOn(0)


def test_bets_the_most_when_last_and_sure_to_top_every_posted_score() -> None:
    table = new_table(3, lead=0, bank=6)
    lead_sets(table)  # 23
    seat_plays(table, (4, 5, 6), (1, 2))  # seat 1: 18, 20 points
    throw(table, (4, 5, 6))
    table.act(2, ThrowOn(0))
    throw(table, (2, 4))  # 21: stopping scores 30, sure to top 20; throwing on may tie it
    assert best_choice(23, 21, 2) == "throw"
    assert _choose(table, OptimalBot(random.Random(0)), 2) == ThrowOn(6)
    assert _choose(table, PotMaxBot(random.Random(0)), 2) == Stop(6)  # the bank, not 10


def test_bets_on_a_throw_that_cannot_miss() -> None:
    table = new_table(3, lead=0)
    lead_sets(table)  # 23
    seat_plays(table, (1, 2, 3))  # seat 1: 6, no points
    throw(table, (4, 5, 6))
    table.act(2, ThrowOn(0))
    throw(table, (2, 4))  # 21: one more die makes 22 to 27, every one of them scores
    assert _choose(table, PotMaxBot(random.Random(0)), 2) == ThrowOn(10)


def test_no_bet_on_a_shared_or_unsure_pot() -> None:
    table = new_table(3, lead=0)
    _fifty_then(table, (3, 5))  # 23: a Bull's Eye, but it only ties seat 1's
    assert _choose(table, PotMaxBot(random.Random(0)), 2) == Stop(0)
    table = new_table(4, lead=0)
    lead_sets(table)
    throw(table, (4, 5, 6))
    table.act(1, ThrowOn(0))
    throw(table, (3, 5))  # 23 with two seats to come: either may hit it too
    assert _choose(table, OptimalBot(random.Random(0)), 1) == Stop(10)
    assert _choose(table, PotMaxBot(random.Random(0)), 1) == Stop(0)


def test_the_lead_never_bets() -> None:
    table = new_table(3, lead=0)
    bot = PotMaxBot(random.Random(0))
    for i, dice in enumerate([(1, 2, 6), (1, 3, 5), (2, 4, 6)]):
        throw(table, dice)
        action = _choose(table, bot, 0)
        assert action == (ThrowOn(0) if i < 2 else Stop(0))
        assert isinstance(action, Stop | ThrowOn)
        table.act(0, action)


def test_decides_from_its_own_view_alone() -> None:
    table = new_table(4, lead=0)
    _fifty_then(table, (3, 4))
    legal = GAME.legal(table.state, 2)
    view = GAME.view(table.state, 2)
    copied = codec.loads(codec.dumps(view), BullseyeView)  # plain data, no state behind it
    bot = PotMaxBot(random.Random(0))
    assert bot.choose(copied, legal) == bot.choose(view, legal) == ThrowOn(0)
    for seat in (None, 1, 3):  # a spectator, a seat done, a seat still to throw
        with pytest.raises(ValueError):
            bot.choose(GAME.view(table.state, seat), legal)


@settings(max_examples=20, deadline=None)
@given(game=games(), seed=st.integers(0, 2**32 - 1))
def test_plays_legal_whole_games(game: tuple[int, BullseyeOptions], seed: int) -> None:
    seats, options = game
    run = check_random_play(
        GAME, seats, options, seed, on_step=check_invariants, codec_every=5, bot=PotMaxBot
    )
    assert run.result.turns >= 1


def test_a_default_six_seat_game() -> None:
    run = check_random_play(
        GAME, 6, BullseyeOptions(), 3, on_step=check_invariants, codec_every=50, bot=PotMaxBot
    )
    assert run.result.turns == 12
