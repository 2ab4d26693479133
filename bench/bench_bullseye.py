"""Bull's Eye benchmark: engine steps/s, whole games/s with bots, hint and odds latency.

Run ``python bench/bench_bullseye.py``; prints one JSON object.
"""

from __future__ import annotations

import json
import random
import time
from typing import Any

from dicehall.engine.bots import RandomBot
from dicehall.engine.dice import Seeded, resolve_request
from dicehall.engine.game import Chance, Finished
from dicehall.engine.table import play_out
from dicehall.games.bullseye import GAME, BullseyeOptions, odds, stopping, throws
from dicehall.games.bullseye.bots import OptimalBot


def _engine_steps(seconds: float) -> dict[str, float]:
    """Raw contract calls (turn, legal, act or resolve) with random moves."""
    rng = random.Random(1)
    source = Seeded(2)
    options = BullseyeOptions()
    steps = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = GAME.start(5, options)
        while not isinstance(turn := GAME.turn(state), Finished):
            if isinstance(turn, Chance):
                state = GAME.resolve(state, resolve_request(source, turn.request))
            else:
                legal = GAME.legal(state, turn.seat)
                state = GAME.act(state, turn.seat, legal[int(rng.random() * len(legal))])
            steps += 1
        games += 1
    elapsed = time.perf_counter() - start
    return {"steps_per_s": steps / elapsed, "steps_per_game": steps / games}


def _games(bot: Any, seats: int, seconds: float) -> float:
    rng = random.Random(3)
    source = Seeded(4)
    options = BullseyeOptions()
    games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        bots = [bot(random.Random(rng.getrandbits(32))) for _ in range(seats)]
        play_out(GAME, seats, options, bots, source, record=False)
        games += 1
    return games / (time.perf_counter() - start)


def _clear_caches() -> None:
    for fn in (
        throws.counted_distribution,
        throws.sum_distribution,
        odds.lead_part_distribution,
        odds.target_distribution,
        stopping.reachable_totals,
        stopping.hint,
        stopping.value,
        stopping.score_distribution,
    ):
        fn.cache_clear()


def _ms(fn: Any, *args: Any) -> float:
    start = time.perf_counter()
    fn(*args)
    return (time.perf_counter() - start) * 1000


def main() -> None:
    """Measure and print the figures."""
    _clear_caches()
    odds_cold = _ms(odds.target_distribution)
    hint_cold = _ms(stopping.hint, 27, 12, 1)
    targets = list(odds.target_distribution())
    all_cold = _ms(lambda: [stopping.value(t, 0, 0) for t in targets])
    hint_warm = min(_ms(stopping.hint, 27, 12, 1) for _ in range(1000))
    report = {
        "game": "bullseye",
        "engine_random_5_seats": _engine_steps(3.0),
        "games_per_s_optimal_3_seats": _games(OptimalBot, 3, 3.0),
        "games_per_s_optimal_8_seats": _games(OptimalBot, 8, 3.0),
        "games_per_s_random_5_seats": _games(RandomBot, 5, 3.0),
        "odds_cold_ms": odds_cold,
        "hint_cold_ms": hint_cold,
        "hint_every_target_after_first_ms": all_cold,
        "hint_warm_ms": hint_warm,
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
