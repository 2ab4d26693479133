"""What was worth a look in a game of Hold'em Dice: the game's biggest pot, when it holds at
least a starting stack, and every Yahtzee flush. A pot's size and who took it are what the
table saw; no pocket is named."""

from __future__ import annotations

from dicehall.games.highlights import Highlight, Played


def highlights(played: Played) -> list[Highlight]:
    """The biggest pot (from a starting stack up) and the Yahtzee flushes."""
    biggest: tuple[int, tuple[int, ...]] | None = None
    found: list[Highlight] = []
    for before, _event, after in played.steps():
        end = after.last
        if end is None or end == before.last:
            continue
        for pot in end.pots:
            if biggest is None or pot.amount > biggest[0]:
                biggest = (pot.amount, pot.winners)
        if end.yahtzee_flush and end.pots:
            found.append(Highlight("flush", end.pots[0].winners[0], "made a Yahtzee flush", 1))
    if biggest is not None and biggest[0] >= played.options.stack:
        amount, winners = biggest
        verb = "won" if len(winners) == 1 else "shared"
        found.append(Highlight("pot", winners[0], f"{verb} a pot of {amount:,} chips", amount))
    return found
