"""Tournament points by place: in a table of N, place k scores ``2(N-k)/(N-1)``, so the winner
always takes 2 and the last 0 whatever the table's size; players who share a place share the
average of the places they span (a 2-seat draw gives 1 and 1). A bye scores as a win."""

from __future__ import annotations

from collections.abc import Sequence

#: What a bye (a table of one) scores: a win.
BYE_POINTS = 2.0


def place_points(place: int, seats: int) -> float:
    """The points of ``place`` (1 = first) in a table of ``seats``; a table of one is a bye."""
    if seats < 1 or not 1 <= place <= seats:
        raise ValueError(f"no place {place} in a table of {seats}")
    if seats == 1:
        return BYE_POINTS
    return 2.0 * (seats - place) / (seats - 1)


def table_points(groups: Sequence[Sequence[int]], seats: int) -> list[float]:
    """Points by seat index for one finished table: ``groups`` are seat indices best first,
    players sharing a place in one group (each seat exactly once); a group takes the average
    of the points of the places it spans."""
    seen = sorted(seat for group in groups for seat in group)
    if seen != list(range(seats)) or any(not group for group in groups):
        raise ValueError(f"place groups {list(map(list, groups))} do not cover {seats} seats once")
    points = [0.0] * seats
    place = 1
    for group in groups:
        spanned = [place_points(p, seats) for p in range(place, place + len(group))]
        share = sum(spanned) / len(spanned)
        for seat in group:
            points[seat] = share
        place += len(group)
    return points
