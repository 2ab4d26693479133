"""The ``optimal``, ``strong`` and ``winmax`` bots: legal, agree with the hints, and score what they
should."""

from __future__ import annotations

import math
import random
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dicehall.engine import Seeded, Table, play_out
from dicehall.engine.game import Finished
from dicehall.engine.harness import check_random_play
from dicehall.games.boatzee import BOTS, GAME, BoatzeeState, Reroll, Score
from dicehall.games.boatzee.bots import PlanningBot
from dicehall.games.boatzee.card import Card, Ruleset, is_full
from dicehall.games.boatzee.hints import hint
from dicehall.games.boatzee.scoring import BOXES
from dicehall.games.boatzee.solver import solve
from dicehall.games.boatzee.valuation import TableValuation, column_state, for_game
from tests.games.boatzee.helpers import cards, make_card
from tests.games.boatzee.solved import solved, solved_dir

__all__ = ["solved", "solved_dir"]


def _position(
    card: Card, dice: tuple[int, ...], rolls: int, **options: object
) -> Table[BoatzeeState, Reroll | Score]:
    table: Table[BoatzeeState, Reroll | Score] = Table(GAME, 1, GAME.options(options))
    table.state = replace(table.state, cards=(card,), dice=dice, rolls=rolls)
    return table


def _choose(name: str, table: Table[BoatzeeState, Reroll | Score]) -> Reroll | Score:
    bot = BOTS[name](random.Random(0))
    action: Reroll | Score = bot.choose(GAME.view(table.state, 0), GAME.legal(table.state, 0))
    return action


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    position=cards(),
    dice=st.tuples(*[st.integers(1, 6)] * 5),
    rolls=st.integers(1, 3),
)
def test_optimal_plays_the_best_hint(
    solved: Path, position: tuple[Card, Ruleset], dice: tuple[int, ...], rolls: int
) -> None:
    card, ruleset = position
    card = Card(card.boxes[:1], card.extra_bonuses)
    if is_full(card):
        return
    table = _position(card, dice, rolls, ruleset=ruleset)
    action = _choose("optimal", table)
    assert action in GAME.legal(table.state, 0)
    choices = hint(card, dice, 3 - rolls, ruleset, for_game(1, ruleset))
    if isinstance(action, Reroll):
        kept = tuple(sorted(d for i, d in enumerate(dice) if i not in action.positions))
        chosen = next(c for c in choices if c.keep == kept)
    else:
        chosen = next(c for c in choices if c.box == action.box)
    assert chosen.expected_final == pytest.approx(choices[0].expected_final, abs=1e-9)


def test_optimal_scores_the_solved_mean_over_seeded_games(solved: Path) -> None:
    games = 200
    scores = []
    for seed in range(games):
        bot = BOTS["optimal"](random.Random(seed))
        _, result, _ = play_out(GAME, 1, GAME.options({}), [bot], Seeded(seed), record=False)
        scores.append(result.scores[0])
    mean = float(np.mean(scores))
    error = float(np.std(scores, ddof=1)) / math.sqrt(games)
    assert abs(mean - 245.870775) < 3.5 * error
    assert 25 < error * math.sqrt(games) < 55  # the spread of single games (solved: 39.8)


@pytest.mark.parametrize("ruleset", ["boatzee", "yahtzee"])
def test_random_play_contract_with_the_optimal_bot(solved: Path, ruleset: Ruleset) -> None:
    values = for_game(1, ruleset).tables[0]

    def every_state_is_solved(before: BoatzeeState, event: object, after: BoatzeeState) -> None:
        state = column_state(after.cards[0], 1, ruleset)
        assert not math.isnan(float(values[state]))

    done = check_random_play(
        GAME,
        1,
        GAME.options({"ruleset": ruleset}),
        seed=3,
        bot=BOTS["optimal"],
        on_step=every_state_is_solved,
        codec_every=7,
    )
    assert done.result.turns == 13


@pytest.mark.parametrize("columns", [2, 3])
def test_strong_plays_double_and_triple_to_the_end(solved: Path, columns: int) -> None:
    options = GAME.options({"columns": columns})
    done = check_random_play(GAME, 2, options, seed=columns, bot=BOTS["strong"], codec_every=11)
    assert done.result.turns == 2 * 13 * columns
    # In several columns ``optimal`` plays as ``strong`` (no exact solution is known).
    card = make_card(columns, {("sixes", 1): 18, ("chance", columns): 20})
    table = _position(card, (6, 6, 6, 2, 3), 1, columns=columns)
    assert _choose("optimal", table) == _choose("strong", table)


def test_strong_dumps_a_poor_roll_where_it_costs_least(solved: Path) -> None:
    # Triple, empty card, last roll 1 1 1 2 3: greedy takes 3 of a kind x3 (24 points now);
    # strong gives up least by filling Ones in the x1 column (3 points, about what Ones
    # averages), keeping the x3 boxes for better rolls.
    table = _position(make_card(3, {}), (1, 1, 1, 2, 3), 3, columns=3)
    assert _choose("greedy", table) == Score("three_kind", 3)
    assert _choose("strong", table) == Score("ones", 1)
    table = _position(make_card(3, {}), (6, 6, 6, 6, 6), 3, columns=3)
    assert _choose("strong", table) == Score("boatzee", 3)


def test_strong_with_yahtzee_rules_in_double_plays_legally_to_the_end() -> None:
    # Late in a Double game under yahtzee rules: tables solved for the open boxes only.
    open_boxes = {1: {"fours", "boatzee", "chance"}, 2: {"fours", "small_straight"}}
    filled: dict[tuple[str, int], int] = {
        (box, k): (50 if box == "boatzee" else 0)
        for k in (1, 2)
        for box in BOXES
        if box not in open_boxes[k]
    }
    card = make_card(2, filled)
    tables = [
        solve(
            "yahtzee",
            k,
            filled=sum(1 << i for i, box in enumerate(BOXES) if box not in open_boxes[k]),
            with_moments=False,
        ).values
        for k in (1, 2)
    ]
    bot = PlanningBot(TableValuation(tables, "yahtzee"))
    for seed in range(3):
        table: Table[BoatzeeState, Reroll | Score] = Table(
            GAME, 1, GAME.options({"columns": 2, "ruleset": "yahtzee"})
        )
        table.state = replace(table.state, cards=(card,), turns=26 - 5)
        # Table.act refuses an illegal move, so reaching the end means every move was legal.
        assert isinstance(table.advance(Seeded(seed), {0: bot}), Finished)
        assert is_full(table.state.cards[0])
    with pytest.raises(ValueError, match="another ruleset"):
        TableValuation(tables, "yahtzee").choice_values(card, "boatzee")


@pytest.mark.parametrize(("seats", "columns"), [(2, 1), (3, 1), (2, 2)])
def test_winmax_plays_to_the_end_from_its_own_view(solved: Path, seats: int, columns: int) -> None:
    # The harness hands every bot only its own seat's view; in Double winmax plays strong.
    options = GAME.options({"columns": columns})
    done = check_random_play(GAME, seats, options, seed=seats, bot=BOTS["winmax"], codec_every=13)
    assert done.result.turns == 13 * columns * seats


def _last_turn(rival_total: int, dice: tuple[int, ...]) -> Table[BoatzeeState, Reroll | Score]:
    # Seat 1's last turn, Chance its open box and every other box 0; seat 0 has finished.
    zeros: dict[tuple[str, int], int] = {(box, 1): 0 for box in BOXES}
    rival = make_card(1, zeros | {("chance", 1): rival_total})
    mine = make_card(1, {key: v for key, v in zeros.items() if key != ("chance", 1)})
    table: Table[BoatzeeState, Reroll | Score] = Table(GAME, 2, GAME.options({}))
    table.state = replace(table.state, cards=(rival, mine), current=1, dice=dice, rolls=2, turns=25)
    return table


def _choose_at(name: str, table: Table[BoatzeeState, Reroll | Score], seat: int) -> object:
    bot = BOTS[name](random.Random(0))
    return bot.choose(GAME.view(table.state, seat), GAME.legal(table.state, seat))


def test_winmax_stops_on_a_winning_hand_that_optimal_rolls_again(solved: Path) -> None:
    # 22 beats the rival's 21. Re-rolling the 3 and the 1 expects 25, so optimal risks it
    # (a 2 loses, a 3 ties: 3 rolls in 36); winmax keeps the sure win.
    table = _last_turn(21, (6, 6, 6, 3, 1))
    assert _choose_at("optimal", table, 1) == Reroll((3, 4))
    assert _choose_at("winmax", table, 1) == Score("chance", 1)
    # Behind, it chases: 22 loses to 24, so winmax rolls again as well.
    behind = _last_turn(24, (6, 6, 6, 3, 1))
    assert isinstance(_choose_at("winmax", behind, 1), Reroll)
