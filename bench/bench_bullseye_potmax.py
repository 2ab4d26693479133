"""Bull's Eye with 3 to 6 seats: one ``potmax`` seat against ``optimal`` seats; prints one
JSON object.

For each seat count the ``potmax`` bot sits in every seat in turn, ``--games`` games per
seating (default rules: two leads per seat), the other seats ``optimal``. Each game is
played twice on the same dice, once so and once with ``optimal`` in that seat too (the
control): every seat's throws in every round come from their own seeded stream, so the two
games differ only where ``potmax`` decides differently. Reported per seat count, for the
``potmax`` seat and for the same seat in the control, each with its 95% interval, and
their difference paired game by game: the share of the round's pot per round (from the
round's scores: 1 / the number of seats tied on the highest score above 0, else 0), the
chips won from pots per round, the net chips per game (bets included), the share of the
game wins (points; a shared win split; Wilson intervals), and the CPU time. Also the time
of one decision, cold and warm. Run: ``.venv/bin/python bench/bench_bullseye_potmax.py
[--games 500] [--seed 1]``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import time
from collections.abc import Callable, Sequence
from typing import Any

from dicehall.cli.sim import wilson_interval
from dicehall.engine.dice import Seeded, resolve_request
from dicehall.engine.game import Chance, Finished
from dicehall.games.bullseye import GAME, BullseyeOptions, BullseyeState, potmax, stopping
from dicehall.games.bullseye.bots import OptimalBot, PotMaxBot

SEATS = (3, 4, 5, 6)
#: Figures of one seat in one game, by name.
NAMES = ("pot_share_per_round", "chips_won_per_round", "net_chips_per_game", "win_share")


def _mean_95(values: Sequence[float]) -> tuple[float, list[float]]:
    """The mean and its 95% interval (normal approximation over independent games)."""
    n = len(values)
    mean = sum(values) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else 0.0
    half = 1.96 * sd / math.sqrt(n)
    return mean, [mean - half, mean + half]


def play(seats: int, bots: Sequence[Any], game_seed: int) -> BullseyeState:
    """A default game; the lead choice and each (round, thrower) roll from their own stream."""
    state = GAME.start(seats, BullseyeOptions())
    streams: dict[tuple[int, int], Seeded] = {}
    while not isinstance(turn := GAME.turn(state), Finished):
        if isinstance(turn, Chance):
            rnd = state.round
            key = (0, seats) if rnd is None else (rnd.number, rnd.thrower)
            if key not in streams:
                streams[key] = Seeded((game_seed * 1_000 + key[0]) * 10 + key[1])
            state = GAME.resolve(state, resolve_request(streams[key], turn.request))
        else:
            view = GAME.view(state, turn.seat)
            action = bots[turn.seat].choose(view, GAME.legal(state, turn.seat))
            state = GAME.act(state, turn.seat, action)
    return state


def figures(state: BullseyeState, seat: int) -> tuple[float, ...]:
    """``seat``'s figures in a finished game, in the order of :data:`NAMES`."""
    rounds = state.history
    share = 0.0
    for rnd in rounds:
        scores = [s or 0 for s in rnd.scores]
        top = max(scores)
        if top > 0 and scores[seat] == top:
            share += 1 / scores.count(top)
    won = sum(r.won[seat] for r in rounds)
    top_points = max(state.points)
    wins = state.points.count(top_points)
    win = 1 / wins if state.points[seat] == top_points else 0.0
    net = state.banks[seat] - state.options.bank
    return share / len(rounds), won / len(rounds), float(net), win


def measure(seats: int, games_per_seat: int, seed: int) -> dict[str, Any]:
    """Every seating of one potmax seat among ``seats``, each game against its control."""
    started = time.process_time()
    mine: list[tuple[float, ...]] = []
    control: list[tuple[float, ...]] = []
    for seat in range(seats):
        for game in range(games_per_seat):
            game_seed = ((seed * 10 + seats) * 10 + seat) * 1_000_000 + game
            rng = random.Random(game_seed)
            bots: list[Any] = [OptimalBot(rng) for _ in range(seats)]
            control.append(figures(play(seats, bots, game_seed), seat))
            bots[seat] = PotMaxBot(rng)
            mine.append(figures(play(seats, bots, game_seed), seat))
    report: dict[str, Any] = {"games": len(mine)}
    for i, name in enumerate(NAMES):
        ours = [f[i] for f in mine]
        theirs = [f[i] for f in control]
        report[name] = _compare(ours, theirs, wilson=name == "win_share")
    report["win_share"]["fair"] = 1 / seats
    report["cpu_seconds"] = round(time.process_time() - started, 1)
    return report


def _compare(ours: list[float], theirs: list[float], *, wilson: bool) -> dict[str, Any]:
    """Both means with their intervals, and the difference paired game by game."""
    out: dict[str, Any] = {}
    for name, values in (("potmax", ours), ("optimal", theirs)):
        mean, interval = _mean_95(values)
        if wilson:
            interval = list(wilson_interval(mean, len(values)))
        out[name] = mean
        out[f"{name}_95"] = interval
    diff, diff_95 = _mean_95([a - b for a, b in zip(ours, theirs, strict=True)])
    out["difference"] = diff
    out["difference_95"] = diff_95
    return out


def _ms(fn: Callable[[], object]) -> float:
    start = time.process_time()
    fn()
    return (time.process_time() - start) * 1000


def decision_ms() -> dict[str, float]:
    """One decision's CPU time: nothing cached, a new field, and cached."""
    for cached in (stopping.hint, stopping.value, stopping.score_distribution):
        cached.cache_clear()
    potmax.pot_hint.cache_clear()
    potmax.score_share.cache_clear()
    first = potmax.Field(30, 1, 2)
    return {
        "cold": _ms(lambda: potmax.pot_hint(27, 12, 1, first)),
        "new_field": _ms(lambda: potmax.pot_hint(27, 12, 1, potmax.Field(20, 2, 3))),
        "warm": min(_ms(lambda: potmax.pot_hint(27, 12, 1, first)) for _ in range(100)),
    }


def main() -> None:
    """Measure every seat count and print the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=500, help="games per seating")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    started = time.process_time()
    result: dict[str, Any] = {
        "benchmark": "bullseye_potmax_against_optimal",
        "field": "optimal",
        "games_per_seating": args.games,
        "seed": args.seed,
        "decision_ms": decision_ms(),
    }
    for seats in SEATS:
        result[f"{seats}_seats"] = measure(seats, args.games, args.seed)
    result["cpu_seconds"] = round(time.process_time() - started, 1)
    result["load"] = os.getloadavg()[0]
    print(json.dumps(result))


if __name__ == "__main__":
    main()
