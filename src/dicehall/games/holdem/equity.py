"""Odds for Hold'em Dice: the distribution of a seat's final hand, and its equity.

(Longer than most modules: the exact enumeration and the Monte Carlo estimate share their
hand tables and kernels, and splitting them would only add imports between the halves.)

Unknown dice come out of the bag: colours without replacement by what is left of the five
of each colour, faces uniform. Everything is enumerated over multisets of die kinds, each
weighted by its probability, when the count of outcomes allows; otherwise equity is
estimated by seeded Monte Carlo with its standard error.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt
from numba import njit

from dicehall.engine.errors import InvalidInput
from dicehall.games.holdem.dice import COLOURS, PER_COLOUR, Die, check_bag, colour, kind
from dicehall.games.holdem.ranking import CATEGORIES
from dicehall.games.holdem.tables import BINOM, KINDS, IntArray, RankArray, multisets, tables

FloatArray = npt.NDArray[np.float64]

#: The most table look-ups an exact answer may take before Monte Carlo is used instead.
EXACT_LIMIT = 60_000_000
#: Monte Carlo samples when none are asked for.
DEFAULT_SAMPLES = 200_000
_PAIRS = multisets(2)


@njit(cache=True)
def _multiset_rows(n: int, binom: IntArray) -> tuple[IntArray, FloatArray, IntArray]:
    """Every multiset of n kinds: kinds (sorted), orderings, and colour counts."""
    size = binom[KINDS - 1 + n, n]
    rows = np.zeros((size, max(n, 1)), np.int64)
    orderings = np.ones(size, np.float64)
    colours = np.zeros((size, 4), np.int64)
    factorial = np.ones(8, np.float64)
    for i in range(1, 8):
        factorial[i] = factorial[i - 1] * i
    kinds = np.zeros(n, np.int64)
    row = 0
    while True:
        run = 1
        denominator = 1.0
        for i in range(n):
            rows[row, i] = kinds[i]
            colours[row, kinds[i] % 4] += 1
            if i > 0 and kinds[i] == kinds[i - 1]:
                run += 1
            else:
                denominator *= factorial[run]
                run = 1
        denominator *= factorial[run]
        orderings[row] = factorial[n] / denominator
        row += 1
        if n == 0:
            break
        i = n - 1
        while i >= 0 and kinds[i] == KINDS - 1:
            i -= 1
        if i < 0:
            break
        kinds[i] += 1
        for j in range(i + 1, n):
            kinds[j] = kinds[i]
    return rows, orderings, colours


@cache
def _rows(n: int) -> tuple[IntArray, FloatArray, IntArray]:
    rows, orderings, colours = _multiset_rows(n, BINOM)
    return rows, orderings, colours


def _falling() -> FloatArray:
    """``fall[n, m]``: n (n - 1) ... (n - m + 1), zero when m > n."""
    table = np.zeros((PER_COLOUR + 1, 16), np.float64)
    for n in range(PER_COLOUR + 1):
        value = 1.0
        for m in range(16):
            table[n, m] = value if m <= n else 0.0
            value *= n - m
    return table


FALL = _falling()


@njit(cache=True)
def _seven(known: IntArray, extra: IntArray, count: int, out: IntArray) -> None:
    """Fill ``out`` with the known kinds then the first ``count`` of ``extra``."""
    k = known.shape[0]
    for i in range(k):
        out[i] = known[i]
    for i in range(count):
        out[k + i] = extra[i]


@njit(cache=True)
def _rank(hand: IntArray, a: IntArray, rank7: RankArray, binom: IntArray) -> int:
    """The dense rank of seven kinds in any order; ``a`` is scratch space for sorting."""
    for i in range(7):
        a[i] = hand[i]
    for i in range(1, 7):
        v = a[i]
        j = i - 1
        while j >= 0 and a[j] > v:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = v
    total = 0
    for i in range(7):
        total += binom[a[i] + i, i + 1]
    return int(rank7[total])


@njit(cache=True)
def _categories(
    known: IntArray,
    rows: IntArray,
    orderings: FloatArray,
    colours: IntArray,
    bag: IntArray,
    fall: FloatArray,
    rank7: RankArray,
    category: npt.NDArray[np.int8],
    binom: IntArray,
) -> FloatArray:
    out = np.zeros(11, np.float64)
    hand = np.zeros(7, np.int64)
    scratch = np.zeros(7, np.int64)
    unknown = 7 - known.shape[0]
    for r in range(rows.shape[0]):
        weight = orderings[r]
        for c in range(4):
            weight *= fall[bag[c], colours[r, c]]
        if weight == 0.0:
            continue
        _seven(known, rows[r], unknown, hand)
        out[category[_rank(hand, scratch, rank7, binom)]] += weight
    result: FloatArray = out / out.sum()
    return result


@njit(cache=True)
def _exact_equity(
    pocket: IntArray,
    board: IntArray,
    boards: IntArray,
    board_ord: FloatArray,
    board_col: IntArray,
    pairs: IntArray,
    pair_ord: FloatArray,
    pair_col: IntArray,
    opponents: int,
    bag: IntArray,
    fall: FloatArray,
    rank7: RankArray,
    binom: IntArray,
) -> FloatArray:
    """Weights of (win, tie, pot share, all) over every outcome."""
    missing = 5 - board.shape[0]
    n_pairs = pairs.shape[0]
    mine = np.concatenate((pocket, board))
    common = np.zeros(7, np.int64)
    hand = np.zeros(7, np.int64)
    scratch = np.zeros(7, np.int64)
    opp = np.zeros(n_pairs, np.int64)
    idx = np.zeros(opponents, np.int64)
    totals = np.zeros(4, np.float64)
    counts = np.zeros(4, np.int64)
    for b in range(boards.shape[0]):
        base = board_ord[b]
        for c in range(4):
            if board_col[b, c] > bag[c]:
                base = 0.0
        if base == 0.0:
            continue
        _seven(mine, boards[b], missing, hand)
        me = _rank(hand, scratch, rank7, binom)
        for i in range(board.shape[0]):
            common[i] = board[i]
        for i in range(missing):
            common[board.shape[0] + i] = boards[b, i]
        for p in range(n_pairs):
            common[5] = pairs[p, 0]
            common[6] = pairs[p, 1]
            opp[p] = _rank(common, scratch, rank7, binom)
        for i in range(opponents):
            idx[i] = 0
        while True:
            weight = base
            for c in range(4):
                counts[c] = board_col[b, c]
            best = -1
            for i in range(opponents):
                p = idx[i]
                weight *= pair_ord[p]
                for c in range(4):
                    counts[c] += pair_col[p, c]
                if opp[p] > best:
                    best = opp[p]
            for c in range(4):
                weight *= fall[bag[c], counts[c]]
            if weight > 0.0:
                totals[3] += weight
                if me > best:
                    totals[0] += weight
                    totals[2] += weight
                elif me == best:
                    tied = 0
                    for i in range(opponents):
                        if opp[idx[i]] == best:
                            tied += 1
                    totals[1] += weight
                    totals[2] += weight / (tied + 1)
            j = opponents - 1
            while j >= 0:
                idx[j] += 1
                if idx[j] < n_pairs:
                    break
                idx[j] = 0
                j -= 1
            if j < 0:
                break
    return totals


@njit(cache=True)
def _monte_carlo(
    pocket: IntArray,
    board: IntArray,
    opponents: int,
    bag_colours: IntArray,
    samples: int,
    seed: int,
    rank7: RankArray,
    binom: IntArray,
) -> FloatArray:
    """Sums of (win, tie, share, share squared) over ``samples`` random deals."""
    np.random.seed(seed)
    missing = 5 - board.shape[0]
    need = missing + 2 * opponents
    pool = bag_colours.copy()
    drawn = np.zeros(need, np.int64)
    hand = np.zeros(7, np.int64)
    scratch = np.zeros(7, np.int64)
    common = np.zeros(7, np.int64)
    sums = np.zeros(4, np.float64)
    for _ in range(samples):
        n = pool.shape[0]
        for i in range(need):
            j = i + np.random.randint(0, n - i)
            pool[i], pool[j] = pool[j], pool[i]
            drawn[i] = np.random.randint(0, 6) * 4 + pool[i]
        for i in range(board.shape[0]):
            common[i] = board[i]
        for i in range(missing):
            common[board.shape[0] + i] = drawn[i]
        hand[0] = pocket[0]
        hand[1] = pocket[1]
        for i in range(5):
            hand[2 + i] = common[i]
        me = _rank(hand, scratch, rank7, binom)
        best = -1
        tied = 0
        for o in range(opponents):
            common[5] = drawn[missing + 2 * o]
            common[6] = drawn[missing + 2 * o + 1]
            r = _rank(common, scratch, rank7, binom)
            if r > best:
                best = r
                tied = 1
            elif r == best:
                tied += 1
        if me > best:
            sums[0] += 1.0
            sums[2] += 1.0
            sums[3] += 1.0
        elif me == best:
            share = 1.0 / (tied + 1)
            sums[1] += 1.0
            sums[2] += share
            sums[3] += share * share
    return sums


@dataclass(frozen=True)
class Odds:
    """A seat's odds: its final category distribution, and equity against the field.

    ``win``: no opponent ends level or better; ``tie``: the seat shares the best hand;
    ``share``: the expected fraction of the pot. ``stderr`` is set for Monte Carlo answers.
    """

    categories: dict[str, float]
    win: float | None = None
    tie: float | None = None
    share: float | None = None
    exact: bool = True
    stderr: dict[str, float] | None = None
    samples: int | None = None

    def as_json(self) -> dict[str, object]:
        """The JSON shape of ``dicehall odds holdem --json``."""
        out: dict[str, object] = {
            "categories": {name: self.categories[name] for name in reversed(CATEGORIES)}
        }
        if self.win is not None:
            out["win"] = self.win
            out["tie"] = self.tie
            out["share"] = self.share
        out["exact"] = self.exact
        if self.stderr is not None:
            out["stderr"] = self.stderr
            out["samples"] = self.samples
        return out


def _kinds(dice: Sequence[Die]) -> IntArray:
    return np.array([kind(d) for d in dice], dtype=np.int64)


def _bag_counts(known: Sequence[Die]) -> IntArray:
    taken = Counter(colour(d) for d in known)
    return np.array([PER_COLOUR - taken[c] for c in COLOURS], dtype=np.int64)


def _check(pocket: Sequence[Die], board: Sequence[Die], opponents: int) -> None:
    if len(pocket) not in (0, 2):
        raise InvalidInput(f"pocket: expected 2 dice, got {len(pocket)}")
    if len(board) > 5:
        raise InvalidInput(f"board: expected at most 5 dice, got {len(board)}")
    if not 1 <= opponents <= 5:
        raise InvalidInput(f"opponents: expected 1 to 5, got {opponents}")
    check_bag([*pocket, *board], "pocket and board")


def category_distribution(
    pocket: Sequence[Die] = (), board: Sequence[Die] = ()
) -> dict[str, float]:
    """Exact probability of each final best category, given the dice known so far."""
    _check(pocket, board, 1)
    known = [*pocket, *board]
    t = tables()
    rows, orderings, colours = _rows(7 - len(known))
    dist = _categories(
        _kinds(known),
        rows,
        orderings,
        colours,
        _bag_counts(known),
        FALL,
        t.rank7,
        t.category,
        BINOM,
    )
    return {name: float(dist[i]) for i, name in enumerate(CATEGORIES)}


def exact_cost(board_size: int, opponents: int) -> int:
    """Table look-ups an exact equity takes with ``board_size`` board dice known."""
    boards = multisets(5 - board_size)
    return int(boards * (_PAIRS + _PAIRS**opponents))


@dataclass(frozen=True)
class Equity:
    """Win, tie and pot-share probabilities, with standard errors when estimated."""

    win: float
    tie: float
    share: float
    exact: bool
    stderr: dict[str, float] | None = None
    samples: int | None = None


def equity(
    pocket: Sequence[Die],
    board: Sequence[Die] = (),
    opponents: int = 1,
    *,
    samples: int = DEFAULT_SAMPLES,
    seed: int = 0,
    exact_limit: int = EXACT_LIMIT,
) -> Equity:
    """Equity of ``pocket`` on ``board`` against ``opponents`` unknown hands."""
    if len(pocket) != 2:
        raise InvalidInput(f"pocket: expected 2 dice, got {len(pocket)}")
    _check(pocket, board, opponents)
    if samples < 1:
        raise InvalidInput("samples: expected at least 1")
    t = tables()
    bag = _bag_counts([*pocket, *board])
    if exact_cost(len(board), opponents) <= exact_limit:
        boards, board_ord, board_col = _rows(5 - len(board))
        pairs, pair_ord, pair_col = _rows(2)
        totals = _exact_equity(
            _kinds(pocket),
            _kinds(board),
            boards,
            board_ord,
            board_col,
            pairs,
            pair_ord,
            pair_col,
            opponents,
            bag,
            FALL,
            t.rank7,
            BINOM,
        )
        whole = totals[3]
        return Equity(
            float(totals[0] / whole), float(totals[1] / whole), float(totals[2] / whole), True
        )
    colours = np.array([c for c in range(4) for _ in range(int(bag[c]))], dtype=np.int64)
    sums = _monte_carlo(
        _kinds(pocket), _kinds(board), opponents, colours, samples, seed % 2**32, t.rank7, BINOM
    )
    win, tie, share = sums[0] / samples, sums[1] / samples, sums[2] / samples
    share_var = max(0.0, sums[3] / samples - share * share)
    stderr = {
        "win": float(np.sqrt(win * (1 - win) / samples)),
        "tie": float(np.sqrt(tie * (1 - tie) / samples)),
        "share": float(np.sqrt(share_var / samples)),
    }
    return Equity(float(win), float(tie), float(share), False, stderr, samples)


def odds(
    pocket: Sequence[Die] = (),
    board: Sequence[Die] = (),
    opponents: int = 1,
    *,
    samples: int = DEFAULT_SAMPLES,
    seed: int = 0,
    exact_limit: int = EXACT_LIMIT,
) -> Odds:
    """Everything ``dicehall odds holdem`` reports."""
    categories = category_distribution(pocket, board)
    _check(pocket, board, opponents)
    if not pocket:
        return Odds(categories)
    eq = equity(pocket, board, opponents, samples=samples, seed=seed, exact_limit=exact_limit)
    return Odds(categories, eq.win, eq.tie, eq.share, eq.exact, eq.stderr, eq.samples)
