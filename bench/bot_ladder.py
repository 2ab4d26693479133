"""The bot ladder: every bot of every game against each other, rated like the site's players.

For each rating kind (the five games, Boatzee in its 1, 2 and 3 column forms) every lineup
of distinct bots at the kind's table size (2 seats; 3 for Bull's Eye, its smallest standard
table) plays ``--games`` seeded games, seats rotating so each bot sits at each place equally.
The games are then rated in a shuffled order with the site's own rating model
(``domain/ratings/model.py``: openskill's Bradley-Terry with the kind's calibrated beta),
one rating per bot, without the per-game drift (tau) people's ratings have: a bot never
changes, so its uncertainty keeps shrinking with every game. Each bot's share of the wins
(winners split a win) is given with its 95% interval, next to the even share, and head to
head for every pair. The bots are ranked, and stored, by their share of the wins
(``dicehall.games.strengths.ranked``): the rating weighs every place, and between bots that
win alike it may order them otherwise.

Prints JSON (per kind: games, CPU seconds, each bot's rating with its interval, win share
and pairings); ``--write`` also stores the table the site's "Bots" page and ``dicehall
games`` show (``src/dicehall/games/bot_ladder.json``). Run from the repository root::

    python bench/bot_ladder.py --write            # the shipped table (about 7 CPU-minutes)
    python bench/bot_ladder.py --kinds boss --games 20
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a file: the repository root makes ``bench`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.ratings_league import SETUPS, imap, places, play_game, say
from dicehall import games
from dicehall.games import strengths
from dicehall.games.strengths import LADDER_PATH, LADDER_VERSION
from dicehall.server.domain.ratings import model

#: Seats at every ladder table, by kind (Bull's Eye needs 3 without its house rule).
TABLE_SEATS = {"bullseye": 3}
#: Games per lineup by default, by kind: fewer where a bot thinks for seconds a move.
DEFAULT_GAMES = {"holdem": 300, "bullseye": 2000, "boss": 3000, "tenthousand": 1000}
#: Games per lineup for every other kind.
GAMES = 300
#: z for a two-sided 95% interval.
Z95 = 1.959964


@dataclass(frozen=True)
class Lineup:
    """One game to play: the kind, its bots by seat and the seed of its dice and bots."""

    kind: str
    bots: tuple[str, ...]
    seed: int


def lineups(kind: str, bots: Sequence[str], games_each: int, seed: int) -> list[Lineup]:
    """Every set of distinct bots at the kind's table, ``games_each`` games, seats rotating."""
    seats = TABLE_SEATS.get(kind, 2)
    rng = random.Random(f"{seed}:{kind}")
    out = []
    for group in itertools.combinations(bots, seats):
        for game in range(games_each):
            shift = game % seats
            order = group[shift:] + group[:shift]
            out.append(Lineup(kind, order, rng.getrandbits(64)))
    return out


def _play(lineup: Lineup) -> tuple[Lineup, tuple[int, ...], tuple[int, ...], float]:
    started = time.process_time()
    result = play_game(lineup.kind, lineup.bots, lineup.seed)
    return lineup, places(result), tuple(result.winners), time.process_time() - started


def _interval(values: Sequence[float]) -> tuple[float, float, float]:
    """The mean of ``values`` and its 95% interval (normal approximation)."""
    n = len(values)
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / (n - 1) if n > 1 else 0.0
    half = Z95 * math.sqrt(var / n)
    return mean, max(0.0, mean - half), min(1.0, mean + half)


def ladder(kind: str, games_each: int, seed: int, workers: int) -> dict[str, Any]:
    """Play and rate one kind's ladder."""
    setup = SETUPS[kind]
    bots = list(games.get(setup.game).bots)
    todo = lineups(kind, bots, games_each, seed)
    say(f"{kind}: {len(todo)} games between {', '.join(bots)}")
    played = []
    for done, item in enumerate(imap(_play, todo, workers), 1):
        played.append(item)
        if done % 50 == 0 or done == len(todo):
            say(f"{kind}: played {done} of {len(todo)}")
    random.Random(f"{seed}:{kind}:order").shuffle(played)
    skills = {bot: model.Skill() for bot in bots}
    shares: dict[str, list[float]] = {bot: [] for bot in bots}
    duels: dict[tuple[str, str], list[float]] = {}
    cpu = 0.0
    for lineup, place, winners, seconds in played:
        cpu += seconds
        rated = model.rate(kind, [skills[b] for b in lineup.bots], list(place), drift=False)
        for bot, skill in zip(lineup.bots, rated, strict=True):
            skills[bot] = skill
        for seat, bot in enumerate(lineup.bots):
            won = 1 / len(winners) if seat in winners else 0.0
            shares[bot].append(won)
            for other in lineup.bots:
                if other != bot and len(lineup.bots) == 2:
                    duels.setdefault((bot, other), []).append(won)
    seats = TABLE_SEATS.get(kind, 2)
    rows = {}
    for bot in bots:
        skill = skills[bot]
        share, low, high = _interval(shares[bot])
        rows[bot] = {
            "rating": model.shown(skill),
            "rating_low": model.shown(model.Skill(skill.mu - 2 * skill.sigma)),
            "rating_high": model.shown(model.Skill(skill.mu + 2 * skill.sigma)),
            "mu": round(skill.mu, 3),
            "sigma": round(skill.sigma, 3),
            "games": len(shares[bot]),
            "win_share": round(share, 4),
            "win_share_low": round(low, 4),
            "win_share_high": round(high, 4),
        }
    # Stored strongest first, as every reader ranks them: by share of the wins.
    table = {bot: rows[bot] for bot in strengths.ranked(rows)}
    pairs = {
        f"{bot} vs {other}": dict(
            zip(("share", "low", "high"), map(_round4, _interval(won)), strict=True)
        )
        for (bot, other), won in sorted(duels.items())
    }
    return {
        "game": setup.game,
        "options": setup.options,
        "seats": seats,
        "even_share": round(1 / seats, 4),
        "games": len(played),
        "games_per_lineup": games_each,
        "cpu_seconds": round(cpu, 1),
        "bots": table,
        "head_to_head": pairs,
    }


def _round4(value: float) -> float:
    return round(value, 4)


def _write(path: Path, report: dict[str, Any]) -> None:
    """Store ``report``, keeping the kinds it did not run from the table already there."""
    stored: dict[str, Any] = {}
    if path.exists():
        stored = json.loads(path.read_text(encoding="utf-8"))
    if stored.get("version") == report["version"]:
        report = {**report, "kinds": {**stored.get("kinds", {}), **report["kinds"]}}
    path.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    say(f"wrote {path}")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ladder and print (and with ``--write`` store) its JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kinds", nargs="+", choices=sorted(SETUPS), default=sorted(SETUPS))
    parser.add_argument("--games", type=int, help="games per lineup (default: per kind)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=1, help="processes (default 1)")
    parser.add_argument(
        "--write",
        nargs="?",
        const=str(LADDER_PATH),
        help=f"store the table for the site (default path {LADDER_PATH})",
    )
    args = parser.parse_args(argv)
    if args.games is not None and args.games < 1:
        parser.error("--games must be at least 1")
    command = " ".join(["python bench/bot_ladder.py", *(sys.argv[1:] if argv is None else argv)])
    kinds = {}
    for kind in args.kinds:
        games_each = args.games or DEFAULT_GAMES.get(kind, GAMES)
        measured = {"measured": date.today().isoformat(), "command": command}
        kinds[kind] = {**measured, **ladder(kind, games_each, args.seed, args.workers)}
    report = {
        "version": LADDER_VERSION,
        "rating_model": "openskill Bradley-Terry, the site's beta per kind "
        f"(constants version {model.CONSTANTS_VERSION}) without drift (bots do not change); "
        "rating shown as 1500 + 40 (mu - 25), interval mu +- 2 sigma",
        "kinds": kinds,
    }
    text = json.dumps(report, indent=2)
    print(text)
    if args.write:
        _write(Path(args.write), report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
