"""A Nash equilibrium of one Boss Dice hand, by linear programming (HiGHS).

The only hidden information in a hand is the Boss's concealed roll, so the hand splits into
public states (:mod:`hand_game`) that can be solved one by one; each is a small zero-sum
game. In a state the Boss is of type ``t`` (his showdown class) with chance ``p_t``; if he
comes up and the opponent keeps ``k``, the Boss's hand is worth ``A[t, k] = win + c *
push``, and picking up is worth ``c``, the worth of a fresh hand. Against a keep mixture
``y`` the Boss comes up exactly when ``(A y)_t > c``, so the opponent's equilibrium keep
mixture solves

    minimise  c + sum_t p_t z_t   subject to   z_t >= (A y)_t - c,  z_t >= 0,  sum y = 1,  y >= 0

and the duals ``lambda_t`` of the first constraints are ``p_t`` times the Boss's equilibrium
chance of coming up. All states go to HiGHS as one block-diagonal LP per kept-dice group.

The worth ``c`` of a fresh hand is solved for as a fixed point: solve the hand with a guess
for ``c``, then value a fresh hand with the solved strategies played by both seats
(:func:`profiles.horse_value`), and repeat until the two agree. Both seats are equally
likely to be the Boss of the next hand and both use the same strategies, so the first guess,
1/2, is already the fixed point; the code checks it rather than assuming it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sparse
from scipy.optimize import linprog

from dicehall.engine.errors import InvalidInput
from dicehall.games.boss.hand_game import FloatArray, HandGame, KeptGroup
from dicehall.games.boss.hands import Dice, missing_from
from dicehall.games.boss.profiles import (
    Exploitability,
    HandOutcome,
    Profile,
    exploitability,
    horse_value,
    outcome,
)

#: ``progress(states_done, states_total)`` after each block of states is solved.
ProgressFn = Callable[[int, int], None]

_FIXED_POINT_TOLERANCE = 1e-9
_MAX_FIXED_POINT_STEPS = 5


def _solve_group(group: KeptGroup, fresh: float) -> tuple[FloatArray, FloatArray]:
    """The equilibrium of every state of one group: (come up by type, keep mixture)."""
    n, n_types = len(group.states), len(group.types)
    win, push = group.payoffs()
    gain = win + fresh * push - fresh  # (n, types, keeps): coming up over picking up
    counts = group.valid.sum(axis=1)
    offsets = np.concatenate([[0], np.cumsum(counts)[:-1]])
    n_keep_vars = int(counts.sum())

    state, typ, slot = np.nonzero(np.broadcast_to(group.valid[:, None, :], gain.shape))
    rows = state * n_types + typ
    values = gain[state, typ, slot]
    z_rows = np.arange(n * n_types)
    upper = sparse.csr_matrix(
        (
            np.concatenate([values, -np.ones(n * n_types)]),
            (
                np.concatenate([rows, z_rows]),
                np.concatenate([offsets[state] + slot, n_keep_vars + z_rows]),
            ),
        ),
        shape=(n * n_types, n_keep_vars + n * n_types),
    )
    keep_state, keep_slot = np.nonzero(group.valid)
    equal = sparse.csr_matrix(
        (np.ones(n_keep_vars), (keep_state, offsets[keep_state] + keep_slot)),
        shape=(n, n_keep_vars + n * n_types),
    )
    cost = np.concatenate([np.zeros(n_keep_vars), np.tile(group.type_prob, n)])
    result = linprog(
        cost,
        A_ub=upper,
        b_ub=np.zeros(n * n_types),
        A_eq=equal,
        b_eq=np.ones(n),
        bounds=(0, None),
        method="highs",
    )
    if result.status != 0:
        raise RuntimeError(f"the Boss Dice LP failed: {result.message}")
    keep = np.zeros((n, group.valid.shape[1]))
    keep[keep_state, keep_slot] = np.clip(result.x[:n_keep_vars], 0.0, None)
    keep /= keep.sum(axis=1, keepdims=True)
    duals = -np.asarray(result.ineqlin.marginals).reshape(n, n_types)
    come_up = np.clip(duals / group.type_prob, 0.0, 1.0)
    return come_up, keep


def solve(game: HandGame, fresh: float = 0.5, progress: ProgressFn | None = None) -> Profile:
    """An equilibrium of the hand when a fresh hand is worth ``fresh`` to either player."""
    come_up = np.zeros((game.n_states, len(game.classes)))
    keep = np.zeros((game.n_states, game.width))
    done = 0
    for group in game.groups:
        group_come_up, group_keep = _solve_group(group, fresh)
        come_up[np.ix_(group.states, group.types)] = group_come_up
        keep[group.states] = group_keep
        done += len(group.states)
        if progress is not None:
            progress(done, game.n_states)
    return Profile(come_up, keep)


def solve_fixed_point(
    game: HandGame, progress: ProgressFn | None = None, start: float = 0.5
) -> tuple[Profile, float]:
    """The equilibrium with the worth of a fresh hand at its fixed point, and that worth,
    iterating from the guess ``start``."""
    fresh = start
    for _ in range(_MAX_FIXED_POINT_STEPS):
        profile = solve(game, fresh, progress)
        implied = horse_value(game, profile, profile)
        if abs(implied - fresh) <= _FIXED_POINT_TOLERANCE:
            return profile, fresh
        fresh = implied
    raise RuntimeError("the worth of a fresh Boss Dice hand did not settle")


@dataclass(frozen=True, slots=True)
class EquilibriumReport:
    """The figures of a solved hand.

    ``boss_value``: the Boss's chance of winning the horse from this hand on (a push or
    pick-up is worth ``fresh``); ``outcome``: how hands end; ``exploitability``: what a best
    response gains against the strategies.
    """

    boss_value: float
    fresh: float
    outcome: HandOutcome
    exploitability: Exploitability
    public_states: int
    boss_chance: float


@dataclass(frozen=True, eq=False)
class Equilibrium:
    """A solved hand: both roles' equilibrium strategies and lookups by dice."""

    game: HandGame
    profile: Profile
    fresh: float = 0.5

    def _state(self, kept: Sequence[int], roll: Sequence[int]) -> int:
        return self.game.state(kept, roll)

    def come_up_chance(
        self, hand: Sequence[int], kept: Sequence[int], roll: Sequence[int]
    ) -> float:
        """The Boss's chance of calling "come up" with ``hand`` (his kept dice ``kept``)
        against the opponent's first roll ``roll``."""
        state = self._state(kept, roll)
        if len(hand) != self.game.dice or missing_from(kept, hand):
            raise InvalidInput(
                f"the Boss's hand {list(hand)} must be {self.game.dice} dice holding his "
                f"kept dice {list(kept)}"
            )
        return float(self.profile.come_up[state, self.game.hand_class(hand)])

    def keep_chances(
        self, roll: Sequence[int], kept: Sequence[int]
    ) -> tuple[tuple[Dice, float], ...]:
        """The opponent's equilibrium keeps with their chances (only those above 0), most
        likely first."""
        state = self._state(kept, roll)
        keeps = self.game.legal_keeps(state)
        chances = self.profile.keep[state, : len(keeps)]
        order = sorted(range(len(keeps)), key=lambda m: (-chances[m], len(keeps[m]), keeps[m]))
        return tuple((keeps[m], float(chances[m])) for m in order if chances[m] > 0)

    def calls(
        self, kept: Sequence[int], roll: Sequence[int]
    ) -> tuple[tuple[int, float, float], ...]:
        """For each showdown class the Boss can reach in a state: (class, its chance, his
        chance of coming up with it), weakest first."""
        state = self._state(kept, roll)
        prob = self.game.type_prob(state)
        return tuple(
            (int(j), float(prob[j]), float(self.profile.come_up[state, j]))
            for j in np.flatnonzero(prob > 0)
        )

    def report(self) -> EquilibriumReport:
        """The value of being Boss, how hands end, and the exploitability."""
        ending = outcome(self.game, self.profile.come_up, self.profile.keep)
        return EquilibriumReport(
            boss_value=ending.boss_value(self.fresh),
            fresh=self.fresh,
            outcome=ending,
            exploitability=exploitability(self.game, self.profile, self.fresh),
            public_states=self.game.n_states,
            boss_chance=self.game.boss_chance,
        )
