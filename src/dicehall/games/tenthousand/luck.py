"""Ten Thousand's measure of luck, **zero-outs**: a roll of ``n`` dice that scores nothing
(observed 0 or 1), against the exact probability of that for ``n`` dice, counted from the
game's own scorer (and its four-and-a-pair option)."""

from __future__ import annotations

from functools import cache
from itertools import product

from dicehall.games.luck import LuckMeasure, Seen, bernoulli
from dicehall.games.tenthousand.rules import TenThousandState
from dicehall.games.tenthousand.scoring import set_asides


@cache
def zero_out_chance(dice: int, four_and_pair: bool) -> float:
    """The exact chance that ``dice`` dice score nothing in Ten Thousand."""
    rolls = list(product(range(1, 7), repeat=dice))
    dead = sum(1 for roll in rolls if not set_asides(tuple(sorted(roll)), four_and_pair))
    return dead / len(rolls)


def roller(state: TenThousandState) -> int | None:
    """The seat rolling, when the pending request is a roll of the turn."""
    return int(state.current) if state.phase == "roll" else None


def zero_out(state: TenThousandState, faces: tuple[int, ...]) -> Seen:
    """Whether the roll scored nothing, against the chance of that."""
    four_and_pair = bool(state.options.four_and_pair_is_three_pairs)
    chance = zero_out_chance(len(faces), four_and_pair)
    return bernoulli(chance, not set_asides(tuple(sorted(faces)), four_and_pair))


MEASURE = LuckMeasure("zero-outs", roller, zero_out)
