"""Boss Dice benchmark: exact odds computations per second and engine steps per second (JSON)."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from itertools import combinations_with_replacement
from typing import Any

from dicehall.engine import Bot, RandomBot, Seeded, play_out
from dicehall.games.boss import GAME, BossOptions
from dicehall.games.boss import odds as boss_odds
from dicehall.games.boss.bots import OddsBot
from dicehall.games.boss.hands import beats_first, first_roll_rank, is_boss_keep

ROLLS = list(combinations_with_replacement(range(1, 7), 5))
KEPT = [k for n in range(2, 6) for k in combinations_with_replacement(range(1, 7), n)]
KEPT = [k for k in KEPT if is_boss_keep(k)]
POSITIONS = [
    (roll, kept)
    for kept in KEPT
    for roll in ROLLS
    if beats_first(first_roll_rank(kept), first_roll_rank(roll))
]


def rate(work: Callable[[], Any], seconds: float = 1.0) -> float:
    """Calls of ``work`` per second over about ``seconds``."""
    calls, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        work()
        calls += 1
    return calls / elapsed


def main() -> None:
    rng = random.Random(1)
    start = time.perf_counter()
    boss_odds._final_counts.cache_clear()
    boss_odds._keep_matrices()  # every keep's exact final-class counts, from scratch
    tables_s = time.perf_counter() - start

    def one_keep_odds() -> None:
        hand = tuple(rng.randint(1, 6) for _ in range(5))
        boss_odds.keep_odds((rng.randint(1, 6),) * rng.randint(0, 3), hand)

    def one_ranking() -> None:
        boss_odds._ranked.cache_clear()
        roll, kept = rng.choice(POSITIONS)
        boss_odds.rank_keeps(roll, boss_kept=kept)

    def one_call() -> None:
        boss_odds._ranked.cache_clear()
        roll, kept = rng.choice(POSITIONS)
        hand = kept + tuple(rng.randint(1, 6) for _ in range(5 - len(kept)))
        boss_odds.call_odds(hand, kept, roll)

    boss_odds._ranked.cache_clear()
    start = time.perf_counter()
    for roll, kept in POSITIONS:
        boss_odds.rank_keeps(roll, boss_kept=kept)
    every_position_s = time.perf_counter() - start

    options = BossOptions()
    games = steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < 2.0:
        bots: list[Bot] = [RandomBot(random.Random(games)), RandomBot(random.Random(games + 1))]
        _, _, events = play_out(GAME, 2, options, bots, Seeded(games))
        games += 1
        steps += len(events)
    random_elapsed = time.perf_counter() - start

    odds_games, start = 0, time.perf_counter()
    while time.perf_counter() - start < 2.0:
        bots = [OddsBot(random.Random(0)), OddsBot(random.Random(1))]
        play_out(GAME, 2, options, bots, Seeded(odds_games), record=False)
        odds_games += 1
    odds_elapsed = time.perf_counter() - start

    print(
        json.dumps(
            {
                "game": "boss",
                "odds_tables_build_s": round(tables_s, 4),
                "keep_odds_per_s": round(rate(one_keep_odds)),
                "rank_keeps_uncached_per_s": round(rate(one_ranking)),
                "call_odds_uncached_per_s": round(rate(one_call)),
                "opponent_positions": len(POSITIONS),
                "rank_every_opponent_position_s": round(every_position_s, 3),
                "engine_steps_per_s": round(steps / random_elapsed),
                "random_games_per_s": round(games / random_elapsed, 1),
                "odds_bot_games_per_s": round(odds_games / odds_elapsed, 1),
            }
        )
    )


if __name__ == "__main__":
    main()
