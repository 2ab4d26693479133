"""``Game.standing``: the scores so far and the turn being played, for lists of games. It
starts at turn 1, never goes back, and ends on the scores of the game's :class:`Result`."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dicehall import games
from dicehall.engine.dice import Seeded, resolve_request
from dicehall.engine.game import Chance, Finished, Standing

#: Small games, so that random play ends within a few hundred moves.
SMALL = {
    "tenthousand": {"target": 500, "entry_threshold": 0},
    "boatzee": {},
    "boss": {"horses": 2},
    "holdem": {"stack": 20},
    "bullseye": {"rounds": 3},
}


@pytest.mark.parametrize("kind", sorted(SMALL))
@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_standing_follows_random_play_to_the_result(kind: str, seed: int) -> None:
    entry = games.get(kind)
    game = entry.game
    rng = random.Random(seed)
    seats = game.min_seats if kind != "bullseye" else 3
    state = game.start(seats, game.options(SMALL[kind]))
    dice = Seeded(seed)
    first = game.standing(state)
    assert isinstance(first, Standing) and first.number == 1
    assert len(first.scores) == seats
    number = first.number
    for _ in range(5000):
        turn = game.turn(state)
        if isinstance(turn, Finished):
            break
        if isinstance(turn, Chance):
            state = game.resolve(state, resolve_request(dice, turn.request))
        else:
            state = game.act(state, turn.seat, rng.choice(list(game.legal(state, turn.seat))))
        now = game.standing(state)
        assert now is not None and now.number >= number
        number = now.number
    else:
        pytest.fail("random play did not end")
    final = game.standing(state)
    assert final is not None and final.scores == turn.result.scores


def test_every_game_names_its_unit_of_play() -> None:
    nouns = {name: games.get(name).game.turn_noun for name in games.NAMES}
    assert nouns == {
        "tenthousand": "turn",
        "boatzee": "turn",
        "boss": "hand",
        "holdem": "hand",
        "bullseye": "round",
    }
