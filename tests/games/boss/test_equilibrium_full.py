"""The equilibrium of the real hand: its figures, spot checks against the odds engine, and
the ``equilibrium`` bot."""

from __future__ import annotations

import random
from dataclasses import replace
from itertools import product

import numpy as np
import pytest

from dicehall import games
from dicehall.cli.sim import simulate
from dicehall.engine import Table
from dicehall.games.boss import BOTS, GAME, BossAction, BossOptions, BossState, ComeUp, Keep, PickUp
from dicehall.games.boss.bot_profile import bot_profile
from dicehall.games.boss.bots import EquilibriumBot, HeuristicBot
from dicehall.games.boss.equilibrium import Equilibrium
from dicehall.games.boss.hands import legal_keeps
from dicehall.games.boss.odds import CLASSES, keep_odds, keep_table
from dicehall.games.boss.profiles import Profile, exploitability

Dice = tuple[int, ...]


def test_the_figures(full_equilibrium: Equilibrium) -> None:
    report = full_equilibrium.report()
    assert report.public_states == 10_049
    assert report.fresh == 0.5
    assert report.boss_value == pytest.approx(0.7387457143, abs=1e-9)
    assert report.boss_chance == pytest.approx(0.9028025850, abs=1e-9)
    assert report.exploitability.horse < 0.001
    assert max(report.exploitability.boss, report.exploitability.opponent) < 1e-9
    ending = report.outcome
    assert ending.win + ending.push + ending.lose + ending.pick_up == pytest.approx(1)
    assert ending.pick_up == pytest.approx(0.2211067354, abs=1e-9)


def test_the_model_agrees_with_the_odds_engine(full_equilibrium: Equilibrium) -> None:
    game = full_equilibrium.game
    keeps, table = keep_table()
    assert game.keeps == keeps and game.classes == CLASSES
    assert np.array_equal(game.final, table)


@pytest.mark.parametrize(
    ("kept", "roll"),
    [((6, 6), (3, 3, 6, 2, 1)), ((4, 4, 4), (5, 5, 1, 2, 3)), ((1, 1, 1, 1), (6, 6, 6, 2, 3))],
)
def test_a_state_against_the_exact_odds(
    full_equilibrium: Equilibrium, kept: Dice, roll: Dice
) -> None:
    """Every Boss hand counted one by one with ``keep_odds``: no keep lowers the Boss below
    the state's value, and his calls make exactly that value against the equilibrium keep."""
    hands = [kept + c for c in product(range(1, 7), repeat=5 - len(kept))]
    keeps = dict(full_equilibrium.keep_chances(roll, kept))
    ups = [full_equilibrium.come_up_chance(h, kept, roll) for h in hands]

    def boss_value(keep: Dice, up: list[float]) -> float:
        worth = [1 - float(keep_odds(keep, h).equity) for h in hands]
        return float(np.mean([u * w + (1 - u) * 0.5 for u, w in zip(up, worth, strict=True)]))

    value = sum(p * boss_value(k, ups) for k, p in keeps.items())
    for keep in legal_keeps(roll):
        assert boss_value(keep, ups) >= value - 1e-12
        best = [1.0 if 1 - float(keep_odds(keep, h).equity) > 0.5 else 0.0 for h in hands]
        if keep in keeps:
            assert boss_value(keep, best) == pytest.approx(value, abs=1e-12)


# -- the bot -------------------------------------------------------------------------------------


def position(first0: Dice, first1: Dice, concealed: Dice, **opts: int) -> BossState:
    t: Table[BossState, BossAction] = Table(GAME, 2, BossOptions(**opts))
    t.resolve(first0)
    t.resolve(first1)
    t.resolve(concealed)
    return t.state


def choose(bot: EquilibriumBot, state: BossState, seat: int) -> BossAction:
    action = bot.choose(GAME.view(state, seat), GAME.legal(state, seat))
    assert action in GAME.legal(state, seat)
    return action


def test_the_bot_plays_the_equilibrium(full_equilibrium: Equilibrium) -> None:
    played = bot_profile(EquilibriumBot(random.Random(1)))
    assert np.array_equal(played.come_up, full_equilibrium.profile.come_up)
    assert np.array_equal(played.keep, full_equilibrium.profile.keep)


def test_the_bot_in_known_positions(full_equilibrium: Equilibrium) -> None:
    bot = EquilibriumBot(random.Random(0), full_equilibrium)
    strong = position((6, 6, 1, 2, 3), (3, 3, 6, 2, 1), (4, 4, 1))
    assert choose(bot, strong, 0) == ComeUp()
    weak = position((6, 6, 1, 2, 3), (5, 5, 1, 2, 3), (5, 2, 1))
    assert choose(bot, weak, 0) == PickUp()
    forced = position((6, 6, 1, 2, 3), (5, 5, 1, 2, 3), (5, 2, 1), max_pickups=0)
    assert choose(bot, forced, 0) == ComeUp()
    answer = GAME.act(strong, 0, ComeUp())
    assert choose(bot, answer, 1) == Keep((3, 3))
    # it sees only its view: another concealed roll gives the same keep
    other = GAME.act(position((6, 6, 1, 2, 3), (3, 3, 6, 2, 1), (2, 2, 5)), 0, ComeUp())
    assert GAME.view(other, 1) == GAME.view(answer, 1)


def test_the_bot_draws_mixed_moves_with_its_own_generator(
    full_equilibrium: Equilibrium,
) -> None:
    game = full_equilibrium.game
    state = game.state((6, 6), (3, 3, 6, 2, 1))
    come_up, keep = full_equilibrium.profile.come_up.copy(), full_equilibrium.profile.keep.copy()
    come_up[state, game.hand_class((6, 6, 4, 4, 1))] = 0.25
    keeps = legal_keeps((3, 3, 6, 2, 1))
    keep[state] = 0.0
    keep[state, keeps.index((3, 3))] = 0.75
    keep[state, keeps.index((6,))] = 0.25
    mixed = replace(full_equilibrium, profile=Profile(come_up, keep))
    call = position((6, 6, 1, 2, 3), (3, 3, 6, 2, 1), (4, 4, 1))
    answer = GAME.act(call, 0, ComeUp())
    runs = 4000
    for seed in (1, 2):
        bot = EquilibriumBot(random.Random(seed), mixed)
        ups = sum(choose(bot, call, 0) == ComeUp() for _ in range(runs))
        sixes = sum(choose(bot, answer, 1) == Keep((6,)) for _ in range(runs))
        assert abs(ups / runs - 0.25) < 0.03
        assert abs(sixes / runs - 0.25) < 0.03
    first = [choose(EquilibriumBot(random.Random(7), mixed), call, 0) for _ in range(5)]
    again = [choose(EquilibriumBot(random.Random(7), mixed), call, 0) for _ in range(5)]
    assert first == again


def test_the_heuristic_bot_is_exploitable(full_equilibrium: Equilibrium) -> None:
    gain = exploitability(full_equilibrium.game, bot_profile(HeuristicBot(random.Random(0))))
    assert gain.horse > 0.001


def test_registry_and_a_simulation(full_equilibrium: Equilibrium) -> None:
    assert "equilibrium" in BOTS
    entry = games.get("boss")
    assert sorted(entry.bots) == ["equilibrium", "heuristic", "odds", "random"]
    report = simulate(entry, ["random", "equilibrium"], 200, 3, BossOptions(), progress=False)
    seats = report.as_json()["seats"]
    assert seats[1]["win_share_95"][0] > 0.6
