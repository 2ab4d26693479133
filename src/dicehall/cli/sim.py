"""``dicehall sim``: many bot-only games, summarised per seat."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Any

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn
from rich.table import Table as RichTable

from dicehall.engine.dice import Seeded
from dicehall.engine.driver import play_out
from dicehall.engine.game import Result
from dicehall.games import GameEntry


@dataclass
class SeatStats:
    """Running totals for one seat."""

    bot: str
    wins: float = 0.0
    wins_sq: float = 0.0
    score_sum: float = 0.0
    score_sq: float = 0.0


@dataclass
class SimReport:
    """The summary of a simulation."""

    game: str
    games: int
    seed: int
    seats: list[SeatStats]
    turns_sum: float = 0.0
    scores: list[list[int]] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        """The JSON shape of ``sim --json``."""
        n = self.games
        out_seats = []
        for i, s in enumerate(self.seats):
            share = s.wins / n
            half = 1.96 * _sd(s.wins, s.wins_sq, n) / math.sqrt(n)
            mean = s.score_sum / n
            score_half = 1.96 * _sd(s.score_sum, s.score_sq, n) / math.sqrt(n)
            out_seats.append(
                {
                    "seat": i + 1,
                    "bot": s.bot,
                    "win_share": share,
                    "win_share_95": [max(0.0, share - half), min(1.0, share + half)],
                    "mean_score": mean,
                    "mean_score_95": [mean - score_half, mean + score_half],
                }
            )
        return {
            "game": self.game,
            "games": n,
            "seed": self.seed,
            "seats": out_seats,
            "mean_turns": self.turns_sum / n,
        }


def _sd(total: float, total_sq: float, n: int) -> float:
    if n < 2:
        return 0.0
    mean = total / n
    return math.sqrt(max(0.0, (total_sq - n * mean * mean) / (n - 1)))


def simulate(
    entry: GameEntry,
    bots: list[str],
    games: int,
    seed: int,
    options: Any,
    *,
    progress: bool = True,
    keep_scores: bool = False,
) -> SimReport:
    """Play ``games`` games between ``bots`` (one per seat); the same seed, the same numbers.

    A shared win counts as an equal share to each winner.
    """
    game = entry.game
    game.check_seats(len(bots))
    for name in bots:  # check every name before the first game
        entry.bot(name, random.Random(0))
    master = random.Random(seed)
    report = SimReport(entry.name, games, seed, [SeatStats(b) for b in bots])
    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        disable=not progress,
        transient=True,
    ) as bar:
        task = bar.add_task(f"{game.title}", total=games)
        for _ in range(games):
            game_seed = master.getrandbits(64)
            rng = random.Random(game_seed)
            players = [entry.bot(b, random.Random(rng.getrandbits(64))) for b in bots]
            _, result, _ = play_out(
                game, len(bots), options, players, Seeded(rng.getrandbits(64)), record=False
            )
            _tally(report, result, keep_scores)
            bar.advance(task)
    return report


def _tally(report: SimReport, result: Result, keep_scores: bool) -> None:
    share = 1.0 / len(result.winners)
    for i, stats in enumerate(report.seats):
        won = share if i in result.winners else 0.0
        stats.wins += won
        stats.wins_sq += won * won
        score = result.scores[i]
        stats.score_sum += score
        stats.score_sq += score * score
    report.turns_sum += result.turns
    if keep_scores:
        report.scores.append(list(result.scores))


def report_table(report: SimReport) -> RichTable:
    """The human-readable table of a simulation."""
    data = report.as_json()
    table = RichTable(title=f"{report.game}: {report.games} games, seed {report.seed}")
    for column in ("seat", "bot", "win share", "95% interval", "mean score", "95% interval"):
        table.add_column(column, justify="right" if column != "bot" else "left")
    for s in data["seats"]:
        lo, hi = s["win_share_95"]
        slo, shi = s["mean_score_95"]
        table.add_row(
            str(s["seat"]),
            s["bot"],
            f"{s['win_share']:.2%}",
            f"{lo:.2%} .. {hi:.2%}",
            f"{s['mean_score']:.2f}",
            f"{slo:.2f} .. {shi:.2f}",
        )
    table.caption = f"mean turns per game: {data['mean_turns']:.2f}"
    return table
