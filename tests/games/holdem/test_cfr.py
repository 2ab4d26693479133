"""The cfr bot: its stored table, its training, and its play through the engine."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dicehall.engine.harness import check_random_play
from dicehall.games.holdem.cfr_bot import CfrBot
from dicehall.games.holdem.cfr_deals import bucket_edges, deal_pool, pool_buckets
from dicehall.games.holdem.cfr_solve import Trainer, exploitability
from dicehall.games.holdem.cfr_table import TABLE_VERSION, TableNotReady, load, save, shipped
from dicehall.games.holdem.cfr_tree import FOLD, build_tree
from dicehall.games.holdem.model import Bet, Check, HoldemOptions
from dicehall.games.holdem.rules import GAME
from tests.games.holdem.scripted import ScriptedHand
from tests.games.holdem.test_properties import check_step


def _cfr_bot(rng: Any) -> Any:
    return CfrBot(rng)


@settings(max_examples=3, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), seats=st.sampled_from([2, 2, 3]))
def test_cfr_bots_play_legal_games_to_the_end(seed: int, seats: int) -> None:
    # Three seats: it plays as the equity bot until two are left.
    options = HoldemOptions(stack=60)
    run = check_random_play(
        GAME, seats, options, seed, on_step=check_step, codec_every=10, bot=_cfr_bot
    )
    assert sum(run.result.scores) == seats * 60


def _river(first_pocket: str, dealer_pocket: str) -> ScriptedHand:
    """Two seats checked down to the river; seat 1 acts first, seat 0 deals."""
    hand = ScriptedHand(2, max_flop_rerolls=0)
    hand.pockets(s1=first_pocket, s0=dealer_pocket)
    for dice in ("2r,3r,4r", "6k", "5w"):
        hand.act(1, Check())
        hand.act(0, Check())
        hand.dice(dice)
    return hand


def test_the_bot_reads_its_key_from_the_view() -> None:
    hand = _river("3y,3w", "6r,1r")
    hand.act(1, Check())
    bot = CfrBot(random.Random(0))
    key = bot.key(GAME.view(hand.state, 0))
    assert key is not None
    assert shipped().keys[key].tolist() == [3, 10, 0, 1]  # river, 10 each in, checked to it
    hand = _river("3y,3w", "6r,1r")
    hand.act(1, Bet(20))
    key = bot.key(GAME.view(hand.state, 0))
    assert key is not None and shipped().keys[key].tolist() == [3, 10, 1, 0]


def test_the_bot_sees_only_its_view() -> None:
    # The same spot with different dice in the other pocket: the same draws, the same moves.
    moves = []
    for other in ("3y,3w", "6k,6w"):
        hand = _river(other, "6r,1r")
        hand.act(1, Bet(20))
        bot = CfrBot(random.Random(5))
        view = GAME.view(hand.state, 0)
        assert view.pocket == ("6r", "1r")
        moves.append([bot.choose(view, GAME.legal(hand.state, 0)) for _ in range(20)])
    assert moves[0] == moves[1]


def test_the_nuts_never_folds() -> None:
    hand = _river("3y,3w", "6r,1r")  # a flush nobody else can make
    hand.act(1, Bet(20))
    bot = CfrBot(random.Random(2))
    probabilities = bot.probabilities(GAME.view(hand.state, 0))
    assert probabilities is not None and probabilities[0] < 0.05


def test_the_shipped_table_loads_with_its_version_and_exploitability() -> None:
    table = load()
    assert table.strategy.shape == (len(table.keys) * table.buckets, 3)
    assert np.allclose(table.strategy.sum(axis=1), 1.0, atol=1e-4)
    assert table.info["exploitability"] >= 0


def test_a_table_of_another_version_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import dicehall.games.holdem.cfr_table as cfr_table

    path = tmp_path / "old.npz"
    table = shipped()  # read under the real version, whichever test loads it first
    monkeypatch.setattr(cfr_table, "TABLE_VERSION", TABLE_VERSION + 1)
    save(table, path)
    monkeypatch.undo()
    with pytest.raises(TableNotReady, match=f"needs version {TABLE_VERSION}.*cfr_table"):
        load(path)
    with pytest.raises(TableNotReady, match="cannot be read"):
        load(tmp_path / "missing.npz")


def test_the_tree_charges_a_fold_what_the_folder_put_in() -> None:
    tree = build_tree().arrays()
    folds = tree.won[tree.kind == FOLD]
    # Four bets on every street: 170 each in by the river, then three of its bets called.
    assert folds.min() == -230 and folds.max() == 230
    assert set(np.abs(folds) % 10) == {0}


def test_exploitability_falls_as_training_goes_on() -> None:
    preflop = np.full(24 * 24, 0.5)
    pool = deal_pool(400, 7, preflop, samples=50)
    edges = bucket_edges(pool, 3)
    held = pool_buckets(pool, edges)
    tree = build_tree().arrays()
    trainer = Trainer(tree, held, pool.result, 3, seed=1)
    found = []
    for iterations in (200, 20_000):
        trainer.run(iterations)
        found.append(exploitability(tree, held, pool.result, trainer.average(), 3))
    assert found[1] < found[0] / 2


def test_thresholding_drops_rare_moves_and_keeps_the_likeliest() -> None:
    from dicehall.games.holdem.cfr_table import thresholded

    strategy = np.array([[0.1, 0.5, 0.4], [0.15, 0.15, 0.7], [0.34, 0.33, 0.33]])
    played = thresholded(strategy, 0.35)
    assert np.allclose(played, np.array([[0, 5 / 9, 4 / 9], [0, 0, 1], [1, 0, 0]]))
