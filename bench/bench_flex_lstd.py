"""Double and Triple Boatzee: does a correction fitted on self-play improve ``strong``?

``strong`` values a Double or Triple card as the sum of each column's relaxed table
(:mod:`dicehall.games.boatzee.flexible`), so it ignores how the columns compete for the same
rolls. This fits a linear correction ``w . phi(card)`` to that value by least-squares temporal
differences (LSTD(0)) on ``strong``'s own games: the target of a turn is the points it scored
plus the change in the relaxed value. The features are zero on a full card:

- ``overlap``: for each box and each pair of columns, whether it is open in both (13 a pair),
  and the same scaled by the share of boxes still open;
- ``rich``: those, plus each column's open boxes scaled by the share and its square (26 a
  column), and whether each column still chases its upper bonus (2 a column).

Then ``strong`` and ``strong`` with the correction play the same seeded games and the gain is
reported with its 95% interval. Prints JSON.

    python bench/bench_flex_lstd.py --train 8000 --games 2000 --features overlap
    python bench/bench_flex_lstd.py --columns 3 --train 4000 --games 1000
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable, Sequence
from itertools import combinations
from pathlib import Path

import numpy as np

if __package__ in (None, ""):  # run as a file: the repository root makes ``bench`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_flex import summary
from dicehall.engine import Seeded, play_out
from dicehall.games.boatzee import GAME, BoatzeeOptions
from dicehall.games.boatzee.bots import PlanningBot
from dicehall.games.boatzee.card import (
    UPPER_BONUS_THRESHOLD,
    Card,
    Joker,
    Ruleset,
    fill,
    is_full,
    total,
)
from dicehall.games.boatzee.dice_tables import FloatArray
from dicehall.games.boatzee.flexible import FlexValuation, for_columns
from dicehall.games.boatzee.rules import BoatzeeAction, BoatzeeView
from dicehall.games.boatzee.scoring import Box

Features = Callable[[Card], FloatArray]
#: Any dice: the features see only which boxes are open, not the points a box got.
ANY_DICE = (1, 2, 3, 4, 6)


def filled(card: Card, box: Box, column: int) -> Card:
    """The card with ``box`` of ``column`` filled (by :func:`card.fill`, with any dice)."""
    return fill(card, ANY_DICE, "boatzee", box, column)


def overlap(card: Card) -> FloatArray:
    """Boxes open in both columns of each pair, plain and scaled by the share still open."""
    opened = np.array([[v is None for v in column] for column in card.boxes], dtype=np.float64)
    both = np.concatenate([opened[a] * opened[b] for a, b in combinations(range(len(opened)), 2)])
    share = opened.sum() / opened.size
    return np.concatenate([both, both * share])


def rich(card: Card) -> FloatArray:
    """:func:`overlap`, each column's open boxes by the share and its square, the bonus chase."""
    opened = np.array([[v is None for v in column] for column in card.boxes], dtype=np.float64)
    share = opened.sum() / opened.size
    parts = [overlap(card)]
    for k, column in enumerate(card.boxes):
        upper = min(UPPER_BONUS_THRESHOLD, sum(v for v in column[:6] if v is not None))
        chasing = float(upper < UPPER_BONUS_THRESHOLD and bool(opened[k, :6].any()))
        parts += [opened[k] * share, opened[k] * share**2]
        parts.append(np.array([chasing * share, chasing * upper / UPPER_BONUS_THRESHOLD]))
    return np.concatenate(parts)


FEATURES: dict[str, Features] = {"overlap": overlap, "rich": rich}


class Corrected(FlexValuation):
    """``strong``'s values plus ``weights . features(card after the choice)``."""

    def __init__(self, base: FlexValuation, features: Features, weights: FloatArray) -> None:
        super().__init__(base.bands, base.share)
        self.features = features
        self.weights = weights

    def choice_values(
        self, card: Card, ruleset: Ruleset, joker: Joker = "forced"
    ) -> tuple[list[tuple[Box, int]], FloatArray]:
        """The relaxed values, each choice shifted by the correction of the card it leaves."""
        choices, values = super().choice_values(card, ruleset, joker)
        shift = [float(self.features(filled(card, b, k)) @ self.weights) for b, k in choices]
        corrected: FloatArray = values + np.array(shift)[None, :]
        return choices, corrected


class Recorder(PlanningBot):
    """A planning bot that keeps the card it holds at the start of each turn."""

    def __init__(self, valuation: FlexValuation) -> None:
        super().__init__(valuation)
        self.cards: list[Card] = []

    def choose(self, view: BoatzeeView, legal: Sequence[BoatzeeAction]) -> BoatzeeAction:
        """Note a new turn's card, then play as planned."""
        card = view.cards[view.seat or 0]
        if not self.cards or self.cards[-1] != card:
            self.cards.append(card)
        return super().choose(view, legal)


def play(
    valuation: FlexValuation, columns: int, seeds: Sequence[int]
) -> tuple[FloatArray, list[list[Card]]]:
    """Each game's final score and its cards turn by turn (the full card last)."""
    scores, games = [], []
    for seed in seeds:
        bot = Recorder(valuation)
        state, result, _ = play_out(GAME, 1, BoatzeeOptions(columns), [bot], Seeded(seed))
        scores.append(result.scores[0])
        games.append([*bot.cards, state.cards[0]])
    return np.array(scores, dtype=np.float64), games


def fit(base: FlexValuation, features: Features, games: Sequence[list[Card]]) -> FloatArray:
    """LSTD(0) weights of the correction to ``base``'s values on these games."""
    size = len(features(games[0][0]))
    a = np.zeros((size, size))
    b = np.zeros(size)
    for cards in games:
        futures = [0.0 if is_full(c) else base.future(c) for c in cards]
        phis = [np.zeros(size) if is_full(c) else features(c) for c in cards]
        for t in range(len(cards) - 1):
            delta = total(cards[t + 1]) - total(cards[t]) + futures[t + 1] - futures[t]
            a += np.outer(phis[t], phis[t] - phis[t + 1])
            b += phis[t] * delta
    weights: FloatArray = np.linalg.solve(a + 1e-3 * np.eye(size), b).astype(np.float64)
    return weights


def main(argv: Sequence[str] | None = None) -> int:
    """Fit on ``--train`` games, compare on ``--games`` others; print JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--train", type=int, default=8000, help="self-play games to fit on")
    parser.add_argument("--games", type=int, default=2000, help="games to compare on")
    parser.add_argument("--features", choices=sorted(FEATURES), default="overlap")
    parser.add_argument("--columns", type=int, choices=(2, 3), default=2)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if args.train < 1 or args.games < 2:
        parser.error("--train must be at least 1 and --games at least 2")
    base = for_columns(args.columns)
    features = FEATURES[args.features]
    trainer = random.Random(f"train:{args.seed}")
    started = time.process_time()
    _, games = play(base, args.columns, [trainer.getrandbits(63) for _ in range(args.train)])
    weights = fit(base, features, games)
    fitted = time.process_time() - started
    seeds = [
        random.Random(f"{args.seed}:{args.columns}:{i}").getrandbits(63) for i in range(args.games)
    ]
    plain, _ = play(base, args.columns, seeds)
    corrected, _ = play(Corrected(base, features, weights), args.columns, seeds)
    gain = corrected - plain
    report = {
        "columns": args.columns,
        "features": args.features,
        "train_games": args.train,
        "games": args.games,
        "strong": summary(plain),
        "corrected": summary(corrected),
        "gain": summary(gain),
        "gain_percent": summary(100 * gain / plain.mean()),
        "largest_weight": round(float(np.abs(weights).max()), 2),
        "cpu_seconds": round(time.process_time() - started, 1),
        "fit_cpu_seconds": round(fitted, 1),
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
