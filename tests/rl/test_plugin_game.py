"""The RL registry is the games' entries: a plug-in game whose entry names an encoder (Pig,
registered by hand) gets the Gymnasium, PettingZoo and OpenSpiel wrappers like the five; a
game whose entry names none has no encoding, and says so."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pyspiel
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

from dicehall import games
from dicehall.engine.errors import InvalidInput
from dicehall.rl.encoding import encoded, encoding_for
from dicehall.rl.gymnasium import make
from dicehall.rl.openspiel import register
from dicehall.rl.pettingzoo import env
from tests.engine.pig import Hold, PigOptions, PigView, RollAgain
from tests.server.pig_entry import ENTRY, register_pig

register_pig()


def test_the_encoded_games_are_those_whose_entry_names_an_encoder() -> None:
    assert encoded()[: len(games.NAMES)] == games.NAMES
    assert "pig" in encoded()
    encoding = encoding_for("pig", 2, PigOptions(target=10))
    assert encoding.game == "pig" and encoding.actions == (Hold(), RollAgain())
    vector = encoding.vector(PigView(1, (4, 6), 1, 2), 1)
    assert vector.tolist() == pytest.approx([0.6, 0.4, 0.2, 1.0])
    assert encoding.mask([RollAgain()]).tolist() == [0, 1]


def test_a_plug_in_game_gets_every_wrapper() -> None:
    check_env(make("pig", opponents=["bot:random"], target=20), skip_render_check=True)
    api_test(env("pig", seats=3, target=20), num_cycles=100)
    loaded = pyspiel.load_game(register("pig", seats=2, target=20))
    assert loaded.num_distinct_actions() == 2
    assert loaded.max_chance_outcomes() == 6  # dice only: Pig's entry names no bag items
    pyspiel.random_sim_test(loaded, num_sims=2, serialize=False, verbose=False)
    state = loaded.new_initial_state()
    assert state.chance_outcomes() == [(face, 1 / 6) for face in range(6)]
    state.apply_action(3)  # a four
    assert np.asarray(state.observation_tensor(0)).tolist() == pytest.approx([0, 0, 0.2, 1])


def test_a_game_without_an_encoder_has_no_encoding(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(games._EXTRA, "pig", replace(ENTRY, encoder=None))
    assert "pig" not in encoded()
    with pytest.raises(InvalidInput, match="'pig' has no reinforcement-learning encoding yet"):
        encoding_for("pig", 2, PigOptions())
    with pytest.raises(InvalidInput, match="has no reinforcement-learning encoding"):
        make("pig", opponents=["bot:random"])
