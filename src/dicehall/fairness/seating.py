"""Seat orders drawn with committed dice, so that who sits first is as checkable as a roll.

A Fisher-Yates shuffle from the last place down: to pick one of ``k`` places (``k`` <= 36),
read two faces ``a, b`` as ``v = 6 * (a - 1) + (b - 1)`` (0..35); keep ``v`` when it is below
``36 - 36 % k`` and take ``v % k``, else read the next two faces. Faces come from dice sets
in serving order, six per set, every face of a set used before the next set is read.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")


class NotEnoughDice(Exception):
    """The faces ran out before the order was drawn (serve another set and draw again)."""


def shuffle_by_dice(items: Sequence[T], faces: Sequence[int]) -> list[T]:
    """``items`` in the order ``faces`` draw (the same faces always give the same order)."""
    order = list(items)
    reader = iter(faces)
    for last in range(len(order) - 1, 0, -1):
        k = last + 1
        while True:
            try:
                a, b = next(reader), next(reader)
            except StopIteration:
                raise NotEnoughDice(
                    f"{len(faces)} faces are too few to seat {len(order)}"
                ) from None
            value = 6 * (a - 1) + (b - 1)
            if value < 36 - 36 % k:
                pick = value % k
                break
        order[last], order[pick] = order[pick], order[last]
    return order
