"""Boss Dice equilibrium benchmark (JSON): the solve, its figures, the bots' exploitability,
and the ``equilibrium`` bot's record against ``odds`` over many hands played by the engine.

A hand is one Boss decision and, after "come up", its showdown; first rolls that make no
Boss are rolled again inside the hand. Matches of one horse are played until ``--hands``
hands have been counted, the equilibrium bot taking seat 1 and seat 2 in turn.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dicehall.engine import Bot, Seeded, play_out
from dicehall.games.boss import GAME, BossOptions, PickedUp, Showdown
from dicehall.games.boss.bot_profile import bot_profile
from dicehall.games.boss.bots import EquilibriumBot, HeuristicBot, OddsBot
from dicehall.games.boss.equilibrium import Equilibrium
from dicehall.games.boss.equilibrium_store import forget, load_or_solve
from dicehall.games.boss.profiles import exploitability, horse_value


def wilson(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass
class Record:
    """Hands seen from the equilibrium bot's seat."""

    hands: int = 0
    won: int = 0
    lost: int = 0
    pushes: int = 0
    pick_ups: int = 0
    as_boss: int = 0

    def as_json(self) -> dict[str, Any]:
        decided = self.won + self.lost
        low, high = wilson(self.won, decided)
        return {
            "hands": self.hands,
            "hands_as_boss": self.as_boss,
            "won": self.won,
            "lost": self.lost,
            "pushes": self.pushes,
            "pick_ups": self.pick_ups,
            "share_of_decided_hands_won": self.won / decided,
            "share_95_wilson": [low, high],
        }


def play_hands(solved: Equilibrium, hands: int, seed: int) -> Record:
    """The equilibrium bot against the odds bot until ``hands`` hands are played."""
    record = Record()
    options = BossOptions(horses=1)
    master = random.Random(seed)
    match = 0
    while record.hands < hands:
        mine = match % 2
        players: list[Bot] = [OddsBot(random.Random(master.getrandbits(64)))] * 2
        players[mine] = EquilibriumBot(random.Random(master.getrandbits(64)), solved)
        state, _, _ = play_out(
            GAME, 2, options, players, Seeded(master.getrandbits(64)), record=False
        )
        for item in state.history:
            if record.hands == hands:
                break
            if isinstance(item, PickedUp | Showdown):
                record.hands += 1
                record.as_boss += item.boss == mine
            if isinstance(item, PickedUp):
                record.pick_ups += 1
            elif isinstance(item, Showdown):
                if item.winner is None:
                    record.pushes += 1
                elif item.winner == mine:
                    record.won += 1
                else:
                    record.lost += 1
        match += 1
    return record


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=10)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as scratch:
        start = time.perf_counter()
        solved, _ = load_or_solve(directory=Path(scratch), refresh=True)
        solve_s = time.perf_counter() - start
        start = time.perf_counter()
        forget()
        load_or_solve(directory=Path(scratch))
        load_s = time.perf_counter() - start
    start = time.perf_counter()
    report = solved.report()
    report_s = time.perf_counter() - start
    game = solved.game

    bots: dict[str, Any] = {}
    for name, factory in (("odds", OddsBot), ("heuristic", HeuristicBot)):
        profile = bot_profile(factory(random.Random(0)))
        gain = exploitability(game, profile)
        bots[name] = {
            "exploitability": gain.horse,
            "exploitability_hand": {"boss": gain.boss, "opponent": gain.opponent},
            "equilibrium_horse_share_exact": horse_value(game, solved.profile, profile),
        }

    start = time.perf_counter()
    record = play_hands(solved, args.hands, args.seed)
    play_s = time.perf_counter() - start
    print(
        json.dumps(
            {
                "game": "boss",
                "public_states": report.public_states,
                "solve_s": round(solve_s, 2),
                "load_cached_s": round(load_s, 3),
                "report_s": round(report_s, 3),
                "boss_value": report.boss_value,
                "fresh_hand_value": report.fresh,
                "come_up": report.outcome.come_up,
                "pick_up": report.outcome.pick_up,
                "exploitability": report.exploitability.horse,
                "exploitability_hand": {
                    "boss": report.exploitability.boss,
                    "opponent": report.exploitability.opponent,
                },
                "bots": bots,
                "record_vs_odds": record.as_json(),
                "record_seconds": round(play_s, 1),
                "seed": args.seed,
            }
        )
    )


if __name__ == "__main__":
    main()
