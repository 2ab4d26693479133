"""Bull's Eye arithmetic: the matching rule, the lead's three throws and the scoring bands."""

from __future__ import annotations

from collections.abc import Sequence

#: Dice thrown by the lead on every throw, and by the others on their first throw.
DICE = 3
#: Throws a seat may take in one round.
THROWS = 3
#: (largest distance, points), best band first; any greater distance scores 0.
BANDS: tuple[tuple[int, int], ...] = ((0, 50), (3, 30), (5, 20), (7, 10))


def shared_positions(dice: Sequence[int]) -> tuple[int, ...]:
    """Positions of the dice the matching rule re-rolls: those showing a face that repeats.

    With three dice or fewer at most one face can repeat, so this is "all dice showing that
    face"; an empty result means the throw counts.
    """
    return tuple(i for i, face in enumerate(dice) if dice.count(face) >= 2)


def lead_counted(throw: int) -> int:
    """How many dice of the lead's ``throw`` (0, 1 or 2) count, the highest: 3, 2, then 1."""
    return DICE - throw


def lead_part(throw: int, dice: Sequence[int]) -> int:
    """What the lead's ``throw`` (0, 1 or 2) adds: all three dice, the two highest, the highest."""
    ordered = sorted(dice, reverse=True)
    return sum(ordered[: lead_counted(throw)])


def target_of(throws: Sequence[Sequence[int]]) -> int:
    """The Bull's Eye made by the lead's counted throws so far."""
    return sum(lead_part(i, dice) for i, dice in enumerate(throws))


def total_of(throws: Sequence[Sequence[int]]) -> int:
    """A non-lead seat's total: every die of its counted throws."""
    return sum(sum(dice) for dice in throws)


def band(distance: int) -> int:
    """Points for finishing ``distance`` away from the Bull's Eye (either side)."""
    distance = abs(distance)
    for limit, points in BANDS:
        if distance <= limit:
            return points
    return 0


def round_score(total: int, target: int) -> int:
    """A non-lead seat's score for the round."""
    return band(total - target)


def dice_for(throws_taken: int, *, lead: bool) -> int:
    """How many dice the next throw uses: always three for the lead, else 3, 2, then 1."""
    return DICE if lead else DICE - throws_taken
