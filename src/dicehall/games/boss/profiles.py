"""Strategy profiles for one Boss Dice hand, and what they are worth, exactly.

A :class:`Profile` is a stationary strategy for both roles: the Boss's chance of calling
"come up" in each public state for each showdown class his hand can have, and the
opponent's chance of each legal keep in each public state. Everything here is an exact
expectation over the dice (no sampling), vectorised over the public states.

A push and a pick 'em up both start a fresh hand, which is worth ``fresh`` to the player
concerned. Over a whole horse (hands repeated until one ends with a winner) the worth of a
fresh hand is not a given but the fixed point :func:`horse_value` solves for.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from dicehall.games.boss.hand_game import FloatArray, HandGame, KeptGroup

#: Below this, a chance of ending a hand is taken as "no hand ever ends".
_NEVER_ENDS = 1e-12
_MAX_IMPROVEMENTS = 200


@dataclass(frozen=True, eq=False)
class Profile:
    """Both roles' strategies: ``come_up[state, class]`` and ``keep[state, legal keep]``.

    ``keep[i, m]`` is the chance of the ``m``-th keep of ``HandGame.legal_keeps(i)``; columns
    past a state's legal keeps are 0. ``come_up`` is 0 for classes the Boss cannot have.
    """

    come_up: FloatArray
    keep: FloatArray


@dataclass(frozen=True, slots=True)
class HandOutcome:
    """How one hand ends, from the Boss's side: win, push, lose, or pick 'em up."""

    win: float
    push: float
    lose: float
    pick_up: float

    @property
    def come_up(self) -> float:
        """The chance that the Boss calls "come up"."""
        return self.win + self.push + self.lose

    def boss_value(self, fresh: float) -> float:
        """The hand's worth to the Boss when a fresh hand is worth ``fresh`` to him."""
        return self.win + fresh * (self.push + self.pick_up)


def _blocks(game: HandGame) -> Iterator[tuple[KeptGroup, FloatArray, FloatArray]]:
    for group in game.groups:
        win, push = group.payoffs()
        yield group, win, push


def outcome(game: HandGame, come_up: FloatArray, keep: FloatArray) -> HandOutcome:
    """The exact chances of each ending when the Boss plays ``come_up``, the opponent ``keep``."""
    win = push = up = 0.0
    for group, w, p in _blocks(game):
        prob = game.prob[group.states]
        reach = come_up[np.ix_(group.states, group.types)] * group.type_prob  # (n, types)
        y = keep[group.states]
        win += float(prob @ np.einsum("nt,ntm,nm->n", reach, w, y))
        push += float(prob @ np.einsum("nt,ntm,nm->n", reach, p, y))
        up += float(prob @ reach.sum(axis=1))
    return HandOutcome(win, push, max(0.0, up - win - push), max(0.0, 1.0 - up))


def best_call(game: HandGame, keep: FloatArray, fresh: float) -> FloatArray:
    """The Boss's best response to ``keep``: come up exactly when that beats a fresh hand."""
    come_up = np.zeros((game.n_states, len(game.classes)))
    for group, w, p in _blocks(game):
        y = keep[group.states]
        value = np.einsum("ntm,nm->nt", w + fresh * p, y)
        come_up[np.ix_(group.states, group.types)] = value > fresh
    return come_up


def best_keep(game: HandGame, come_up: FloatArray, fresh: float) -> FloatArray:
    """The opponent's best response to ``come_up``: the legal keep that wins him the most."""
    keep = np.zeros((game.n_states, game.width))
    for group, w, p in _blocks(game):
        reach = come_up[np.ix_(group.states, group.types)] * group.type_prob
        value = _keep_values(reach, w, p, group, fresh)
        keep[group.states, np.argmax(value, axis=1)] = 1.0
    return keep


def _keep_values(
    reach: FloatArray, w: FloatArray, p: FloatArray, group: KeptGroup, fresh: float
) -> FloatArray:
    # what each keep wins the opponent against the Boss types that come up (padding: -inf)
    lose = 1.0 - w - p
    value = np.einsum("nt,ntm->nm", reach, lose + fresh * p)
    return np.where(group.valid, value, -np.inf)


def boss_best_value(game: HandGame, keep: FloatArray, fresh: float) -> float:
    """The most a Boss can make of a hand against ``keep``."""
    total = 0.0
    for group, w, p in _blocks(game):
        value = np.einsum("ntm,nm->nt", w + fresh * p, keep[group.states])
        total += float(game.prob[group.states] @ (np.maximum(value, fresh) @ group.type_prob))
    return total


def opponent_best_value(game: HandGame, come_up: FloatArray, fresh: float) -> float:
    """The most an opponent can make of a hand against ``come_up``."""
    total = 0.0
    for group, w, p in _blocks(game):
        reach = come_up[np.ix_(group.states, group.types)] * group.type_prob
        best = _keep_values(reach, w, p, group, fresh).max(axis=1)
        picked = fresh * (1.0 - reach.sum(axis=1))
        total += float(game.prob[group.states] @ (best + picked))
    return total


def horse_value(game: HandGame, mine: Profile, theirs: Profile) -> float:
    """The chance of winning the horse for a seat playing ``mine`` against ``theirs``.

    Each seat is the Boss in half the hands. Hands repeat until one has a winner, so the
    worth ``W`` of a fresh hand solves ``W = (a + c W) / 2`` with ``a`` the chance of winning
    a hand outright over both roles and ``c`` the chance of a push or pick-up: ``W = a / (2
    - c)``. (1/2 when no hand can ever end.)
    """
    as_boss = outcome(game, mine.come_up, theirs.keep)
    as_opponent = outcome(game, theirs.come_up, mine.keep)
    wins = as_boss.win + as_opponent.lose
    again = as_boss.push + as_boss.pick_up + as_opponent.push + as_opponent.pick_up
    if 2.0 - again < _NEVER_ENDS:
        return 0.5
    return wins / (2.0 - again)


def best_response_value(game: HandGame, theirs: Profile) -> tuple[float, Profile]:
    """The best a seat can do over a whole horse against ``theirs``, and how.

    Policy iteration: answer ``theirs`` best with a fresh hand worth ``W``, value that answer
    exactly with :func:`horse_value`, and repeat until ``W`` stops rising. (Newton's method
    on the convex equation ``T(W) = W``: it rises to the fixed point in a few steps.)
    """
    worth = horse_value(game, theirs, theirs)
    answer = theirs
    for _ in range(_MAX_IMPROVEMENTS):
        candidate = Profile(
            best_call(game, theirs.keep, worth), best_keep(game, theirs.come_up, worth)
        )
        value = horse_value(game, candidate, theirs)
        if value <= worth + 1e-15:
            break
        worth, answer = value, candidate
    return worth, answer


@dataclass(frozen=True, slots=True)
class Exploitability:
    """How much a best-responding player gains against a profile.

    ``boss`` and ``opponent``: the gain in one hand, in each role, with a fresh hand worth
    ``fresh``. ``horse``: the gain in the chance of winning a horse over a player who uses the
    profile in both roles, fresh hands valued at their true fixed point.
    """

    boss: float
    opponent: float
    horse: float

    @property
    def hand(self) -> float:
        """The mean one-hand gain over the two roles (a seat is each role half the time)."""
        return (self.boss + self.opponent) / 2


def exploitability(game: HandGame, profile: Profile, fresh: float = 0.5) -> Exploitability:
    """What a best response gains against ``profile`` per hand and per horse."""
    hand = outcome(game, profile.come_up, profile.keep)
    value = hand.boss_value(fresh)
    boss_gain = boss_best_value(game, profile.keep, fresh) - value
    opponent_value = hand.lose + fresh * (hand.push + hand.pick_up)
    opponent_gain = opponent_best_value(game, profile.come_up, fresh) - opponent_value
    best, _ = best_response_value(game, profile)
    return Exploitability(
        max(0.0, boss_gain),
        max(0.0, opponent_gain),
        max(0.0, best - horse_value(game, profile, profile)),
    )
