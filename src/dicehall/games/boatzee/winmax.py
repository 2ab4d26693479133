"""Playing one-column Boatzee to win: the chance that a card ends ahead of its rivals.

A final choice is valued by the chance that the card then finishes ahead of every rival
card, not by its expected total. Both come from the exact distributions of final scores
under optimal (expected-score) play (:mod:`final_scores`): the card's own from the state the
choice leads to, each rival's from its card now. Two assumptions, stated because the
figures rest on them:

- the rest of the card's own game is played for points. Planning every turn again with
  what is known then makes this one step of policy improvement over ``optimal`` at each
  turn, and exact on the card's last turn;
- each rival plays ``optimal``, independently of the others.

A tie counts half. With two or more rivals the chance of ending ahead of all of them is
the product over rivals of (ahead + half a tie), an estimate where ties with several meet.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from dicehall.engine.errors import InvalidInput
from dicehall.games.boatzee.card import Card, Joker, Ruleset, open_boxes, points, total
from dicehall.games.boatzee.dice_tables import FloatArray
from dicehall.games.boatzee.final_scores import FinalScores
from dicehall.games.boatzee.scoring import BOX_INDEX, SCORES, Box
from dicehall.games.boatzee.valuation import TableValuation, column_state

#: Final totals are below this: 375 is the most a one-column card can score, and the
#: distributions keep empty slots for an upper bonus the card may have had already.
TOTALS = 376 + 35
_SCORES = np.array(SCORES, dtype=np.int64)
_CAP = 63
_BONUS = 35


def check_card(card: Card) -> None:
    """Raise ValueError unless ``card`` is a one-column card (the tables' game)."""
    if card.columns != 1:
        raise ValueError("win chances are for one-column cards")


def final_chances(card: Card, finals: FinalScores) -> FloatArray:
    """``chances[t]``: the chance that the card's final total is t under optimal play."""
    check_card(card)
    _, mask, upper = column_state(card, 1, "boatzee")
    now = total(card)
    chances = np.zeros(TOTALS)
    rest = finals.remaining(mask, upper)
    chances[now : now + len(rest)] = rest
    return chances


def beat_chances(rivals: Sequence[Card], finals: FinalScores) -> FloatArray:
    """``beat[t]``: the chance that a final total of t ends ahead of every rival (a tie
    counts half), each rival playing ``optimal`` from its card now."""
    beat = np.ones(TOTALS)
    for rival in rivals:
        chances = final_chances(rival, finals)
        below = np.cumsum(chances) - chances  # below[t]: the chance of a final under t
        beat *= below + 0.5 * chances
    return beat


class WinValuation:
    """Values a card's final choices by its chance to end ahead of ``rivals``."""

    def __init__(self, finals: FinalScores, rivals: Sequence[Card]) -> None:
        self.finals = finals
        self.rivals = tuple(rivals)
        self.beat = beat_chances(self.rivals, finals)

    def win_chance(self, card: Card) -> float:
        """The chance to end ahead, from the start of a turn, with optimal play from here."""
        return float(final_chances(card, self.finals) @ self.beat)

    def _after(self, mask: int, upper: int, now: int, box: int, points: int) -> float:
        # The chance to win once ``points`` are scored in ``box``: the next state's futures.
        reached = upper + points if box < 6 else upper
        bonus = _BONUS if box < 6 and upper < _CAP <= reached else 0
        rest = self.finals.remaining(mask | 1 << box, min(reached, _CAP))
        start = now + points + bonus
        return float(rest @ self.beat[start : start + len(rest)])

    def choice_values(
        self, card: Card, ruleset: Ruleset, joker: Joker = "forced"
    ) -> tuple[list[tuple[Box, int]], FloatArray]:
        """Every open box and ``values[hand, choice]``: the chance to win after scoring the
        hand there (boatzee ruleset, one column)."""
        check_card(card)
        if ruleset != "boatzee":
            raise ValueError("win chances are for the boatzee ruleset")
        _, mask, upper = column_state(card, 1, "boatzee")
        now = total(card)
        choices = open_boxes(card)
        values = np.empty((_SCORES.shape[0], len(choices)))
        for c, (box, _) in enumerate(choices):
            b = BOX_INDEX[box]
            column = _SCORES[:, b]
            win = {int(p): self._after(mask, upper, now, b, int(p)) for p in np.unique(column)}
            values[:, c] = [win[int(p)] for p in column]
        return choices, values


@dataclass(frozen=True)
class DuelChoice:
    """One choice of a two-seat turn: hold ``keep`` and re-roll the rest, or score ``box``
    (for ``points``), with its chance to win and its expected final total."""

    win_chance: float
    expected_final: float
    keep: tuple[int, ...] | None = None
    box: Box | None = None
    points: int | None = None


def check_duel(card: Card, rival: Card) -> None:
    """Raise InvalidInput unless ``rival`` can face ``card`` on its turn in a two-seat game:
    one column each, and the rival has filled as many boxes (it plays second) or one more."""
    if card.columns != 1 or rival.columns != 1:
        raise InvalidInput("win chances are for one-column games")
    mine, theirs = (sum(v is not None for v in c.boxes[0]) for c in (card, rival))
    if theirs not in (mine, mine + 1):
        raise InvalidInput(
            f"the opponent has filled {theirs} boxes and you {mine}: on your turn in a two-seat "
            f"game the opponent has filled as many as you ({mine}, you play first) or one more "
            f"({mine + 1})"
        )


def duel_hint(
    card: Card,
    rival: Card,
    dice: Sequence[int],
    rolls_left: int,
    finals: FinalScores,
    valuation: TableValuation,
) -> list[DuelChoice]:
    """Every choice for ``dice`` with ``rolls_left`` re-rolls left against ``rival``, most
    likely to win first (then the most points), each with its expected final total (boatzee
    ruleset, one column)."""
    from dicehall.games.boatzee.hints import ranked

    check_duel(card, rival)
    now = total(card)
    expected = {
        (keep, box): now + value
        for value, keep, box in ranked(card, dice, rolls_left, "boatzee", valuation)
    }
    found = [
        DuelChoice(
            win,
            expected[(keep, box)],
            keep,
            box,
            None if box is None else points(card, dice, "boatzee", box),
        )
        for win, keep, box in ranked(
            card, dice, rolls_left, "boatzee", WinValuation(finals, [rival])
        )
    ]
    # Equal chances (a sure win, say) rank by points; rounding keeps float noise out of it.
    found.sort(key=lambda c: (-round(c.win_chance, 12), -c.expected_final))
    return found
