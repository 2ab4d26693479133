"""Ten Thousand between ``heuristic`` bots at simulation speed: the same games, played on ints.

:func:`play_heuristic` plays exactly the game that the engine plays with
:class:`~dicehall.games.tenthousand.bots.HeuristicBot` in every seat and
:class:`~dicehall.engine.dice.Seeded` dice of the same seed: the same draws from the same
random stream, the same set-asides and banks, the same :class:`Result`. It skips what a
simulation never looks at (states, views, legal-move lists, events). Each roll is keyed by
its multiset without sorting (the sum of ``7 ** (face - 1)`` over the dice), and the
heuristic's set-aside for every one of the 923 multisets is worked out once per house rule.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import cache

from dicehall.engine.game import Result
from dicehall.games.tenthousand.bots import HEURISTIC_BANK_AT, HEURISTIC_DIE_WORTH
from dicehall.games.tenthousand.rules import DICE, TenThousandOptions
from dicehall.games.tenthousand.scoring import set_asides

#: A die's share of a roll's key, by face minus one: a multiset of up to six dice in base 7.
_WEIGHT = tuple(7**face for face in range(6))
#: The bank limits by dice in hand; hot dice (six) never bank on the limit.
_BANK_AT = tuple(HEURISTIC_BANK_AT.get(n, -1) for n in range(DICE + 1))


def _multisets(size: int, lowest: int = 1) -> list[tuple[int, ...]]:
    if size == 0:
        return [()]
    return [(face, *rest) for face in range(lowest, 7) for rest in _multisets(size - 1, face)]


@cache
def heuristic_picks(four_and_pair: bool) -> dict[int, tuple[int, int]]:
    """For each scoring roll's key, the heuristic's set-aside as ``(points, dice in hand
    after it)``; a roll missing from the table zeroes out.

    The pick is :class:`HeuristicBot`'s: the most points plus 100 per die left to roll (hot
    dice count as six), the first in the rules' order on a tie.
    """
    picks: dict[int, tuple[int, int]] = {}
    for size in range(1, DICE + 1):
        for roll in _multisets(size):
            best: tuple[int, int] | None = None
            best_worth = -1
            for keep, points in set_asides(roll, four_and_pair):
                left = size - len(keep) or DICE
                worth = points + HEURISTIC_DIE_WORTH * left
                if worth > best_worth:
                    best, best_worth = (points, left), worth
            if best is not None:
                picks[sum(_WEIGHT[face - 1] for face in roll)] = best
    return picks


def play_heuristic(seats: int, options: TenThousandOptions, dice_seed: int) -> Result:
    """The result of a game between ``heuristic`` bots in ``seats`` seats, with the dice of
    ``Seeded(dice_seed)``."""
    picks = heuristic_picks(options.four_and_pair_is_three_pairs)
    rand = random.Random(dice_seed).random
    weight, bank_at = _WEIGHT, _BANK_AT
    target, entry = options.target, options.entry_threshold
    banked = [0] * seats
    seat = turns = 0
    trigger: int | None = None
    final_left = 0
    while True:
        in_hand, turn_total = DICE, 0
        mine = banked[seat]
        while True:
            key = 0
            for _ in range(in_hand):
                key += weight[int(rand() * 6)]
            pick = picks.get(key)
            if pick is None:  # zeroed out
                break
            turn_total += pick[0]
            in_hand = pick[1]
            if not (mine > 0 or turn_total >= entry):
                continue  # cannot bank yet: roll on
            total = mine + turn_total
            if trigger is not None:
                best_other = max((b for i, b in enumerate(banked) if i != seat), default=0)
                bank = total > best_other
            elif total >= target:
                bank = True
            else:
                bank = turn_total >= bank_at[in_hand] >= 0
            if bank:
                banked[seat] = total
                break
        turns += 1
        if trigger is None:
            if banked[seat] >= target:
                trigger, final_left = seat, seats - 1
        else:
            final_left -= 1
        if trigger is not None and final_left == 0:
            top = max(banked)
            winners = tuple(i for i, b in enumerate(banked) if b == top)
            return Result(winners, tuple(banked), turns)
        seat = (seat + 1) % seats


def fast_play(bots: Sequence[str], options: TenThousandOptions, dice_seed: int) -> Result | None:
    """The game's result played here when every seat is ``heuristic``, else None (the
    engine plays it)."""
    if not bots or any(name != "heuristic" for name in bots):
        return None
    return play_heuristic(len(bots), options, dice_seed)
