"""Boss Dice bots: a plain heuristic, the exact-odds player, and the equilibrium player."""

from __future__ import annotations

import random
from collections.abc import Sequence

from dicehall.games.boss.equilibrium import Equilibrium
from dicehall.games.boss.equilibrium_store import equilibrium
from dicehall.games.boss.hands import ONE_PAIR, boss_keep, showdown_rank
from dicehall.games.boss.odds import call_odds, rank_keeps
from dicehall.games.boss.rules import BossAction, BossView, ComeUp, Keep, PickUp


def _call(view: BossView, legal: Sequence[BossAction], come_up: bool) -> BossAction:
    if come_up or PickUp() not in legal:
        return ComeUp()
    return PickUp()


def _hand(view: BossView) -> tuple[int, ...]:
    assert view.concealed is not None
    return view.boss_kept + view.concealed


class OddsBot:
    """Plays by the exact odds: the Boss comes up when that is worth more than 1/2 (a fresh
    hand); the opponent keeps the dice with the best equity against the Boss's kept dice."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng

    def choose(self, view: BossView, legal: Sequence[BossAction]) -> BossAction:
        """Pick the exact-odds move among ``legal``."""
        opponent = view.opponent
        assert opponent is not None
        if view.phase == "call":
            odds = call_odds(_hand(view), view.boss_kept, view.first_rolls[opponent])
            return _call(view, legal, odds.should_come_up)
        best = rank_keeps(view.first_rolls[opponent], boss_kept=view.boss_kept)[0]
        return Keep(best.keep)


class HeuristicBot:
    """A plain player: the Boss comes up with two pair or better; the opponent keeps his
    largest group (the higher pair of two pair), or rolls all five without a pair."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng

    def choose(self, view: BossView, legal: Sequence[BossAction]) -> BossAction:
        """Pick the rule-of-thumb move among ``legal``."""
        opponent = view.opponent
        assert opponent is not None
        if view.phase == "call":
            return _call(view, legal, showdown_rank(_hand(view))[0] > ONE_PAIR)
        return Keep(boss_keep(view.first_rolls[opponent]))


class EquilibriumBot:
    """Plays the Nash equilibrium of one hand (:mod:`equilibrium`), drawing its mixed moves
    with its own generator. The equilibrium is read (or solved and stored) at the first move;
    where the game forbids another pick-up the Boss comes up."""

    def __init__(self, rng: random.Random, solved: Equilibrium | None = None) -> None:
        self._rng = rng
        self._given = solved

    @property
    def _solved(self) -> Equilibrium:
        return equilibrium() if self._given is None else self._given

    def choose(self, view: BossView, legal: Sequence[BossAction]) -> BossAction:
        """Draw the equilibrium move among ``legal``."""
        opponent = view.opponent
        assert opponent is not None
        roll = view.first_rolls[opponent]
        if view.phase == "call":
            chance = self._solved.come_up_chance(_hand(view), view.boss_kept, roll)
            return _call(view, legal, self._rng.random() < chance)
        keeps = self._solved.keep_chances(roll, view.boss_kept)
        draw, total = self._rng.random() * sum(p for _, p in keeps), 0.0
        for keep, chance in keeps:
            total += chance
            if draw < total:
                return Keep(keep)
        return Keep(keeps[-1][0])
