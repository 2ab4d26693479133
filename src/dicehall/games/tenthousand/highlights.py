"""What was worth a look in a game of Ten Thousand: the game's biggest banked turn (shown
from :data:`BIG_TURN` points, and competing for the site's biggest turn), and each seat's
final total, which competes for the site's record at the game's target when the game was
played to the end."""

from __future__ import annotations

from dicehall.engine.events import Acted
from dicehall.games.highlights import Highlight, Played
from dicehall.games.tenthousand.rules import Bank

#: A banked turn worth a look in itself.
BIG_TURN = 2000


def highlights(played: Played) -> list[Highlight]:
    """The biggest turn banked, and (a finished game) the totals as record candidates."""
    best: tuple[int, int] | None = None
    for before, event, after in played.steps():
        if isinstance(event, Acted) and isinstance(event.action, Bank):
            gained = after.banked[event.seat] - before.banked[event.seat]
            if best is None or gained > best[1]:
                best = (event.seat, gained)
    found: list[Highlight] = []
    if best is not None and best[1] > 0:
        seat, points = best
        found.append(
            Highlight(
                "turn",
                seat,
                f"banked {points:,} points in one turn",
                points,
                record="tenthousand:turn",
                record_title="the biggest Ten Thousand turn",
                shown=points >= BIG_TURN,
            )
        )
    if played.complete:
        target = played.options.target
        for seat, points in enumerate(played.final.banked):
            found.append(
                Highlight(
                    "score",
                    seat,
                    f"finished on {points:,} points",
                    points,
                    record=f"tenthousand:target {target}",
                    record_title=f"a Ten Thousand score (target {target:,})",
                    shown=False,
                )
            )
    return found
