"""Exact Boss Dice odds by enumeration (no sampling).

Every final hand falls into one of the 70 showdown classes (:data:`CLASSES`). Keeping some
dice and rolling ``r`` others gives an exact count per class out of ``6**r`` equally likely
rolls (:func:`final_counts`, built from the dice multisets with their multinomial weights and
cached). Two independent counts compare in O(70), so every question below is exact, in
:class:`~fractions.Fraction`, and fast. A push is worth exactly 1/2 of a hand: the hand is
replayed from fresh first rolls, which neither seat is favoured in.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from itertools import combinations_with_replacement
from math import factorial, prod
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from dicehall.engine.errors import InvalidInput
from dicehall.games.boss.hands import (
    Dice,
    Rank,
    beats_first,
    describe,
    faces_text,
    first_roll_rank,
    is_boss_keep,
    legal_keeps,
    missing_from,
    showdown_rank,
    two_pairs_in,
)

Counts = npt.NDArray[np.int64]
Objective = Literal["equity", "win"]

HALF = Fraction(1, 2)


def _multisets(r: int) -> tuple[tuple[Dice, int], ...]:
    """Each multiset of ``r`` dice with the number of ordered rolls that show it."""
    out = []
    for dice in combinations_with_replacement(range(1, 7), r):
        ways = factorial(r) // prod(factorial(n) for n in Counter(dice).values())
        out.append((dice, ways))
    return tuple(out)


_ROLLS: tuple[tuple[tuple[Dice, int], ...], ...] = tuple(_multisets(r) for r in range(6))
#: Every showdown rank, weakest first; a hand's class is its index here.
CLASSES: tuple[Rank, ...] = tuple(sorted({showdown_rank(d) for d, _ in _ROLLS[5]}))
_CLASS_OF_RANK: dict[Rank, int] = {rank: i for i, rank in enumerate(CLASSES)}
_CLASS_OF_HAND: dict[Dice, int] = {d: _CLASS_OF_RANK[showdown_rank(d)] for d, _ in _ROLLS[5]}


def hand_class(hand: Sequence[int]) -> int:
    """The showdown class (index into :data:`CLASSES`) of five dice."""
    return _CLASS_OF_HAND[tuple(sorted(hand))]


@cache
def _final_counts(keep: Dice) -> Counts:
    counts = np.zeros(len(CLASSES), dtype=np.int64)
    for rolled, ways in _ROLLS[5 - len(keep)]:
        counts[_CLASS_OF_HAND[tuple(sorted(keep + rolled))]] += ways
    counts.setflags(write=False)
    return counts


def final_counts(keep: Sequence[int]) -> Counts:
    """How many of the ``6**(5 - len(keep))`` rolls end in each showdown class (read-only)."""
    if len(keep) > 5:
        raise InvalidInput(f"keep: expected 0 to 5 dice, got {len(keep)}")
    return _final_counts(tuple(sorted(keep)))


def final_distribution(keep: Sequence[int]) -> npt.NDArray[np.float64]:
    """:func:`final_counts` as probabilities (floats, for fast solvers)."""
    counts = final_counts(keep)
    return counts / float(6 ** (5 - len(keep)))


#: Every keep from none to five dice, ascending: the rows of :func:`keep_table`.
KEEPS: tuple[Dice, ...] = tuple(
    k for n in range(6) for k in combinations_with_replacement(range(1, 7), n)
)
_KEEP_ROW: dict[Dice, int] = {k: i for i, k in enumerate(KEEPS)}
_ALL_ROLLS = 6**5


def _keep_matrices() -> tuple[Counts, Counts]:
    # each keep's counts scaled to a common 6**5 rolls, and the counts strictly above a class
    scaled = np.stack([_final_counts(k) * 6 ** len(k) for k in KEEPS])
    above = scaled.sum(axis=1, keepdims=True) - np.cumsum(scaled, axis=1)
    scaled.setflags(write=False)
    above.setflags(write=False)
    return scaled, above


_SCALED, _ABOVE = _keep_matrices()


def keep_table() -> tuple[tuple[Dice, ...], npt.NDArray[np.float64]]:
    """:data:`KEEPS` and the matrix of their final-class probabilities (rows sum to 1)."""
    return KEEPS, _SCALED / float(_ALL_ROLLS)


def _point(hand: Sequence[int]) -> Counts:
    counts = np.zeros(len(CLASSES), dtype=np.int64)
    counts[hand_class(hand)] = 1
    return counts


def format_odds(odds_against: Fraction | None) -> str:
    """``x to 1`` with at most two decimals; None (no chance) reads ``no chance``."""
    if odds_against is None:
        return "no chance"
    text = f"{float(odds_against):.2f}".rstrip("0").rstrip(".")
    return f"{text} to 1"


@dataclass(frozen=True, slots=True)
class HandOdds:
    """Exact chances of one side winning, pushing (hand replayed) and losing a hand."""

    win: Fraction
    push: Fraction
    lose: Fraction

    @property
    def equity(self) -> Fraction:
        """The hand's worth to this side: a win is 1, a push 1/2 (a replay), a loss 0."""
        return self.win + self.push / 2

    @property
    def odds_against(self) -> Fraction | None:
        """P(not winning) / P(winning); a push is not a win. None when winning is impossible."""
        return None if self.win == 0 else (1 - self.win) / self.win

    def flipped(self) -> HandOdds:
        """The same hand from the other side."""
        return HandOdds(self.lose, self.push, self.win)

    def as_json(self) -> dict[str, Any]:
        """``{"win", "push", "lose", "odds_against"}`` as floats (odds null: no chance)."""
        against = self.odds_against
        return {
            "win": float(self.win),
            "push": float(self.push),
            "lose": float(self.lose),
            "odds_against": None if against is None else float(against),
        }


def versus(side: Counts, other: Counts) -> HandOdds:
    """Exact odds for the hand counted by ``side`` against the independent hand ``other``."""
    side_total, other_total = int(side.sum()), int(other.sum())
    above = side_total - np.cumsum(side)  # above[j]: side's outcomes in a class above j
    win = int(other @ above)
    push = int(other @ side)
    total = side_total * other_total
    return HandOdds(
        Fraction(win, total), Fraction(push, total), Fraction(total - win - push, total)
    )


# -- checked entry points ------------------------------------------------------------------


def _faces(dice: Sequence[int], what: str, low: int, high: int) -> Dice:
    for face in dice:
        if isinstance(face, bool) or not isinstance(face, int) or not 1 <= face <= 6:
            raise InvalidInput(f"{what}: {face!r} is not a die face (1 to 6)")
    if not low <= len(dice) <= high:
        wanted = f"{low}" if low == high else f"{low} to {high}"
        raise InvalidInput(f"{what}: expected {wanted} dice, got {len(dice)}")
    return tuple(sorted(dice))


def check_hand(hand: Sequence[int], what: str = "Boss's hand") -> Dice:
    """Five dice, ascending; anything else raises :class:`InvalidInput`."""
    return _faces(hand, what, 5, 5)


def check_keep(keep: Sequence[int], what: str = "keep") -> Dice:
    """An opponent's keep: 0 to 5 dice and not two pairs."""
    dice = _faces(keep, what, 0, 5)
    pairs = two_pairs_in(dice)
    if pairs is not None:
        high, low = pairs
        raise InvalidInput(
            f"{what}: keeping two pairs ({high} {high} and {low} {low}) is not allowed; "
            "keep one pair, or a full house"
        )
    return dice


def check_boss_kept(kept: Sequence[int], what: str = "Boss's kept dice") -> Dice:
    """The Boss's kept dice: exactly a pair, three, four, five or a full house."""
    dice = _faces(kept, what, 2, 5)
    if not is_boss_keep(dice):
        raise InvalidInput(
            f"{what}: the Boss keeps exactly the dice that made him Boss (a pair, three, "
            f"full house, four or five of a kind), not {faces_text(dice)}"
        )
    return dice


def check_position(
    roll: Sequence[int] | None, kept: Sequence[int] | None, hand: Sequence[int] | None
) -> tuple[Dice | None, Dice | None, Dice | None]:
    """Check an opponent's first roll, the Boss's kept dice and hand against each other."""
    first = None if roll is None else _faces(roll, "opponent's roll", 5, 5)
    boss_kept = None if kept is None else check_boss_kept(kept)
    boss_hand = None if hand is None else check_hand(hand)
    if boss_kept is not None and boss_hand is not None and missing_from(boss_kept, boss_hand):
        raise InvalidInput(
            f"the Boss's hand {faces_text(boss_hand)} does not hold his kept dice "
            f"{faces_text(boss_kept)}"
        )
    if first is not None and boss_kept is not None:
        mine, his = first_roll_rank(first), first_roll_rank(boss_kept)
        if not beats_first(his, mine):
            raise InvalidInput(
                f"the opponent's first roll {faces_text(first)} ({describe(mine)}) is not "
                f"below the Boss's {faces_text(boss_kept)} ({describe(his)}): "
                "he would not be the opponent"
            )
    return first, boss_kept, boss_hand


def keep_odds(keep: Sequence[int], boss_hand: Sequence[int]) -> HandOdds:
    """The opponent's odds when he keeps ``keep`` and rolls the rest against a known hand."""
    return versus(final_counts(check_keep(keep)), _point(check_hand(boss_hand)))


def keep_odds_vs_kept(keep: Sequence[int], boss_kept: Sequence[int]) -> HandOdds:
    """The opponent's odds against the Boss's kept dice, his concealed roll unknown."""
    return versus(final_counts(check_keep(keep)), final_counts(check_boss_kept(boss_kept)))


@dataclass(frozen=True, slots=True)
class RankedKeep:
    """One legal keep and the opponent's exact odds with it."""

    keep: Dice
    odds: HandOdds

    @property
    def rolled(self) -> int:
        """How many dice the opponent rolls with this keep."""
        return 5 - len(self.keep)


@cache
def _rows(roll: Dice) -> tuple[tuple[Dice, ...], npt.NDArray[np.intp]]:
    keeps = legal_keeps(roll)
    return keeps, np.array([_KEEP_ROW[k] for k in keeps], dtype=np.intp)


@cache
def _ranked(roll: Dice, boss: Dice, known: bool, objective: Objective) -> tuple[RankedKeep, ...]:
    keeps, rows = _rows(roll)
    other = _point(boss) if known else final_counts(boss)
    total = _ALL_ROLLS * int(other.sum())
    # every keep at once, in whole numbers over one denominator: exact and fast to sort
    wins: list[int] = (_ABOVE[rows] @ other).tolist()
    pushes: list[int] = (_SCALED[rows] @ other).tolist()

    def by_equity(i: int) -> tuple[int, int, int, Dice]:
        return (-(2 * wins[i] + pushes[i]), -wins[i], len(keeps[i]), keeps[i])

    def by_win(i: int) -> tuple[int, int, int, Dice]:
        return (-wins[i], -pushes[i], len(keeps[i]), keeps[i])

    order = sorted(range(len(keeps)), key=by_win if objective == "win" else by_equity)
    return tuple(
        RankedKeep(
            keeps[i],
            HandOdds(
                Fraction(wins[i], total),
                Fraction(pushes[i], total),
                Fraction(total - wins[i] - pushes[i], total),
            ),
        )
        for i in order
    )


def rank_keeps(
    roll: Sequence[int],
    *,
    boss_kept: Sequence[int] | None = None,
    boss_hand: Sequence[int] | None = None,
    by: Objective = "equity",
) -> tuple[RankedKeep, ...]:
    """Every legal keep from the opponent's first roll, best first.

    Against ``boss_hand`` when it is given (a stated hand), otherwise against ``boss_kept``
    with the Boss's concealed dice uniform over his roll. ``by="equity"`` ranks by
    win + push/2 (a push replays the hand), ``by="win"`` by the win probability alone; ties
    go to the higher win (push) chance, then to the keep with fewer dice.
    """
    if by not in ("equity", "win"):
        raise InvalidInput(f"rank keeps by 'equity' or 'win', not {by!r}")
    if boss_kept is None and boss_hand is None:
        raise InvalidInput("give the Boss's kept dice or his whole hand")
    first, kept, hand = check_position(roll, boss_kept, boss_hand)
    assert first is not None
    if hand is not None:
        return _ranked(first, hand, True, by)
    assert kept is not None
    return _ranked(first, kept, False, by)


def best_keep(roll: Sequence[int], boss_kept: Sequence[int]) -> RankedKeep:
    """The opponent's best keep by equity against the Boss's kept dice (concealed unknown)."""
    return rank_keeps(roll, boss_kept=boss_kept)[0]


@dataclass(frozen=True, slots=True)
class CallOdds:
    """The Boss's decision: his odds if he calls "come up", and what the opponent answers."""

    come_up: HandOdds
    reply: RankedKeep

    @property
    def pick_up(self) -> Fraction:
        """A fresh hand is worth exactly 1/2 to either seat, by symmetry."""
        return HALF

    @property
    def should_come_up(self) -> bool:
        """True when coming up is worth more than picking 'em up."""
        return self.come_up.equity > HALF


def call_odds(
    boss_hand: Sequence[int], boss_kept: Sequence[int], opponent_roll: Sequence[int]
) -> CallOdds:
    """The Boss's odds if he calls "come up" against an opponent who answers with his best
    keep by equity (knowing the kept dice only); the odds are the Boss's."""
    first, kept, hand = check_position(opponent_roll, boss_kept, boss_hand)
    assert first is not None and kept is not None and hand is not None
    reply = _ranked(first, kept, False, "equity")[0]
    return CallOdds(versus(_point(hand), final_counts(reply.keep)), reply)
