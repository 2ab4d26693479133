"""The exact distribution of the Bull's Eye the lead sets."""

from __future__ import annotations

from fractions import Fraction
from functools import cache

from dicehall.games.bullseye.scoring import DICE, THROWS, lead_part
from dicehall.games.bullseye.throws import counted_distribution


@cache
def lead_part_distribution(throw: int) -> dict[int, Fraction]:
    """P(the lead's ``throw`` (0, 1 or 2) adds each amount): all, two highest, highest die."""
    out: dict[int, Fraction] = {}
    for faces, p in counted_distribution(DICE).items():
        value = lead_part(throw, faces)
        out[value] = out.get(value, Fraction(0)) + p
    return dict(sorted(out.items()))


@cache
def target_distribution() -> dict[int, Fraction]:
    """P(the Bull's Eye is each value), exactly; the three counted throws are independent."""
    dist: dict[int, Fraction] = {0: Fraction(1)}
    for throw in range(THROWS):
        nxt: dict[int, Fraction] = {}
        for base, p in dist.items():
            for add, q in lead_part_distribution(throw).items():
                nxt[base + add] = nxt.get(base + add, Fraction(0)) + p * q
        dist = nxt
    return dict(sorted(dist.items()))


def target_mean() -> Fraction:
    """The expected Bull's Eye."""
    return sum((t * p for t, p in target_distribution().items()), Fraction(0))
