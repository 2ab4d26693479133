"""Hold'em Dice heads-up: the ``cfr`` bot against the ``equity`` bot; prints one JSON object.

Duplicate hands: each pair of hands deals the same dice twice with the bots' seats swapped
(the re-rolls of an all-check flop come from their own stream, so a re-roll in one hand
does not shift the turn and river of the other). Every hand starts from fresh stacks of
500 with seat 0 dealing. Reported: the cfr bot's chips per hand with a 95% interval over
the pairs, hands played, CPU seconds, and the table's exploitability within its
abstraction (of the average strategy, and of the thresholded one the bot plays). One
process, one core. Run:
``.venv/bin/python bench/bench_holdem_cfr.py [--pairs 40000] [--table PATH]``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import time
from pathlib import Path
from typing import Any

from dicehall.engine import Seeded, resolve_request
from dicehall.engine.bots import Bot
from dicehall.engine.game import Chance, ToAct
from dicehall.games.holdem.bots import EquityBot
from dicehall.games.holdem.cfr_bot import CfrBot
from dicehall.games.holdem.cfr_table import PATH, load
from dicehall.games.holdem.model import ANTE, HoldemOptions
from dicehall.games.holdem.rules import GAME

STACK = 500


def play_hand(bots: list[Bot], seed: int) -> tuple[int, int]:
    """Play one hand from fresh stacks; each seat's net chips."""
    state = GAME.start(2, HoldemOptions(stack=STACK))
    source, rerolls = Seeded(seed), Seeded(seed + 1)
    while state.hand == 1 and state.stage != "over":
        turn = GAME.turn(state)
        if isinstance(turn, Chance):
            dice = rerolls if state.stage == "reroll" else source
            state = GAME.apply_outcome(state, turn.request, resolve_request(dice, turn.request))
        else:
            assert isinstance(turn, ToAct)
            seat = turn.seat
            action = bots[seat].choose(GAME.view(state, seat), GAME.legal(state, seat))
            state = GAME.apply(state, seat, action)
    # The next hand's antes are already posted unless the game is over.
    back = 0 if state.stage == "over" else ANTE
    return state.stacks[0] + back - STACK, state.stacks[1] + back - STACK


def measure(pairs: int, seed: int, table_path: Path) -> dict[str, Any]:
    """The cfr bot's chips per hand against equity over ``pairs`` duplicate pairs."""
    table = load(table_path)
    master = random.Random(seed)
    cfr = CfrBot(random.Random(master.getrandbits(64)), table)
    equity = EquityBot(random.Random(master.getrandbits(64)))
    per_pair: list[float] = []
    for _ in range(pairs):
        deal = master.getrandbits(62)
        first, _ = play_hand([cfr, equity], deal)
        _, second = play_hand([equity, cfr], deal)
        per_pair.append((first + second) / 2)
    mean = statistics.fmean(per_pair)
    half = 1.96 * statistics.stdev(per_pair) / math.sqrt(pairs)
    return {
        "chips_per_hand": round(mean, 3),
        "chips_per_hand_95": [round(mean - half, 3), round(mean + half, 3)],
        "interval_excludes_zero": mean - half > 0 or mean + half < 0,
        "hands": 2 * pairs,
        "pairs": pairs,
        "table": {k: round(v, 4) for k, v in table.info.items()},
    }


def main() -> None:
    """Measure and print the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=40_000, help="duplicate pairs of hands")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--table", type=Path, default=PATH)
    args = parser.parse_args()
    started = time.process_time()
    result: dict[str, Any] = {"benchmark": "holdem_cfr_vs_equity", "stack": STACK}
    result.update(measure(args.pairs, args.seed, args.table))
    result["exploitability_chips_per_hand"] = result["table"]["exploitability"]
    result["exploitability_played_chips_per_hand"] = result["table"]["exploitability_played"]
    result["cpu_seconds"] = round(time.process_time() - started, 1)
    result["cpu_ms_per_hand"] = round(1000 * result["cpu_seconds"] / result["hands"], 2)
    result["load"] = os.getloadavg()[0]
    print(json.dumps(result))


if __name__ == "__main__":
    main()
