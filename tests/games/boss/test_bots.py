"""The bots and the registry entry: odds and heuristic bots, rules text, simulations."""

from __future__ import annotations

import random

from dicehall import games
from dicehall.cli.sim import simulate
from dicehall.engine import Table
from dicehall.games.boss import (
    BOTS,
    GAME,
    BossAction,
    BossOptions,
    BossState,
    ComeUp,
    Keep,
    PickUp,
)
from dicehall.games.boss.bots import HeuristicBot, OddsBot
from dicehall.games.boss.odds import rank_keeps

Dice = tuple[int, ...]


def position(first0: Dice, first1: Dice, concealed: Dice, **opts: int) -> BossState:
    t: Table[BossState, BossAction] = Table(GAME, 2, BossOptions(**opts))
    t.resolve(first0)
    t.resolve(first1)
    t.resolve(concealed)
    return t.state


def choose(bot: OddsBot | HeuristicBot, state: BossState, seat: int) -> BossAction:
    action = bot.choose(GAME.view(state, seat), GAME.legal(state, seat))
    assert action in GAME.legal(state, seat)
    return action


def test_odds_bot_as_boss_comes_up_only_when_it_beats_a_fresh_hand() -> None:
    bot = OddsBot(random.Random(0))
    strong = position((6, 6, 1, 2, 3), (3, 3, 6, 2, 1), (4, 4, 1))  # 5/9 > 1/2
    assert choose(bot, strong, 0) == ComeUp()
    weak = position((6, 6, 1, 2, 3), (5, 5, 1, 2, 3), (5, 2, 1))  # a bare pair of 6s
    assert choose(bot, weak, 0) == PickUp()
    forced = position((6, 6, 1, 2, 3), (5, 5, 1, 2, 3), (5, 2, 1), max_pickups=0)
    assert choose(bot, forced, 0) == ComeUp()


def test_odds_bot_as_opponent_keeps_the_best_keep_by_the_odds() -> None:
    bot = OddsBot(random.Random(0))
    state = GAME.act(position((6, 6, 1, 2, 3), (3, 3, 6, 2, 1), (6, 4, 1)), 0, ComeUp())
    best = rank_keeps((3, 3, 6, 2, 1), boss_kept=(6, 6))[0]
    assert choose(bot, state, 1) == Keep(best.keep) == Keep((3, 3))
    # it sees only its view: another concealed roll gives the same choice
    other = GAME.act(position((6, 6, 1, 2, 3), (3, 3, 6, 2, 1), (2, 2, 5)), 0, ComeUp())
    assert GAME.view(other, 1) == GAME.view(state, 1)


def test_heuristic_bot() -> None:
    bot = HeuristicBot(random.Random(0))
    assert choose(bot, position((6, 6, 1, 2, 3), (3, 3, 6, 2, 1), (4, 4, 1)), 0) == ComeUp()
    assert choose(bot, position((6, 6, 1, 2, 3), (3, 3, 6, 2, 1), (5, 4, 1)), 0) == PickUp()
    state = GAME.act(position((6, 6, 1, 2, 3), (3, 3, 5, 5, 1), (4, 4, 1)), 0, ComeUp())
    assert choose(bot, state, 1) == Keep((5, 5))  # the higher pair of two pair
    state = GAME.act(position((6, 6, 1, 2, 3), (1, 2, 3, 4, 6), (4, 4, 1)), 0, ComeUp())
    assert choose(bot, state, 1) == Keep(())


def test_registry_entry_and_rules_text() -> None:
    entry = games.get("boss")
    assert entry.game is GAME
    assert sorted(entry.bots) == ["equilibrium", "heuristic", "odds", "random"]
    assert set(BOTS) == {"equilibrium", "heuristic", "odds"}
    text = entry.rules_for("terminal")
    for needle in ("`horses`", "`max_pickups`", "| 2 ", "| none", "two pairs", "push"):
        assert needle in text


def test_odds_bot_beats_the_random_bot() -> None:
    report = simulate(games.get("boss"), ["random", "odds"], 200, 1, BossOptions(), progress=False)
    seats = report.as_json()["seats"]
    assert seats[1]["win_share_95"][0] > 0.6
    assert seats[0]["win_share"] + seats[1]["win_share"] == 1.0
