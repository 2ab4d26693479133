"""The matcher's pure plan (domain/automatch/grouping.py) under random queues: every table
is within every member's range, no ticket and no player sits twice, no table crosses an
ignore, bots only for tickets whose ``bots_after`` has passed; for small queues nothing is
left that could still form a table of two; and a few chosen cases: closest pairs, the
largest table, the gap widening, a repeat avoided when another table is possible."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from dicehall.server.domain.automatch import grouping
from dicehall.server.domain.automatch.grouping import Table, Wanted, allowance, plan, valid

USERS = 12


@st.composite
def queues(
    draw: st.DrawFn, most: int = 40
) -> tuple[list[Wanted], set[frozenset[int]], set[frozenset[int]]]:
    count = draw(st.integers(0, most))
    wanted = []
    for index in range(count):
        low = draw(st.integers(2, 8))
        high = draw(st.integers(low, 8))
        wanted.append(
            Wanted(
                id=index + 1,
                user=draw(st.integers(0, USERS - 1)),
                low=low,
                high=high,
                rating=draw(st.integers(900, 2300)),
                waited=draw(st.floats(0, 3600)),
                bots_after=draw(st.none() | st.floats(0, 3600)),
            )
        )
    pairs = st.frozensets(st.integers(0, USERS - 1), min_size=2, max_size=2)
    apart = draw(st.sets(pairs, max_size=12))
    recent = draw(st.sets(pairs, max_size=12))
    return wanted, apart, recent


@settings(max_examples=60, deadline=None)
@given(queues())
def test_every_plan_is_valid(
    queue: tuple[list[Wanted], set[frozenset[int]], set[frozenset[int]]],
) -> None:
    wanted, apart, recent = queue
    tables = plan(wanted, apart, recent)
    assert valid(wanted, tables, apart) == []
    users = [w.user for t in tables for i in t.tickets for w in wanted if w.id == i]
    assert len(users) == len(set(users))  # one table per player in one queue


@settings(max_examples=60, deadline=None)
@given(queues(most=7))
def test_small_queues_leave_no_possible_pair(
    queue: tuple[list[Wanted], set[frozenset[int]], set[frozenset[int]]],
) -> None:
    wanted, apart, recent = queue
    tables = plan(wanted, apart, recent)
    seated = {i for t in tables for i in t.tickets}
    # A player's older ticket is the one planned (two of one player's slip in only by a race).
    kept = {w.id for w in grouping._one_per_user(wanted)}
    users = {w.user for w in wanted if w.id in seated}
    left = [w for w in wanted if w.id in kept - seated and w.user not in users and w.low == 2]
    for index, first in enumerate(left):
        for second in left[index + 1 :]:
            could = (
                first.user != second.user
                and frozenset((first.user, second.user)) not in apart
                and abs(first.rating - second.rating) <= max(first.gap, second.gap)
                and (min(first.high, second.high) <= 2 or max(first.waited, second.waited) >= 60)
            )
            assert not could, (first, second, tables)


def ticket(id_: int, rating: float, low: int = 2, high: int = 2, waited: float = 600) -> Wanted:
    return Wanted(id_, id_, low, high, rating, waited)


def test_closest_ratings_pair_up() -> None:
    wanted = [ticket(1, 1500), ticket(2, 1900), ticket(3, 1510), ticket(4, 1890)]
    tables = plan(wanted, set(), set())
    assert sorted(sorted(t.tickets) for t in tables) == [[1, 3], [2, 4]]


def test_the_largest_table_within_every_range() -> None:
    wanted = [ticket(i, 1500 + i, 3, 6) for i in range(1, 6)] + [ticket(6, 1500, 2, 4)]
    (table,) = plan(wanted, set(), set())
    assert table.size == 5 and 6 not in table.tickets


def test_the_gap_widens_with_waiting() -> None:
    assert allowance(0) == grouping.GAP_START
    assert allowance(600) == grouping.GAP_START + 10 * grouping.GAP_PER_MINUTE
    fresh = [ticket(1, 1500, waited=0), ticket(2, 1700, waited=0)]
    assert plan(fresh, set(), set()) == []
    aged = [ticket(1, 1500, waited=60), ticket(2, 1700, waited=0)]
    assert plan(aged, set(), set()) == [Table((1, 2))]


def test_a_repeat_only_without_another_table() -> None:
    wanted = [ticket(1, 1500), ticket(2, 1501), ticket(3, 1600), ticket(4, 1601)]
    met = {frozenset((1, 2))}
    tables = plan(wanted, set(), met)
    assert len(tables) == 2 and Table((1, 2)) not in tables
    assert plan(wanted[:2], set(), met) == [Table((1, 2))]
    big = [ticket(i, 1500 + i, 3, 3) for i in range(1, 7)]
    tables = plan(big, set(), {frozenset((1, 2)), frozenset((1, 3))})
    assert all(not {1, 2} <= set(t.tickets) and not {1, 3} <= set(t.tickets) for t in tables)


def test_bots_for_a_ticket_that_waited_long_enough() -> None:
    alone = Wanted(1, 1, 4, 6, 1500, waited=301, bots_after=300)
    assert plan([alone], set(), set()) == [Table((1,), bots=3)]
    assert plan([Wanted(1, 1, 4, 6, 1500, waited=299, bots_after=300)], set(), set()) == []
