"""Ratings calibrated for luck: back-test the rating model on leagues of the project's bots.

Run ``python bench/ratings_calibrate.py [--games N] [--kinds a,b] [--quick] [--seed S]``: one
JSON object on stdout, progress on stderr. For every rating kind it

1. simulates a league (``ratings_league.py``): bot players in strength tiers, ``--games``
   rounds in which every player plays one game at a random table;
2. fits beta by maximum likelihood: the league is replayed with each beta of a grid (then
   refined), tau = beta / 50, and every game scores, before its update, the log probability
   of its outcome as the model predicts it: for every pair of seats, the Bradley-Terry chance
   1 / (1 + exp(-(mu_i - mu_j) / c)) that one finishes above the other, the probability
   BradleyTerryFull's own update uses (a shared place counts half each way, as the update
   counts it). Two seats: the log chance of the result; more: the pairwise (composite)
   likelihood. The chosen beta is the fit rounded to two figures;
3. sets tau = beta / 50, openskill's own ratio (25/300 to 25/6). Bots never change, so their
   likelihood always prefers tau -> 0 and cannot choose tau. The model is scale-free (beta,
   tau, sigma and mu differences scaled together behave the same), so this ratio keeps a
   settled rating's behaviour as openskill's defaults have it, at the calibrated noise: its
   sigma settles near 0.34 beta and each game moves it by the same share of beta;
4. measures, for the chosen constants, openskill's defaults (beta 25/6, tau 25/300) and the
   chosen beta with openskill's tau, the Spearman rank correlation between the players'
   tiers and their mu after 50, 200 and 1000 games each (the mean over the disjoint windows
   of that many rounds, each replayed from fresh ratings: 1000 rounds give 20 windows of 50,
   5 of 200, 1 of 1000), and in how many windows each tier's mean mu is strictly above the
   tier below's ("ranked in their true order"), all tiers and each adjacent pair.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import Any

from openskill.models import BradleyTerryFull
from scipy.stats import spearmanr

if __package__ in (None, ""):  # run as a file: the repository root makes ``bench`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.ratings_league import SETUPS, League, Played, imap, simulate
from dicehall.server.domain.ratings import kinds as rating_kinds
from dicehall.server.domain.ratings import model

DEFAULT_BETA = 25 / 6
DEFAULT_TAU = 25 / 300
#: tau is beta over this (openskill's defaults' ratio).
TAU_RATIO = 50.0
CHECKPOINTS = (50, 200, 1000)


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
    """The beta of the highest likelihood, and every beta tried with its mean log likelihood:
    a grid of 2**(1/coarse) steps from 1 to 256, then a golden-section search in log beta
    between the best point's neighbours (to within 0.2%)."""
    tried: dict[float, float] = {}

    def score(log_beta: float) -> float:
        beta = math.exp(log_beta)
        if beta not in tried:
            tried[beta] = mean_log_likelihood(league, beta)
        return tried[beta]

    grid = [math.log(2) * k / coarse for k in range(8 * coarse + 1)]
    best = max(grid, key=score)
    low, high = max(grid[0], best - grid[1]), min(grid[-1], best + grid[1])
    ratio = (math.sqrt(5) - 1) / 2
    left, right = high - ratio * (high - low), low + ratio * (high - low)
    while high - low > 0.002:
        if score(left) >= score(right):
            high, right = right, left
            left = high - ratio * (high - low)
        else:
            low, left = left, right
            right = low + ratio * (high - low)
    return math.exp(max((low, high, left, right, best), key=score)), tried


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
    in how many windows the tiers are ordered (and whether the first window, the league's
    own first games, is), and each adjacent pair of tiers."""
    spearman, order, first, adjacent = {}, {}, {}, {}
    for games_each in (c for c in CHECKPOINTS if c <= league.rounds):
        rhos, good, pairs = [], 0, [0] * (max(league.tiers))
        windows = league.rounds // games_each
        for window in range(windows):
            run = replay(league, beta, tau, window * games_each, (window + 1) * games_each)
            rhos.append(float(spearmanr(league.tiers, run.mu).statistic))
            good += ordered(league.tiers, run.mu)
            if window == 0:
                first[str(games_each)] = ordered(league.tiers, run.mu)
            for pair, (low, high) in enumerate(pairwise(tier_means(league.tiers, run.mu))):
                pairs[pair] += low < high
        spearman[str(games_each)] = round(statistics.fmean(rhos), 3)
        order[str(games_each)] = f"{good}/{windows}"
        adjacent[str(games_each)] = [f"{n}/{windows}" for n in pairs]
    return {
        "spearman": spearman,
        "ordered": order,
        "ordered_first": first,
        "adjacent_tiers_ordered": adjacent,
    }


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
        "beta": round(beta, 4),
        "tau": round(tau, 4),
        "log_likelihood_per_pair": round(run.log_likelihood / max(1, run.pairs), 4),
        **rank_figures(league, beta, tau),
        "median_sigma_after": run.sigma_after,
        "favourite_two_seats": _favourite(run.favourite),
    }


def best_spearman(tiers: Sequence[int]) -> float:
    """Spearman of a perfect order: below 1, as players of one tier are equally strong."""
    perfect = [0] * len(tiers)
    for rank, player in enumerate(sorted(range(len(tiers)), key=tiers.__getitem__)):
        perfect[player] = rank
    return round(float(spearmanr(tiers, perfect).statistic), 3)


def without_random(league: League) -> League:
    """``league`` as if its random players' seats were empty: the others' places among
    themselves (the fit's sensitivity to the weakest tier)."""
    kept = League(league.kind, league.tiers, league.bots, league.rounds)
    for game in league.played:
        seats = [k for k, p in enumerate(game.players) if league.bots[p] != "random"]
        if len(seats) >= 2:
            where = [game.places[k] for k in seats]
            places = tuple(1 + sum(other < mine for other in where) for mine in where)
            kept.played.append(Played(game.round, tuple(game.players[k] for k in seats), places))
    return kept


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
        "spearman_best_possible": best_spearman(league.tiers),
        "beta_fitted": round(fitted, 2),
        "beta_fitted_without_random": round(fit_beta(without_random(league), coarse)[0], 2),
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


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Run the back-test and print its JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000, help="games per player")
    parser.add_argument(
        "--kinds", default=",".join(rating_kinds.names()), help="comma-separated kinds"
    )
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
    figures = dict(imap(_calibrate_one, jobs, args.workers))
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


def compact(value: Any, indent: int = 0) -> str:
    """JSON with two-space indents, each object or list that fits in a line on one line."""
    line = json.dumps(value)
    if not isinstance(value, dict | list) or len(line) + indent <= 92:
        return line
    inner = " " * (indent + 2)
    if isinstance(value, list):
        items = [inner + compact(item, indent + 2) for item in value]
        return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"
    items = [f"{inner}{json.dumps(k)}: {compact(v, indent + 2)}" for k, v in value.items()]
    return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"


if __name__ == "__main__":
    print(compact(main()))
