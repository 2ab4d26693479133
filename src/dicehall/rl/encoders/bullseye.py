"""Bull's Eye's numbering and observation (two to eight seats; one with ``allow_two_seats``
off is not a game).

Actions: ``Stop(bet)`` for every bet from 0 to the bet limit, then ``ThrowOn(bet)`` the
same way (``2 * (bet_limit + 1)`` numbers).

Observation (``8 * seats + 13`` numbers, seats from the observer):

- per seat: points / 100, bank / starting bank, this round's total / 36 and score / 10
  (0 until known), this round's bet / (bet limit or 1), and whether it threw for the lead;
- the lead and the thrower of this round, one-hot each;
- the dice on the table, by face, / 3;
- the Bull's Eye so far / 36, whether it is set, the next throw's dice / 3 and counted
  dice / 3;
- the pot / (seats times starting bank), rounds played / (the round limit or 100), and
  whether the lead is being thrown for.
"""

from __future__ import annotations

import numpy as np

from dicehall.games.bullseye.model import BullseyeOptions, BullseyeView, Stop, ThrowOn
from dicehall.rl.encoding import Encoding, Vector, one_hot, rotated


def encoding(seats: int, options: BullseyeOptions) -> Encoding:
    """The Bull's Eye encoding for ``seats`` seats under ``options``."""
    bets = range(options.bet_limit + 1)
    actions = (*(Stop(b) for b in bets), *(ThrowOn(b) for b in bets))
    bank = float(options.bank) or 1.0
    bet_scale = float(options.bet_limit) or 1.0

    def observe(view: BullseyeView, seat: int) -> Vector:
        order = rotated(range(seats), seat)
        play = view.round
        contenders = view.lead_choice.contenders if view.lead_choice else ()
        values: list[float] = []
        for i in order:
            total = play.totals[i] if play else None
            score = play.scores[i] if play else None
            values += [
                view.points[i] / 100,
                view.banks[i] / bank,
                (total or 0) / 36,
                (score or 0) / 10,
                (play.bets[i] if play else 0) / bet_scale,
                float(i in contenders),
            ]
        values += one_hot(seats, order.index(play.lead) if play else None)
        values += one_hot(seats, order.index(play.thrower) if play else None)
        faces = [0.0] * 6
        for face in play.dice if play else ():
            faces[face - 1] += 1 / 3
        values += faces
        values += [
            (play.target if play else 0) / 36,
            float(play.target_set) if play else 0.0,
            (play.next_dice or 0) / 3 if play else 0.0,
            (play.next_counted or 0) / 3 if play else 0.0,
            view.pot / (bank * seats),
            view.rounds_played / (view.rounds_limit or 100),
            float(view.lead_choice is not None),
        ]
        return np.asarray(values, dtype=np.float32)

    return Encoding("bullseye", actions, 8 * seats + 13, observe)
