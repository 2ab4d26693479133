"""``odds holdem`` in chunks: long Monte Carlo estimates show progress and stop on Ctrl-C.

The library's estimate runs as one compiled loop that Ctrl-C cannot interrupt. Asked for
more than :data:`CHUNK` deals, the command deals them in chunks of :data:`CHUNK` (each with
its own seed, derived from ``--seed``) and pools them exactly: the pooled win, tie and pot
share are the means over every deal, and their standard errors come from the pooled
variances. Between chunks the bar moves and Ctrl-C is heard.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dicehall.games.holdem.equity import Odds

#: Deals per chunk: the library's default sample, so answers up to it are the library's own.
CHUNK = 200_000
#: Spreads the chunk seeds apart (the golden ratio in 32 bits).
_SEED_STEP = 0x9E3779B1


def chunk_seed(seed: int, index: int) -> int:
    """The seed of chunk ``index``: ``seed`` itself for the first chunk."""
    return (seed + index * _SEED_STEP) % 2**32


def odds_in_chunks(
    pocket: Sequence[str],
    board: Sequence[str],
    opponents: int,
    samples: int,
    seed: int,
    advance: Callable[[int, int], None] | None = None,
) -> Odds:
    """What ``odds holdem`` reports; a Monte Carlo estimate of more than :data:`CHUNK` deals
    is made in chunks, ``advance(deals_done, samples)`` told after each."""
    from dicehall.games.holdem.equity import (
        EXACT_LIMIT,
        Odds,
        category_distribution,
        equity,
        exact_cost,
        odds,
    )

    if not pocket or samples <= CHUNK or exact_cost(len(board), opponents) <= EXACT_LIMIT:
        return odds(pocket, board, opponents, samples=samples, seed=seed)
    categories = category_distribution(pocket, board)
    win = tie = share = share_squares = 0.0
    done = 0
    if advance is not None:
        advance(0, samples)
    for index in range(math.ceil(samples / CHUNK)):
        n = min(CHUNK, samples - done)
        part = equity(pocket, board, opponents, samples=n, seed=chunk_seed(seed, index))
        assert part.stderr is not None
        win += part.win * n
        tie += part.tie * n
        share += part.share * n
        # The chunk's sum of squared shares, from its mean and its variance of the mean.
        share_squares += (part.stderr["share"] ** 2 * n + part.share**2) * n
        done += n
        if advance is not None:
            advance(done, samples)
    win, tie, share = win / samples, tie / samples, share / samples
    share_variance = max(0.0, share_squares / samples - share * share)
    stderr = {
        "win": math.sqrt(win * (1 - win) / samples),
        "tie": math.sqrt(tie * (1 - tie) / samples),
        "share": math.sqrt(share_variance / samples),
    }
    return Odds(categories, win, tie, share, False, stderr, samples)
