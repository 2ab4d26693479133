"""Ratings calibrated for luck: back-test the rating model on leagues of the project's bots.

Run ``python bench/ratings_calibrate.py [--games N] [--kinds a,b] [--quick] [--seed S]``: one
JSON object on stdout, progress on stderr. For every rating kind it

1. simulates a league: a population of bot players of known strength order (tiers, several
   players per tier), playing ``--games`` rounds; each round every player sits at one table
   (tables drawn at random, of the kind's table sizes, so 3+ seat kinds get mixed tables).
   Each game's places come from its result as the site makes them (``place_groups`` of
   ``domain/ratings/store.py``: winners first, then by score; equal ones share a place);
2. fits beta by maximum likelihood: the game sequence is replayed with each beta of a grid
   (then refined), and every game scores, before its update, the log probability of its
   outcome as the model itself predicts it: for every pair of seats the Bradley-Terry
   chance that one finishes above the other (a shared place counts half each way, as
   BradleyTerryFull's update counts it). Two seats: the log predicted chance of the result;
   more seats: the composite (pairwise) likelihood that BradleyTerryFull's update follows;
3. sets tau = beta / 50, openskill's own ratio (25/300 to 25/6): bots never change, so
   their likelihood always prefers tau -> 0; this ratio keeps a settled rating's memory
   (about 2.8 beta / tau = 140 games) and so its response to a real change of form as
   openskill's defaults have it, at the calibrated noise;
4. measures, for the chosen constants and for openskill's defaults (beta 25/6, tau 25/300),
   the Spearman rank correlation between the players' tiers and their mu after 50, 200 and
   1000 games each: the mean over the disjoint windows of that many rounds, each replayed
   from fresh ratings (1000 rounds give 20 windows of 50, 5 of 200, 1 of 1000), and in how
   many windows the mean mu of each tier is strictly ordered ("ranked in their true order").

Simulated games do not depend on ratings (tables are drawn at random), so one league serves
every beta. Bots are the games' own, the fast ones where the strongest are too slow.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache
from itertools import pairwise
from typing import Any, TypeVar

from openskill.models import BradleyTerryFull
from scipy.stats import spearmanr

from dicehall import games
from dicehall.engine.dice import Seeded, resolve_request
from dicehall.engine.game import Chance, Finished, Result, ToAct
from dicehall.server.domain.ratings import model
from dicehall.server.domain.ratings.kinds import KINDS

DEFAULT_BETA = 25 / 6
DEFAULT_TAU = 25 / 300
#: tau is beta over this (openskill's defaults' ratio).
TAU_RATIO = 50.0
CHECKPOINTS = (50, 200, 1000)
T = TypeVar("T")
R = TypeVar("R")


@dataclass(frozen=True)
class KindSetup:
    """How one rating kind's league is played."""

    game: str
    options: dict[str, int]
    #: Bots by strength, weakest tier first; the bots of one tier count as equally strong.
    tiers: tuple[tuple[str, ...], ...]
    #: Table sizes drawn for each table (repeats weigh a size more).
    table_sizes: tuple[int, ...]
    note: str = ""


SETUPS: dict[str, KindSetup] = {
    "tenthousand": KindSetup(
        "tenthousand",
        {},
        (("random",), ("heuristic",), ("max_expected",), ("optimal",)),
        (2, 2, 3, 4),
        "threshold is another name for max_expected; 2000-game duels: heuristic 44% against "
        "max_expected, max_expected 47% against optimal",
    ),
    "boss": KindSetup(
        "boss",
        {},
        (("random",), ("heuristic", "odds", "equilibrium")),
        (2,),
        "heuristic, odds and equilibrium are one tier: in 20000-game duels heuristic wins "
        "49.0% against odds and 48.8% against equilibrium, odds 49.7% against equilibrium, "
        "far below what 200 games can tell (a standard error of 3.5 points)",
    ),
    "holdem": KindSetup(
        "holdem",
        {},
        (("random",), ("equity",)),
        (2, 2, 3),
        "the game has only these two bots",
    ),
    "bullseye": KindSetup(
        "bullseye",
        {},
        (("random",), ("heuristic",), ("optimal",)),
        (3, 3, 4, 5),
        "3 seats is the game's default (2 only as a house rule)",
    ),
}
for _columns, _kind in ((1, "boatzee"), (2, "boatzee-double"), (3, "boatzee-triple")):
    SETUPS[_kind] = KindSetup(
        "boatzee",
        {"columns": _columns},
        (("random",), ("greedy",), ("heuristic",), ("optimal",)),
        (2, 2, 3, 4),
        "strong is the same bot as optimal (the solved tables), so only optimal plays",
    )


@dataclass(frozen=True)
class Played:
    """One league game: its round, the players at its seats and their places."""

    round: int
    players: tuple[int, ...]
    places: tuple[int, ...]


@dataclass
class League:
    """A kind's simulated league: each player's tier and bot, and every game in order."""

    kind: str
    tiers: list[int]
    bots: list[str]
    rounds: int
    played: list[Played] = field(default_factory=list)


# -- simulation --------------------------------------------------------------------------


def table_sizes(rng: random.Random, players: int, sizes: Sequence[int]) -> list[int]:
    """Random table sizes from ``sizes`` that seat exactly ``players``."""
    smallest, left, drawn = min(sizes), players, []
    while left:
        fits = [s for s in sizes if s == left or smallest <= left - s]
        if not fits:
            raise ValueError(f"{players} players do not fit tables of {sorted(set(sizes))}")
        drawn.append(rng.choice(fits))
        left -= drawn[-1]
    return drawn


def population(setup: KindSetup, copies: int) -> tuple[list[int], list[str]]:
    """Each player's tier and bot: ``copies`` players per tier, its bots taken in turn."""
    tiers, bots = [], []
    for tier, names in enumerate(setup.tiers):
        for copy in range(copies):
            tiers.append(tier)
            bots.append(names[copy % len(names)])
    return tiers, bots


def schedule(
    kind: str, copies: int, rounds: int, seed: int
) -> tuple[League, list[tuple[str, tuple[str, ...], int]]]:
    """An empty league and its games to play: (kind, bots by seat, game seed) each."""
    setup = SETUPS[kind]
    tiers, bots = population(setup, copies)
    league = League(kind, tiers, bots, rounds)
    rng = random.Random(f"{seed}:{kind}")
    tasks, seats = [], []
    for round_ in range(rounds):
        order = list(range(len(bots)))
        rng.shuffle(order)
        start = 0
        for size in table_sizes(rng, len(order), setup.table_sizes):
            table = tuple(order[start : start + size])
            start += size
            seats.append((round_, table))
            tasks.append((kind, tuple(bots[p] for p in table), rng.getrandbits(64)))
    league.played = [Played(r, table, ()) for r, table in seats]
    return league, tasks


@cache
def _game(kind: str) -> tuple[games.GameEntry, Any]:
    setup = SETUPS[kind]
    entry = games.get(setup.game)
    return entry, entry.game.options(dict(setup.options))


def play_game(kind: str, bots: Sequence[str], seed: int) -> Result:
    """One game of ``kind`` between ``bots``, its dice and bots seeded from ``seed``.

    The same game as the engine's ``play_out`` with these seeds, without checking each bot's
    move against the legal moves a second time (the bot picked it from them).
    """
    entry, options = _game(kind)
    game = entry.game
    rng = random.Random(seed)
    players = [entry.bot(name, random.Random(rng.getrandbits(64))) for name in bots]
    source = Seeded(rng.getrandbits(64))
    state = game.start(len(bots), options)
    for _ in range(10_000_000):
        turn = game.turn(state)
        if isinstance(turn, Finished):
            return turn.result
        if isinstance(turn, Chance):
            state = game.apply_outcome(state, turn.request, resolve_request(source, turn.request))
            continue
        assert isinstance(turn, ToAct)
        legal = game.legal(state, turn.seat)
        action = players[turn.seat].choose(game.view(state, turn.seat), legal)
        if not any(action is move for move in legal):
            action = game.legal_action(state, turn.seat, action)
        state = game.apply(state, turn.seat, action)
    raise RuntimeError(f"{kind} did not end")  # pragma: no cover


def places(result: Result) -> tuple[int, ...]:
    """Each seat's place as the site rates a game nobody left: winners first, then by score,
    equal ones sharing a place (``store.place_groups`` and ``model.places_of``)."""
    groups: dict[tuple[bool, float], list[int]] = {}
    for seat, score in enumerate(result.scores):
        groups.setdefault((seat not in result.winners, -float(score)), []).append(seat)
    order = [groups[key] for key in sorted(groups)]
    return tuple(model.places_of(order, len(result.scores)))


def _play_chunk(chunk: list[tuple[str, tuple[str, ...], int]]) -> list[tuple[int, ...]]:
    return [places(play_game(kind, bots, seed)) for kind, bots, seed in chunk]


def simulate(
    kinds: Sequence[str], copies: int, rounds: int, seed: int, workers: int
) -> dict[str, League]:
    """Every kind's league, its games played on ``workers`` processes (1: in this one)."""
    leagues, tasks = {}, []
    for kind in kinds:
        leagues[kind], kind_tasks = schedule(kind, copies, rounds, seed)
        tasks += kind_tasks
    chunks = [tasks[i : i + 25] for i in range(0, len(tasks), 25)]
    results: list[tuple[int, ...]] = []
    for done, chunk in enumerate(_imap(_play_chunk, chunks, workers), 1):
        results += chunk
        if done % 40 == 0 or done == len(chunks):
            _say(f"simulated {len(results)} of {len(tasks)} games")
    position = iter(results)
    for league in leagues.values():
        league.played = [Played(p.round, p.players, next(position)) for p in league.played]
    return leagues


def _imap(function: Callable[[T], R], items: Sequence[T], workers: int) -> Iterator[R]:
    """``map`` over ``workers`` processes (1: in this one), in order."""
    if workers <= 1:
        yield from map(function, items)
        return
    with multiprocessing.Pool(workers) as pool:
        yield from pool.imap(function, items)


# -- replay and fit ----------------------------------------------------------------------


@dataclass
class Replay:
    """Ratings after replaying (part of) a league, with what the games scored on the way."""

    mu: list[float]
    sigma: list[float]
    log_likelihood: float = 0.0
    pairs: int = 0
    #: The median sigma after 10, 50, 200 and 1000 rounds (those reached).
    sigma_after: dict[str, float] = field(default_factory=dict)
    #: Two-seat games after round 50: the favourite's chance by openskill's ``predict_win``
    #: (``model.win_chances``) and by the Bradley-Terry pair probability the update uses,
    #: and whether it finished first (a tie: 0.5).
    favourite: list[tuple[float, float, float]] = field(default_factory=list)


def _pair_log_likelihood(d: float, c: float, s: float) -> float:
    """log P of a pair's outcome: s = 1 (i above j), 0.5 (shared place), 0 (below); d = mu_i
    - mu_j; P(i above j) = 1 / (1 + exp(-d / c)) (BradleyTerryFull's own)."""
    x = d / c
    log_p = -math.log1p(math.exp(-x)) if x > 0 else x - math.log1p(math.exp(x))
    log_q = log_p - x  # log(1 - p)
    return s * log_p + (1 - s) * log_q


def replay(
    league: League, beta: float, tau: float, first: int = 0, last: int | None = None
) -> Replay:
    """Rate rounds ``first`` to ``last`` (exclusive; None: all) from fresh ratings, exactly as
    ``model.rate`` does with these constants."""
    last = league.rounds if last is None else last
    rater = BradleyTerryFull(beta=beta, tau=tau)
    count = len(league.tiers)
    out = Replay([model.MU] * count, [model.SIGMA] * count)
    mu, sigma = out.mu, out.sigma
    extra = 2 * beta * beta + 2 * tau * tau
    round_ = first
    for game in league.played:
        if not first <= game.round < last:
            continue
        if game.round != round_:
            _note_sigma(out, round_ + 1 - first)
            round_ = game.round
        seats, where = game.players, game.places
        for a in range(len(seats)):
            for b in range(a + 1, len(seats)):
                i, j = seats[a], seats[b]
                c = math.sqrt(sigma[i] ** 2 + sigma[j] ** 2 + extra)
                s = 1.0 if where[a] < where[b] else 0.5 if where[a] == where[b] else 0.0
                out.log_likelihood += _pair_log_likelihood(mu[i] - mu[j], c, s)
                out.pairs += 1
        teams = [[rater.rating(mu=mu[p], sigma=sigma[p])] for p in seats]
        if len(seats) == 2 and game.round >= first + 50:
            chances = rater.predict_win(teams)
            top = 0 if chances[0] >= chances[1] else 1
            won = 0.5 if where[0] == where[1] else float(where[top] < where[1 - top])
            i, j = seats[top], seats[1 - top]
            pair = 1 / (
                1 + math.exp((mu[j] - mu[i]) / math.sqrt(sigma[i] ** 2 + sigma[j] ** 2 + extra))
            )
            out.favourite.append((float(chances[top]), pair, won))
        rated = rater.rate(teams, ranks=[float(p) for p in where])
        for p, team in zip(seats, rated, strict=True):
            mu[p], sigma[p] = team[0].mu, team[0].sigma
    _note_sigma(out, round_ + 1 - first)
    return out


def _note_sigma(out: Replay, rounds: int) -> None:
    if rounds in (10, *CHECKPOINTS):
        out.sigma_after[str(rounds)] = round(statistics.median(out.sigma), 2)


def mean_log_likelihood(league: League, beta: float) -> float:
    """The mean log likelihood per pair of seats of the whole league at ``beta``."""
    run = replay(league, beta, beta / TAU_RATIO)
    return run.log_likelihood / max(1, run.pairs)


def fit_beta(league: League, coarse: int = 4) -> tuple[float, dict[float, float]]:
    """The beta of the highest likelihood: a grid of 2**(1/coarse) steps from 1 to 256, then
    golden-section search in log beta around the best; and every beta tried."""
    tried: dict[float, float] = {}

    def score(log_beta: float) -> float:
        beta = math.exp(log_beta)
        tried[beta] = mean_log_likelihood(league, beta)
        return tried[beta]

    grid = [math.log(2) * k / coarse for k in range(8 * coarse + 1)]
    values = [score(x) for x in grid]
    best = max(range(len(grid)), key=values.__getitem__)
    low, high = grid[max(0, best - 1)], grid[min(len(grid) - 1, best + 1)]
    ratio = (math.sqrt(5) - 1) / 2
    for _ in range(12):
        left, right = high - ratio * (high - low), low + ratio * (high - low)
        if score(left) >= score(right):
            high = right
        else:
            low = left
    return math.exp((low + high) / 2), tried


# -- evaluation --------------------------------------------------------------------------


def tier_means(tiers: Sequence[int], mu: Sequence[float]) -> list[float]:
    """The mean mu of each tier's players, weakest tier first."""
    return [
        statistics.fmean(m for t, m in zip(tiers, mu, strict=True) if t == tier)
        for tier in range(max(tiers) + 1)
    ]


def ordered(tiers: Sequence[int], mu: Sequence[float]) -> bool:
    """Whether the mean mu of each tier is strictly above the tier below's."""
    return all(a < b for a, b in pairwise(tier_means(tiers, mu)))


def rank_figures(league: League, beta: float, tau: float) -> dict[str, Any]:
    """After each checkpoint's number of games: Spearman (the mean over disjoint windows),
    in how many windows the tiers are ordered, and each adjacent pair of tiers."""
    spearman, order, adjacent = {}, {}, {}
    for games_each in (c for c in CHECKPOINTS if c <= league.rounds):
        rhos, good, pairs = [], 0, [0] * (max(league.tiers))
        windows = league.rounds // games_each
        for window in range(windows):
            run = replay(league, beta, tau, window * games_each, (window + 1) * games_each)
            rhos.append(float(spearmanr(league.tiers, run.mu).statistic))
            good += ordered(league.tiers, run.mu)
            for pair, (low, high) in enumerate(pairwise(tier_means(league.tiers, run.mu))):
                pairs[pair] += low < high
        spearman[str(games_each)] = round(statistics.fmean(rhos), 3)
        order[str(games_each)] = f"{good}/{windows}"
        adjacent[str(games_each)] = [f"{n}/{windows}" for n in pairs]
    return {"spearman": spearman, "ordered": order, "adjacent_tiers_ordered": adjacent}


def tier_scores(league: League) -> list[float]:
    """Each tier's share of the other seats it finished above (a shared place: half)."""
    won = [0.0] * len(SETUPS[league.kind].tiers)
    met = [0] * len(won)
    for game in league.played:
        for a, p in enumerate(game.players):
            for b in range(len(game.players)):
                if a != b:
                    tier = league.tiers[p]
                    met[tier] += 1
                    mine, theirs = game.places[a], game.places[b]
                    won[tier] += 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0
    return [round(w / max(1, m), 3) for w, m in zip(won, met, strict=True)]


def config_figures(league: League, beta: float, tau: float) -> dict[str, Any]:
    """What one pair of constants does on ``league``."""
    run = replay(league, beta, tau)
    return {
        "beta": beta,
        "tau": tau,
        "log_likelihood_per_pair": round(run.log_likelihood / max(1, run.pairs), 4),
        **rank_figures(league, beta, tau),
        "median_sigma_after": run.sigma_after,
        "favourite_two_seats": _favourite(run.favourite),
    }


def calibrate(league: League, coarse: int = 4) -> dict[str, Any]:
    """The chosen constants for ``league``'s kind and the figures that back them: for the
    chosen constants, openskill's defaults, and the chosen beta with openskill's tau."""
    fitted, _ = fit_beta(league, coarse)
    beta = float(f"{fitted:.2g}") if fitted < 10 else float(round(fitted))
    tau = round(beta / TAU_RATIO, 3)
    setup = SETUPS[league.kind]
    return {
        "tiers": [list(t) for t in setup.tiers],
        "note": setup.note,
        "players": len(league.tiers),
        "games": len(league.played),
        "table_sizes": sorted(set(setup.table_sizes)),
        "tier_scores": tier_scores(league),
        "beta_fitted": round(fitted, 2),
        "beta": beta,
        "tau": tau,
        "chosen": config_figures(league, beta, tau),
        "openskill_defaults": config_figures(league, DEFAULT_BETA, DEFAULT_TAU),
        "chosen_beta_openskill_tau": config_figures(league, beta, DEFAULT_TAU),
    }


def _favourite(seen: list[tuple[float, float, float]]) -> dict[str, Any] | None:
    if not seen:
        return None
    return {
        "games": len(seen),
        "predict_win": round(statistics.fmean(p for p, _, _ in seen), 3),
        "bradley_terry": round(statistics.fmean(p for _, p, _ in seen), 3),
        "won": round(statistics.fmean(w for _, _, w in seen), 3),
    }


def _calibrate_one(job: tuple[League, int]) -> tuple[str, dict[str, Any]]:
    league, coarse = job
    return league.kind, calibrate(league, coarse)


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Run the back-test and print its JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000, help="games per player")
    parser.add_argument("--kinds", default=",".join(KINDS), help="comma-separated kinds")
    parser.add_argument("--copies", type=int, default=3, help="players per strength tier")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--quick", action="store_true", help="200 games, a coarse fit")
    given = list(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(given)
    rounds = 200 if args.quick else args.games
    kinds = [k for k in args.kinds.split(",") if k]
    unknown = [k for k in kinds if k not in SETUPS]
    if unknown:
        parser.error(f"unknown kinds {unknown}; known: {', '.join(SETUPS)}")
    start = time.perf_counter()
    leagues = simulate(kinds, args.copies, rounds, args.seed, args.workers)
    simulated = time.perf_counter()
    coarse = 2 if args.quick else 4
    jobs = [(leagues[k], coarse) for k in kinds]
    figures = dict(_imap(_calibrate_one, jobs, args.workers))
    out = {
        "command": " ".join(["python bench/ratings_calibrate.py", *given]),
        "seed": args.seed,
        "games_per_player": rounds,
        "copies_per_tier": args.copies,
        "workers": args.workers,
        "seconds": {
            "simulate": round(simulated - start, 1),
            "fit": round(time.perf_counter() - simulated, 1),
        },
        "kinds": {k: figures[k] for k in kinds},
    }
    return out


if __name__ == "__main__":
    print(json.dumps(main(), indent=2))
