"""Codec speed against the json module on realistic mid-game states of every game (JSON).

    python bench/codec.py [--states 200] [--rounds 15] [--seed 1] [--case holdem ...]

Plays random games (random bots, seeded dice) of every game and variant, keeps states from
the middle half of each game (at most 8 a game), and times, per state: ``json.loads`` of its
stored text against ``codec.loads`` of the same text to the game's state type, and
``json.dumps`` of the plain data (compact, as the codec writes) against ``codec.dumps`` of
the state. Each pair is interleaved in rounds (their order alternating) so drift hits both
alike, and both sides are called the same way (through a lambda). Prints one JSON object:
per case, the states timed, their mean text length, and the median over rounds of the ns
per state of each, with the ratio codec / json.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from dicehall import games
from dicehall.engine import codec
from dicehall.engine.bots import RandomBot
from dicehall.engine.dice import Seeded
from dicehall.engine.table import Table

#: (case name, game, seats, options).
CASES: list[tuple[str, str, int, dict[str, Any]]] = [
    ("tenthousand", "tenthousand", 3, {}),
    ("boatzee", "boatzee", 3, {}),
    ("boatzee_columns2", "boatzee", 3, {"columns": 2}),
    ("boatzee_columns3", "boatzee", 3, {"columns": 3}),
    ("boss", "boss", 2, {}),
    ("holdem", "holdem", 4, {}),
    ("bullseye", "bullseye", 3, {}),
]


def _every_state(
    game: Any, seats: int, options: Any, dice: Seeded, bots: dict[int, Any]
) -> list[Any]:
    """Every state a game passes through until it ends (the final one left out)."""
    seen: list[Any] = []
    table: Table[Any, Any] = Table(
        game, seats, options, record=False, listener=lambda state, _e, _a: seen.append(state)
    )
    table.advance(dice, bots)
    return seen


def mid_game_states(
    kind: str, seats: int, raw: dict[str, Any], wanted: int, seed: int
) -> list[Any]:
    """``wanted`` states from the middle half of random games, at most 8 from each game,
    evenly spread."""
    game = games.get(kind).game
    options = game.options(raw)
    rng = random.Random(seed)
    out: list[Any] = []
    while len(out) < wanted:
        dice = Seeded(rng.getrandbits(64))
        bots = {seat: RandomBot(random.Random(rng.getrandbits(64))) for seat in range(seats)}
        seen = _every_state(game, seats, options, dice, bots)
        middle = seen[len(seen) // 4 : 3 * len(seen) // 4]
        out += middle[:: max(1, len(middle) // 8)][:8]
    return out[:wanted]


def per_item_ns(work: Callable[[Any], object], items: list[Any]) -> float:
    """Nanoseconds per item of one pass of ``work`` over ``items``."""
    start = time.perf_counter_ns()
    for item in items:
        work(item)
    return (time.perf_counter_ns() - start) / len(items)


def race(
    baseline: Callable[[Any], object],
    contender: Callable[[Any], object],
    base_items: list[Any],
    items: list[Any],
    rounds: int,
) -> dict[str, float]:
    """Median ns per item of each, interleaved in rounds, and their ratio."""
    base: list[float] = []
    ours: list[float] = []
    for r in range(rounds):
        if r % 2:
            ours.append(per_item_ns(contender, items))
            base.append(per_item_ns(baseline, base_items))
        else:
            base.append(per_item_ns(baseline, base_items))
            ours.append(per_item_ns(contender, items))
    json_ns, codec_ns = statistics.median(base), statistics.median(ours)
    return {
        "json_ns": round(json_ns),
        "codec_ns": round(codec_ns),
        "ratio": round(codec_ns / json_ns, 2),
    }


def bench_case(
    kind: str, seats: int, raw: dict[str, Any], wanted: int, rounds: int, seed: int
) -> dict[str, Any]:
    """Decode and encode timings of one game's mid-game states."""
    state_type = games.get(kind).game.state_type
    states = mid_game_states(kind, seats, raw, wanted, seed)
    texts = [codec.dumps(s) for s in states]
    plain = [json.loads(t) for t in texts]
    for state, text in zip(states, texts, strict=True):
        assert codec.loads(text, state_type) == state, "the codec must round-trip"

    return {
        "states": len(states),
        "mean_chars": round(statistics.mean(len(t) for t in texts)),
        "loads": race(
            lambda t: json.loads(t), lambda t: codec.loads(t, state_type), texts, texts, rounds
        ),
        "dumps": race(
            lambda d: json.dumps(d, separators=(",", ":")),
            lambda s: codec.dumps(s),
            plain,
            states,
            rounds,
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--states", type=int, default=200, help="states timed per case")
    parser.add_argument("--rounds", type=int, default=15, help="timed rounds per measure")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--case", action="append", choices=[c[0] for c in CASES], help="only these")
    args = parser.parse_args()
    cases = {
        name: bench_case(kind, seats, raw, args.states, args.rounds, args.seed)
        for name, kind, seats, raw in CASES
        if not args.case or name in args.case
    }
    report = {
        "python": platform.python_version(),
        "states_per_case": args.states,
        "rounds": args.rounds,
        "cases": cases,
        "worst_loads_ratio": max(c["loads"]["ratio"] for c in cases.values()),
        "worst_dumps_ratio": max(c["dumps"]["ratio"] for c in cases.values()),
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
