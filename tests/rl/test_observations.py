"""Observations: every legal move has a number, vectors have their documented length, and a
seat's observation never changes when only dice hidden from it change."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dicehall import games
from dicehall.engine.game import Result
from dicehall.games.boatzee.rules import Reroll, Score
from dicehall.games.holdem.dice import KINDS
from dicehall.rl.encoding import Encoding, encoding_for
from dicehall.rl.match import Match, final_rewards
from tests.rl.conftest import TABLES


def positions(game: str, seats: int, options: dict[str, Any], seed: int) -> Iterator[Any]:
    """The states of one game of random legal moves, at every seat's decision."""
    entry = games.get(game)
    match = Match(entry, seats, entry.game.options(options), "win")
    match.reset(seed)
    match.advance()
    rng = random.Random(seed)
    while match.to_act is not None:
        yield match
        seat = match.to_act
        match.act(seat, rng.choice(match.legal(seat)))


@pytest.mark.parametrize(("game", "seats", "options"), TABLES)
def test_every_legal_move_has_a_number_and_every_vector_its_length(
    game: str, seats: int, options: dict[str, Any]
) -> None:
    entry = games.get(game)
    encoding = encoding_for(game, seats, entry.game.options(options))
    for seed in range(3):
        for match in positions(game, seats, options, seed):
            for seat in range(seats):
                vector = encoding.vector(match.view(seat), seat)
                assert vector.dtype == np.float32 and np.isfinite(vector).all()
                mask = encoding.mask(match.legal(seat))
                assert mask.sum() == len(match.legal(seat))
                assert (mask.sum() > 0) == (seat == match.to_act)


def test_the_documented_numbers_of_boatzee() -> None:
    encoding = encoding_for("boatzee", 1, games.get("boatzee").game.options({"columns": 2}))
    assert encoding.actions[0] == Reroll((0,)) and encoding.actions[30] == Reroll(tuple(range(5)))
    assert encoding.actions[31] == Score("ones", 1)
    assert encoding.actions[31 + 13 + 12] == Score("chance", 2)
    assert encoding.size == 1 * (27 * 2 + 2) + 1 + 34


def _hidden_variants(game: str, state: Any, seat: int, rng: random.Random) -> list[Any]:
    """States that differ from ``state`` only in dice ``seat`` may not see."""
    if game == "boss":
        if state.concealed is None or state.boss is None or state.boss == seat:
            return []
        return [
            dataclasses.replace(
                state, concealed=tuple(sorted(rng.randint(1, 6) for _ in state.concealed))
            )
            for _ in range(4)
        ]
    if game == "holdem":
        variants = []
        for _ in range(4):
            pockets = tuple(
                pocket if i == seat else tuple(rng.choice(KINDS) for _ in pocket)
                for i, pocket in enumerate(state.pockets)
            )
            variants.append(dataclasses.replace(state, pockets=pockets))
        return variants
    return []


@pytest.mark.parametrize(
    ("game", "seats", "options"),
    [("tenthousand", 3, {"target": 1000}), ("boatzee", 2, {}), ("bullseye", 3, {})],
)
def test_games_without_hidden_dice_show_every_seat_the_same_table(
    game: str, seats: int, options: dict[str, Any]
) -> None:
    """Ten Thousand, Boatzee and Bull's Eye hide nothing: each seat's view is the spectator's
    (its own seat number aside), so an observation has no hidden dice to leak."""
    entry = games.get(game)
    for seed in range(3):
        for match in positions(game, seats, options, seed):
            state = match.table.state
            everyone = entry.game.view(state, None)
            for seat in range(seats):
                assert dataclasses.replace(entry.game.view(state, seat), seat=None) == everyone


@settings(max_examples=25, deadline=None)
@given(
    case=st.sampled_from([("boss", 2, {}), ("holdem", 3, {"stack": 100})]),
    seed=st.integers(0, 2**32 - 1),
)
def test_an_observation_ignores_dice_hidden_from_its_seat(
    case: tuple[str, int, dict[str, Any]], seed: int
) -> None:
    game, seats, options = case
    entry = games.get(game)
    encoding: Encoding = encoding_for(game, seats, entry.game.options(options))
    rng = random.Random(seed)
    varied = 0
    for match in positions(game, seats, options, seed):
        state = match.table.state
        for seat in range(seats):
            seen = encoding.vector(entry.game.view(state, seat), seat)
            for other in _hidden_variants(game, state, seat, rng):
                assert np.array_equal(encoding.vector(entry.game.view(other, seat), seat), seen)
                varied += 1
    assert varied > 0 or game == "boss"  # a Boss game may end before any concealed roll


def test_the_boss_sees_his_concealed_roll_and_the_opponent_does_not() -> None:
    encoding = encoding_for("boss", 2, games.get("boss").game.options({}))
    for seed in range(20):
        for match in positions("boss", 2, {}, seed):
            state = match.table.state
            if state.concealed and state.boss is not None:
                boss, opponent = state.boss, 1 - state.boss
                with_roll = encoding.vector(match.view(boss), boss)
                assert with_roll[28:34].sum() > 0  # the concealed roll, by face
                assert encoding.vector(match.view(opponent), opponent)[28:34].sum() == 0
                return
    pytest.fail("no concealed roll in 20 games")


@pytest.mark.parametrize(
    ("winners", "scores", "mode", "expected"),
    [
        ((0,), (30, 10, 20), "win", [1.0, -1.0, -1.0]),
        ((0, 2), (30, 10, 30), "win", [0.0, -1.0, 0.0]),
        ((0,), (30, 10, 20), "place", [1.0, -1.0, 0.0]),
        ((0, 2), (30, 10, 30), "place", [0.5, -1.0, 0.5]),
        ((0,), (30,), "place", [0.0]),
        ((0,), (30, 10), "score", [0.0, 0.0]),
    ],
)
def test_final_rewards(
    winners: tuple[int, ...], scores: tuple[int, ...], mode: Any, expected: list[float]
) -> None:
    assert final_rewards(Result(winners, scores, 1), len(scores), mode) == expected
