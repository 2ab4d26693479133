"""What was worth a look in a game of Bull's Eye: each seat's hits of the Bull's Eye itself
(a total equal to the target), and every seat's points, which compete for the site's
record of games like it (as many players and rounds, the same target) when the game was
played to the end."""

from __future__ import annotations

from collections import Counter

from dicehall.games.highlights import Highlight, Played, times


def highlights(played: Played) -> list[Highlight]:
    """The Bull's Eyes hit, and (a finished game) the points as record candidates."""
    hits: Counter[int] = Counter()
    for summary in played.final.history:
        for seat, reached in enumerate(summary.totals):
            if reached is not None and reached == summary.target:
                hits[seat] += 1
    found = [
        Highlight(
            "bullseye",
            seat,
            times(count, "hit the Bull's Eye", "hit the Bull's Eye {count} times"),
            count,
        )
        for seat, count in sorted(hits.items())
    ]
    if played.complete:
        options = played.options
        rounds = options.rounds_for(played.seats)
        shape = f"{played.seats} players"
        if rounds:
            shape += f", {rounds} rounds"
        if options.target_points is not None:
            shape += f", to {options.target_points:,} points"
        for seat, points in enumerate(played.final.points):
            found.append(
                Highlight(
                    "score",
                    seat,
                    f"scored {points:,} points",
                    points,
                    record=f"bullseye:{shape}",
                    record_title=f"a Bull's Eye score ({shape})",
                    shown=False,
                )
            )
    return found
