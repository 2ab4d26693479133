"""What was worth a look in a game of Boatzee: each seat's Boatzees (a turn scored with five
of a kind on the table), and every card's total, which competes for the site's record of
its variant ("Triple Boatzee (yahtzee rules)") when the game was played to the end."""

from __future__ import annotations

from collections import Counter

from dicehall.engine.events import Acted
from dicehall.games.boatzee.card import total
from dicehall.games.boatzee.rules import Score, variant_title
from dicehall.games.highlights import Highlight, Played, times


def is_boatzee(dice: tuple[int, ...]) -> bool:
    """Five dice showing one face."""
    return len(dice) == 5 and len(set(dice)) == 1


def highlights(played: Played) -> list[Highlight]:
    """The seats' Boatzees, and (a finished game) their scores as record candidates."""
    rolled: Counter[int] = Counter()
    for before, event, _after in played.steps():
        if not isinstance(event, Acted):
            continue
        if isinstance(event.action, Score) and is_boatzee(before.dice):
            rolled[event.seat] += 1
    words = "rolled a Boatzee", "rolled {count} Boatzees"
    found = [
        Highlight("boatzee", seat, times(count, *words), count)
        for seat, count in sorted(rolled.items())
    ]
    if played.complete:
        title = variant_title(played.options)
        for seat, card in enumerate(played.final.cards):
            points = total(card)
            found.append(
                Highlight(
                    "score",
                    seat,
                    f"scored {points:,} points",
                    points,
                    record=f"boatzee:{title}",
                    record_title=f"a {title} score",
                    shown=False,
                )
            )
    return found
