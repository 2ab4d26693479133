"""Stopping for the largest expected share of the round's pot, exactly (the ``potmax`` bot).

A seat's share of the pot is 0 unless its round score is above 0 and no other score is
higher; equal highest scores split it (a highest score of 0 takes nothing: the pot carries
over). The scores already posted this round are known. The assumption: every seat still to
throw after this one plays ``optimal``'s stopping (the most expected points,
:func:`~dicehall.games.bullseye.stopping.score_distribution` from the start of its turn),
independently of the others and of this seat. The seat's own throws to come are played the
same way as this decision, so the value of a position is exact under that assumption, by
dynamic programming over the seat's remaining throws. Among the choices with the largest
share the seat takes the one with the most expected points, and on equal figures it stops.

Remainders of a split pot are left out: a share is a fraction of the pot.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from math import comb

from dicehall.games.bullseye.model import RoundView
from dicehall.games.bullseye.scoring import BANDS, DICE, THROWS, round_score
from dicehall.games.bullseye.stopping import Choice, check_position, score_distribution
from dicehall.games.bullseye.throws import sum_distribution

#: Every round score a seat can make.
SCORES = frozenset({0, *(points for _, points in BANDS)})

Outlook = tuple[Fraction, Fraction]
"""(expected share of the pot, expected points) of a choice, in that order of importance."""


@dataclass(frozen=True, slots=True)
class Field:
    """The other seats as one seat sees them: the highest posted score (0 if none), how many
    posted seats hold it (0 when it is 0) and how many seats still throw after this one."""

    top: int
    tied: int
    later: int

    def __post_init__(self) -> None:
        if self.top not in SCORES:
            raise ValueError(f"a round score is one of {sorted(SCORES)}, not {self.top}")
        if self.tied < 0 or self.later < 0 or (self.top > 0) != (self.tied > 0):
            raise ValueError("a posted top score above 0 is held by one seat or more")


@dataclass(frozen=True, slots=True)
class PotHint:
    """Both choices' (share, points) outlooks (None where not allowed) and the better one."""

    stop: Outlook | None
    throw: Outlook | None
    best: Choice

    @property
    def share(self) -> Fraction:
        """The expected share of the pot of the better choice."""
        chosen = self.stop if self.best == "stop" else self.throw
        assert chosen is not None
        return chosen[0]


def field_of(rnd: RoundView, seat: int) -> Field:
    """The :class:`Field` seen by ``seat``, a non-lead seat yet to finish, from its view."""
    if seat == rnd.lead or rnd.scores[seat] is not None:
        raise ValueError("only a non-lead seat still throwing has a pot to play for")
    posted = [s for s in rnd.scores if s is not None]
    top = max(posted, default=0)
    tied = posted.count(top) if top else 0
    return Field(top, tied, len(rnd.order) - 1 - rnd.order.index(seat))


@cache
def score_share(target: int, field: Field, score: int) -> Fraction:
    """The expected share of the pot for finishing with ``score`` against ``field``.

    With ``k`` posted seats on the same score and ``j`` later seats tying, the share is
    ``1 / (1 + k + j)``, and ``j`` is binomial over the later seats that do not score more.
    """
    if score not in SCORES:
        raise ValueError(f"a round score is one of {sorted(SCORES)}, not {score}")
    if score == 0 or score < field.top:
        return Fraction(0)
    posted = field.tied if score == field.top else 0
    later = score_distribution(target, 0, 0)
    equal = later.get(score, Fraction(0))
    below = sum((p for s, p in later.items() if s < score), Fraction(0))
    n = field.later
    return sum(
        (comb(n, j) * equal**j * below ** (n - j) / (1 + posted + j) for j in range(n + 1)),
        Fraction(0),
    )


@cache
def pot_hint(target: int, total: int, throws: int, field: Field) -> PotHint:
    """Both choices with their (share, points) outlooks under ``potmax`` play afterwards."""
    check_position(target, total, throws)
    stop: Outlook | None = None
    if throws:
        score = round_score(total, target)
        stop = (score_share(target, field, score), Fraction(score))
    throw: Outlook | None = None
    if throws < THROWS:
        share = points = Fraction(0)
        for add, p in sum_distribution(DICE - throws).items():
            s, q = outlook(target, total + add, throws + 1, field)
            share += p * s
            points += p * q
        throw = (share, points)
    best: Choice = "stop" if stop is not None and (throw is None or stop >= throw) else "throw"
    return PotHint(stop, throw, best)


def outlook(target: int, total: int, throws: int, field: Field) -> Outlook:
    """The (share, points) outlook of this position under ``potmax`` play."""
    got = pot_hint(target, total, throws, field)
    chosen = got.stop if got.best == "stop" else got.throw
    assert chosen is not None
    return chosen
