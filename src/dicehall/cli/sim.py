"""``dicehall sim``: many bot-only games, summarised per seat, and drawn as a picture."""

from __future__ import annotations

import importlib.util
import math
import random
from collections import Counter
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn
from rich.table import Table as RichTable

from dicehall.engine.dice import Seeded
from dicehall.engine.errors import InvalidInput
from dicehall.engine.game import Result
from dicehall.engine.table import play_out
from dicehall.games import GameEntry
from dicehall.games.entry import FastPlay, load

if TYPE_CHECKING:
    from matplotlib.figure import Figure


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
    turns: list[int] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        """The JSON shape of ``sim --json``."""
        n = self.games
        out_seats = []
        for i, s in enumerate(self.seats):
            share = s.wins / n
            mean = s.score_sum / n
            score_half = 1.96 * _sd(s.score_sum, s.score_sq, n) / math.sqrt(n)
            out_seats.append(
                {
                    "seat": i + 1,
                    "bot": s.bot,
                    "win_share": share,
                    "win_share_95": list(wilson_interval(share, n)),
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


def wilson_interval(share: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a share observed over ``n`` games (95% by default).

    Unlike the normal approximation it stays inside [0, 1] and does not collapse to a point
    when a seat wins every game or none.
    """
    if n <= 0:
        return (0.0, 1.0)
    z2 = z * z
    centre = (share + z2 / (2 * n)) / (1 + z2 / n)
    half = z / (1 + z2 / n) * math.sqrt(max(0.0, share * (1 - share)) / n + z2 / (4 * n * n))
    return (max(0.0, centre - half), min(1.0, centre + half))


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

    A shared win counts as an equal share to each winner. ``keep_scores`` keeps every game's
    scores and turns (for :func:`save_plot`). A game's :attr:`GameEntry.fast_play` plays the
    line-ups it knows, with the results the engine would give.
    """
    game = entry.game
    game.check_seats(len(bots))
    for name in bots:  # check every name before the first game
        entry.bot(name, random.Random(0))
    fast: FastPlay | None = load(entry.fast_play) if entry.fast_play else None
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
            bot_seeds = [rng.getrandbits(64) for _ in bots]
            dice_seed = rng.getrandbits(64)
            result = fast(bots, options, dice_seed) if fast is not None else None
            if result is None:
                players = [
                    entry.bot(b, random.Random(s)) for b, s in zip(bots, bot_seeds, strict=True)
                ]
                _, result, _ = play_out(
                    game, len(bots), options, players, Seeded(dice_seed), record=False
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
        report.turns.append(result.turns)


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


def check_plot_path(text: str) -> Path:
    """A usable file name for the picture: a ``.png`` in a directory that exists."""
    if importlib.util.find_spec("matplotlib") is None:
        raise InvalidInput("--plot needs dicehall's plot extra: pip install 'dicehall[plot]'")
    path = Path(text).expanduser()
    if path.suffix.lower() != ".png":
        raise InvalidInput(
            f"--plot: the picture is a PNG; give a file name ending in .png, not {path}"
        )
    if not path.parent.is_dir():
        raise InvalidInput(f"--plot: there is no directory {path.parent}")
    if path.is_dir():
        raise InvalidInput(f"--plot: {path} is a directory")
    return path


#: With several series, at most this many distinct values get a bar each (grouped per value).
GROUPED_VALUES = 20
#: At most this many possible values (from the lowest to the highest, in steps) get a bar or a
#: bin each; beyond, 30 bins.
VALUE_BINS = 60


def _distribution(ax: Any, values: list[list[int]], labels: list[str], what: str) -> None:
    """Each series' distribution, every bar where its value is.

    Several series with few distinct values: groups of bars side by side, one group per value,
    each group labelled with its value. One series with few possible values: a bar centred on
    each value. Otherwise an outline per series over bins centred on the possible values (or
    30 bins when there are many).
    """
    from matplotlib.ticker import MaxNLocator

    games = len(values[0])
    distinct = sorted({v for series in values for v in series})
    step = math.gcd(*(b - a for a, b in pairwise(distinct))) or 1
    possible = (distinct[-1] - distinct[0]) // step + 1
    if len(values) > 1 and len(distinct) <= GROUPED_VALUES:
        # Side by side, bars cannot all stand at their value on a number line (a bar for 600
        # would stand at 440): so one slot per value, named by it.
        width = 0.8 / len(values)
        slots = range(len(distinct))
        for k, (series, label) in enumerate(zip(values, labels, strict=True)):
            counts = Counter(series)
            xs = [slot - 0.4 + width * (k + 0.5) for slot in slots]
            ax.bar(xs, [counts[v] / games for v in distinct], width=width, label=label)
        ax.set_xticks(list(slots), [str(v) for v in distinct])
        ax.set_xlim(-0.6, len(distinct) - 0.4)
    elif len(values) == 1 and possible <= VALUE_BINS:
        counts = Counter(values[0])
        ax.bar(distinct, [counts[v] / games for v in distinct], width=0.8 * step, label=labels[0])
        ax.set_xlim(distinct[0] - step, distinct[-1] + step)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    else:
        low, high = distinct[0], distinct[-1]
        if possible <= VALUE_BINS:
            bins = [low + step * (i - 0.5) for i in range(possible + 1)]
        else:
            bins = [low + (high - low) * i / 30 for i in range(31)]
        for series, label in zip(values, labels, strict=True):
            weights = [1 / games] * games
            ax.hist(series, bins=bins, weights=weights, histtype="step", linewidth=1.5, label=label)
    ax.set_xlabel(what)
    ax.set_ylabel("share of games")


def draw(report: SimReport, title: str) -> Figure:
    """A simulation's picture: win shares with their 95% intervals, each seat's score
    distribution, and the distribution of turns per game (needs ``keep_scores``)."""
    from matplotlib.figure import Figure  # drawn off screen: no display, no pyplot state

    if not report.scores:
        raise ValueError("save_plot needs a simulation run with keep_scores=True")
    data = report.as_json()
    labels = [f"{s['seat']}: {s['bot']}" for s in data["seats"]]
    figure = Figure(figsize=(13, 4.2), layout="constrained")
    figure.suptitle(f"{title}: {report.games:,} games, seed {report.seed}")
    wins, scores, turns = figure.subplots(1, 3, width_ratios=[1, 1.4, 1.1])

    shares = [s["win_share"] for s in data["seats"]]
    errors = [
        [share - s["win_share_95"][0] for share, s in zip(shares, data["seats"], strict=True)],
        [s["win_share_95"][1] - share for share, s in zip(shares, data["seats"], strict=True)],
    ]
    colours = [f"C{i}" for i in range(len(shares))]
    rows = list(range(len(shares)))[::-1]
    wins.barh(rows, shares, xerr=errors, color=colours, capsize=4)
    wins.axvline(1 / len(shares), color="grey", linestyle="--", linewidth=1)
    wins.set_yticks(rows, labels)
    wins.set_xlim(0, 1)
    wins.set_xlabel("win share (95% Wilson interval; dashed: an even share)")
    for row, share, seat in zip(rows, shares, data["seats"], strict=True):
        low, high = seat["win_share_95"]
        if high < 0.8:  # beside the interval, or inside the bar when there is no room
            wins.text(high + 0.02, row, f"{share:.1%}", va="center")
        else:
            wins.text(low - 0.02, row, f"{share:.1%}", va="center", ha="right", color="white")

    per_seat = [[game[i] for game in report.scores] for i in range(len(report.seats))]
    _distribution(scores, per_seat, labels, "final score")
    scores.legend(fontsize="small")
    _distribution(turns, [report.turns], ["all games"], "turns per game")
    turns.set_title(f"mean {data['mean_turns']:.2f} turns", fontsize="medium")
    return figure


def save_plot(report: SimReport, path: Path, title: str) -> None:
    """Draw a simulation as a PNG (see :func:`draw`; needs ``keep_scores``)."""
    figure = draw(report, title)
    try:
        figure.savefig(path, format="png", dpi=100)
    except OSError as exc:
        raise InvalidInput(f"--plot: cannot write {path}: {exc.strerror or exc}") from None
