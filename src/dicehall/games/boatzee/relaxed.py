"""An upper bound on the optimum of Double and Triple Boatzee, by relaxing the shared turn.

In a game of C columns each of the 13 C turns fills exactly one box of one column. Drop
that link: let each column play its own game of all 13 C turns, with dice of its own, where
a turn may end without filling one of its boxes (it *passes*) and its 13 boxes must be full
by the end. Any way of playing the real game gives every column such a game (the column
passes whenever the real turn fills another), so each column's optimum in its relaxed game
is at least what the column scores in the real game, and their sum bounds the real optimum
from above. A price on filling at each turn (a Lagrange multiplier ``cost[t]`` per turn,
charged to whichever column fills then and paid back once per turn) keeps the bound valid
for any prices and, well chosen, tightens it: the bound is ``sum(cost) + sum over columns of
the column's relaxed optimum with the prices``.

A column's relaxed game is solved exactly, turn by turn from the end, by the solver's own
kernels (``may_pass`` and ``fill_cost``); its states are the solitaire ones, one layer per
turn left. :func:`spare_turns` keeps the layers a column with a few turns to spare needs:
the values the ``strong`` bot plays Double and Triple by (:mod:`flexible`). The boatzee
ruleset only: its columns share nothing else (the yahtzee ruleset's 100-point bonus spans
columns).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from dicehall.games.boatzee.dice_tables import FloatArray
from dicehall.games.boatzee.solver import MASKS, UPPERS, compile_kernels, layers, run_states
from dicehall.games.boatzee.solver_kernels import FULL, NEG

BOXES = 13
#: What an impossible state is worth in the stored layers (finite, unlike -inf).
FLOOR = -1.0e30

Float32Array = npt.NDArray[np.float32]
Progress = Callable[[int, int], None]
"""Called with (turn layers solved, turn layers in all)."""


@dataclass(frozen=True)
class ColumnTurns:
    """One column's relaxed game: ``values[t, mask, upper]``, the most it can still add
    (less the prices of its fills) with ``t`` turns left, passing allowed."""

    multiplier: int
    values: Float32Array

    @property
    def start(self) -> float:
        """The value of the empty column with every turn still to come."""
        return float(self.values[-1, 0, 0])


def _layers(
    multiplier: int,
    turns: int,
    prices: Sequence[float],
    progress: Progress | None,
    spare: int | None = None,
) -> Iterator[FloatArray]:
    """``values[mask, upper]`` with 1, 2, ... ``turns`` turns left, one layer at a time.

    With ``spare``, a layer solves only the states with at most that many turns to spare:
    they read only such states of the layer before, so the others are never needed (each
    state is then solved ``spare + 1`` times rather than once a turn)."""
    compile_kernels()
    todo = layers("boatzee")
    states = np.concatenate([layer.states for layer in todo])
    waiting = BOXES - np.array([int(m).bit_count() for m in states[:, 0]])
    mask, upper, source = np.concatenate([layer.copies for layer in todo]).T
    done = np.full((1, MASKS, UPPERS), NEG)
    done[0, FULL, :] = 0.0
    moments = np.zeros_like(done)
    for t in range(1, turns + 1):
        ahead = np.full_like(done, NEG)
        ahead[0, FULL, :] = 0.0
        window = waiting <= t if spare is None else (waiting <= t) & (waiting >= t - spare)
        run_states(
            np.ascontiguousarray(states[window]),
            done,
            moments,
            "boatzee",
            multiplier,
            False,
            out=ahead,
            may_pass=True,
            fill_cost=prices[t - 1],
        )
        ahead[:, mask, upper] = ahead[:, mask, source]
        done = ahead
        if progress is not None:
            progress(t, turns)
        yield done[0]


def _stored(layer: FloatArray) -> Float32Array:
    # float32 halves the memory; impossible states keep a large finite negative value, as
    # -inf would turn into NaN where the planner multiplies it by a zero chance.
    return np.maximum(layer, FLOOR).astype(np.float32)


def column_turns(
    multiplier: int,
    turns: int,
    cost: Sequence[float] | None = None,
    progress: Progress | None = None,
) -> ColumnTurns:
    """Solve one column's relaxed game of ``turns`` turns (``cost[t - 1]``: the price of a
    fill with ``t`` turns left, counting this one; none by default)."""
    if turns < BOXES:
        raise ValueError(f"a column of {BOXES} boxes needs {BOXES} turns or more, not {turns}")
    prices = list(cost) if cost is not None else [0.0] * turns
    if len(prices) != turns:
        raise ValueError(f"one price per turn: {turns}, not {len(prices)}")
    out = np.empty((turns + 1, MASKS, UPPERS), dtype=np.float32)
    out[0] = FLOOR
    out[0, FULL, :] = 0.0
    for t, layer in enumerate(_layers(multiplier, turns, prices, progress), 1):
        out[t] = _stored(layer)
    out.setflags(write=False)
    return ColumnTurns(multiplier, out)


def spare_turns(multiplier: int, spare: int, progress: Progress | None = None) -> Float32Array:
    """``bands[d, mask, upper]``: a column's relaxed value with ``d`` turns to spare, that
    is ``open boxes + d`` turns left, for ``d`` = 0 to ``spare`` (no prices). ``d = 0`` is
    the solitaire table itself: with no turn to spare every turn must fill a box."""
    if spare < 0:
        raise ValueError(f"spare turns must be 0 or more, not {spare}")
    open_count = BOXES - np.array([bin(m).count("1") for m in range(MASKS)])
    bands = np.full((spare + 1, MASKS, UPPERS), FLOOR, dtype=np.float32)
    bands[:, FULL, :] = 0.0
    turns = BOXES + spare
    for t, layer in enumerate(_layers(multiplier, turns, [0.0] * turns, progress, spare), 1):
        for d in range(spare + 1):
            rows = open_count == t - d
            bands[d, rows, :] = _stored(layer[rows, :])
    bands.setflags(write=False)
    return bands


@dataclass(frozen=True)
class Bound:
    """An upper bound on a game's optimal expected score, and how it was made."""

    columns: int
    bound: float
    #: Each column's relaxed optimum (prices included) and the prices paid back.
    column_values: tuple[float, ...]
    paid_back: float


def upper_bound(
    columns: int, cost: Sequence[float] | None = None, progress: Progress | None = None
) -> Bound:
    """The relaxation's bound for a game of ``columns`` columns (boatzee ruleset)."""
    turns = BOXES * columns
    prices = list(cost) if cost is not None else [0.0] * turns
    solved = [column_turns(k, turns, prices, progress) for k in range(1, columns + 1)]
    values = tuple(column.start for column in solved)
    return Bound(columns, sum(values) + sum(prices), values, sum(prices))
