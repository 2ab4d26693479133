"""The simulation-speed heuristic game is the engine's game, result for result."""

from __future__ import annotations

import dataclasses
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from dicehall import games
from dicehall.cli.sim import simulate
from dicehall.engine.dice import Seeded
from dicehall.engine.table import play_out
from dicehall.games.tenthousand import GAME, TenThousandOptions
from dicehall.games.tenthousand.bots import HeuristicBot
from dicehall.games.tenthousand.fastsim import fast_play, heuristic_picks, play_heuristic
from dicehall.games.tenthousand.scoring import set_asides


@st.composite
def options_strategy(draw: st.DrawFn) -> TenThousandOptions:
    target = draw(st.sampled_from([50, 300, 1000, 2500, 10_000]))
    entry = draw(st.sampled_from([e for e in (0, 50, 350, 1000) if e <= target]))
    return TenThousandOptions(target, entry, draw(st.booleans()))


@settings(max_examples=60, deadline=None)
@given(
    seats=st.integers(min_value=1, max_value=6),
    options=options_strategy(),
    dice_seed=st.integers(min_value=0, max_value=2**64 - 1),
)
def test_the_fast_game_ends_as_the_engines_game_ends(
    seats: int, options: TenThousandOptions, dice_seed: int
) -> None:
    bots = [HeuristicBot(random.Random(i)) for i in range(seats)]
    _, expected, _ = play_out(GAME, seats, options, bots, Seeded(dice_seed), record=False)
    assert play_heuristic(seats, options, dice_seed) == expected


def test_every_scoring_roll_has_the_heuristics_pick_and_no_zero_roll_has_one() -> None:
    for four_and_pair in (False, True):
        picks = heuristic_picks(four_and_pair)
        scoring = 0
        for roll, key in _every_roll():
            if set_asides(roll, four_and_pair):
                scoring += 1
                points, left = picks[key]
                assert points > 0 and 1 <= left <= 6
            else:
                assert key not in picks
        assert scoring == len(picks)


def _every_roll() -> list[tuple[tuple[int, ...], int]]:
    rolls: list[tuple[int, ...]] = [()]
    found: list[tuple[tuple[int, ...], int]] = []
    for _ in range(6):
        rolls = sorted({tuple(sorted((*r, f))) for r in rolls for f in range(1, 7)})
        found += [(r, sum(7 ** (f - 1) for f in r)) for r in rolls]
    return found


def test_fast_play_declines_any_line_up_with_another_bot() -> None:
    options = TenThousandOptions()
    assert fast_play(["heuristic", "optimal"], options, 1) is None
    assert fast_play([], options, 1) is None
    assert fast_play(["heuristic", "heuristic"], options, 1) == play_heuristic(2, options, 1)


def test_sim_reports_the_same_with_and_without_the_fast_path() -> None:
    entry = games.get("tenthousand")
    assert entry.fast_play is not None
    engine_only = dataclasses.replace(entry, fast_play=None)
    options = TenThousandOptions(target=3000)
    line_up = ["heuristic", "heuristic", "heuristic"]
    fast = simulate(entry, line_up, 40, 5, options, progress=False, keep_scores=True)
    slow = simulate(engine_only, line_up, 40, 5, options, progress=False, keep_scores=True)
    assert fast.as_json() == slow.as_json()
    assert (fast.scores, fast.turns) == (slow.scores, slow.turns)
