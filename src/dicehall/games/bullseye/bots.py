"""Bull's Eye bots: a plain heuristic, optimal play with bets when the pot looks won, and play
for the largest share of the round's pot."""

from __future__ import annotations

import random
from collections.abc import Sequence
from fractions import Fraction
from functools import cache

from dicehall.games.bullseye.model import BullseyeAction, BullseyeView, RoundView, Stop, ThrowOn
from dicehall.games.bullseye.potmax import field_of, pot_hint
from dicehall.games.bullseye.scoring import round_score
from dicehall.games.bullseye.stopping import Choice, best_choice, score_distribution


def _kind(choice: Choice) -> type[Stop] | type[ThrowOn]:
    return Stop if choice == "stop" else ThrowOn


def _pick(legal: Sequence[BullseyeAction], choice: Choice, bet: int) -> BullseyeAction:
    """The legal action of ``choice``'s kind with the largest bet up to ``bet``."""
    options = [a for a in legal if isinstance(a, _kind(choice))] or list(legal)
    return max((a for a in options if a.bet <= bet), key=lambda a: (a.bet, isinstance(a, Stop)))


def _lead_move(legal: Sequence[BullseyeAction]) -> BullseyeAction:
    """The lead has one move besides bets, and never bets: it cannot take the pot."""
    return min(legal, key=lambda a: a.bet)


def _seat_round(view: BullseyeView) -> tuple[int, RoundView]:
    if view.seat is None or view.round is None:
        raise ValueError("a bot is asked to move only at its own turn")
    return view.seat, view.round


@cache
def _at_most(target: int, score: int) -> Fraction:
    """P(a seat that has yet to throw, playing best, scores ``score`` or less)."""
    dist = score_distribution(target, 0, 0)
    return sum((p for s, p in dist.items() if s <= score), Fraction(0))


def top_score_chance(view: BullseyeView, choice: Choice) -> Fraction:
    """P(this seat's round score is the highest (ties included) and above 0) after ``choice``.

    Seats already done show their scores; seats still to throw are assumed to play best.
    """
    seat, rnd = _seat_round(view)
    total = rnd.totals[seat]
    if total is None:
        return Fraction(0)
    throws = len(rnd.counted[seat])
    posted = [s for s in rnd.scores if s is not None]
    later = len(rnd.order) - 1 - rnd.order.index(seat)
    chance = Fraction(0)
    for score, p in score_distribution(rnd.target, total, throws, choice).items():
        if score == 0 or any(other > score for other in posted):
            continue
        chance += p * _at_most(rnd.target, score) ** later
    return chance


class OptimalBot:
    """Maximises expected points; bets the most it may when its chance of the pot is high."""

    def __init__(self, rng: random.Random, *, confidence: float = 0.8) -> None:
        if not 0 <= confidence <= 1:
            raise ValueError("confidence is a probability, 0 to 1")
        self._rng = rng
        self._confidence = Fraction(confidence).limit_denominator(1000)

    def choose(self, view: BullseyeView, legal: Sequence[BullseyeAction]) -> BullseyeAction:
        seat, rnd = _seat_round(view)
        if seat == rnd.lead:
            return _lead_move(legal)
        total = rnd.totals[seat]
        assert total is not None
        throws = len(rnd.counted[seat])
        choice = best_choice(rnd.target, total, throws)
        bet = 0
        if top_score_chance(view, choice) >= self._confidence:
            bet = max(a.bet for a in legal)
        return _pick(legal, choice, bet)


class PotMaxBot:
    """Stops or throws on for the largest expected share of this round's pot; bets only on a
    sure pot.

    The shares are exact (:mod:`~dicehall.games.bullseye.potmax`), assuming the seats still
    to throw play ``optimal``'s stopping. A bet of ``b`` chips goes into the pot, of which the
    seat takes back its share: it costs ``(1 - share) * b`` in expectation, so no bet gains
    and the bot bets the most it may only where a bet costs nothing, a share of exactly 1.
    That happens only to the last seat to throw (a later seat scores 50 with some chance
    whatever the Bull's Eye) whose play from here cannot end at 0 or at or below a posted
    score.
    """

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng

    def choose(self, view: BullseyeView, legal: Sequence[BullseyeAction]) -> BullseyeAction:
        seat, rnd = _seat_round(view)
        if seat != rnd.thrower:
            raise ValueError("a bot is asked to move only at its own turn")
        if seat == rnd.lead:
            return _lead_move(legal)
        total = rnd.totals[seat]
        assert total is not None
        got = pot_hint(rnd.target, total, len(rnd.counted[seat]), field_of(rnd, seat))
        bet = max(a.bet for a in legal) if got.share == 1 else 0
        return _pick(legal, got.best, bet)


class HeuristicBot:
    """A plain player: throws on while more than 3 short, bets the most on an exact hit."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng

    def choose(self, view: BullseyeView, legal: Sequence[BullseyeAction]) -> BullseyeAction:
        seat, rnd = _seat_round(view)
        if seat == rnd.lead:
            return _lead_move(legal)
        total = rnd.totals[seat]
        assert total is not None
        choice: Choice = "throw" if total < rnd.target - 3 else "stop"
        bet = max(a.bet for a in legal) if round_score(total, rnd.target) == 50 else 0
        return _pick(legal, choice, bet)
