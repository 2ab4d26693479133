"""The pure tournament formats (no database): scoring by place, cup schedules, Swiss and
knockout rounds, standings and tie-breaks. Properties: every round seats each active player
exactly once (a bye is a seat); every cup gives every pair exactly the meetings it promises;
standings hand out exactly the points the tables did; no table crosses an apart pair; table
sizes stay within their bounds (byes aside); a 2-seat Swiss round avoids rematches whenever
a rematch-free pairing exists (checked by brute force)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from itertools import combinations, pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dicehall.server.domain.tournaments.cup import cup_meetings, cup_plan, cup_problem, cup_sizes
from dicehall.server.domain.tournaments.knockout import (
    goes_on,
    knockout_round,
    knockout_rounds,
    round_sizes,
)
from dicehall.server.domain.tournaments.scoring import BYE_POINTS, table_points
from dicehall.server.domain.tournaments.standings import PlayedTable, standings
from dicehall.server.domain.tournaments.swiss import Entrant, swiss_round, table_sizes

FEW = settings(max_examples=60, deadline=None)
Pair = frozenset[int]


def seated_once(plan: Sequence[Sequence[int]], keys: Sequence[int]) -> None:
    assert sorted(k for table in plan for k in table) == sorted(keys)


def no_apart(plan: Sequence[Sequence[int]], apart: set[Pair]) -> None:
    for table in plan:
        assert not [p for p in combinations(table, 2) if frozenset(p) in apart], table


# -- scoring -------------------------------------------------------------------------------------


def test_place_points() -> None:
    assert table_points([[1], [0]], 2) == [0.0, 2.0]
    assert table_points([[0, 1]], 2) == [1.0, 1.0]
    assert table_points([[2], [0], [1]], 3) == [1.0, 0.0, 2.0]
    assert table_points([[3], [0, 1], [2]], 4) == pytest.approx([1.0, 1.0, 0.0, 2.0])
    assert table_points([[0, 1, 2]], 3) == [1.0, 1.0, 1.0]
    assert table_points([[0]], 1) == [BYE_POINTS]
    with pytest.raises(ValueError):
        table_points([[0], [0]], 2)
    with pytest.raises(ValueError):
        table_points([[0]], 2)


@FEW
@given(st.integers(2, 8), st.data())
def test_table_points_share(seats: int, data: st.DataObject) -> None:
    order = data.draw(st.permutations(range(seats)))
    cuts = sorted(data.draw(st.sets(st.integers(1, seats - 1))))
    bounds = [0, *cuts, seats]
    groups = [order[a:b] for a, b in pairwise(bounds)]
    points = table_points(groups, seats)
    # Every table hands out N points in all (the average of 2 .. 0 is 1), the best 2 at most.
    assert sum(points) == pytest.approx(seats)
    assert max(points) <= 2.0 and min(points) >= 0.0
    for better, worse in pairwise(groups):
        assert points[better[0]] > points[worse[0]]


# -- cups ----------------------------------------------------------------------------------------


def test_cup_sizes_and_problems() -> None:
    assert cup_sizes(2) == list(range(2, 33))
    assert cup_sizes(3) == [3, 4, 6, 9, 15, 27]
    assert cup_sizes(4) == [4, 5, 8, 16]
    assert cup_problem(9, 3) is None and cup_problem(4, 2) is None
    assert cup_problem(7, 3) == (
        "no schedule lets every pair of 7 players meet equally often in tables of 3: "
        "a cup in tables of 3 takes 3, 4, 6, 9, 15 or 27 players"
    )
    assert cup_problem(33, 2) == "a cup takes 2 to 32 players"
    assert cup_problem(9, 9) == "a cup's tables take 2 to 8 seats"
    with pytest.raises(ValueError, match="tables of 3 takes"):
        cup_plan(7, 3)
    assert cup_meetings(9, 3) == 1 and cup_meetings(6, 3) == 4 and cup_meetings(8, 4) == 3


def every_cup() -> Iterator[tuple[int, int]]:
    for table in range(2, 9):
        for size in cup_sizes(table):
            yield size, table


@pytest.mark.parametrize(("size", "table"), list(every_cup()))
def test_every_cup_is_exact(size: int, table: int) -> None:
    plan = cup_plan(size, table)
    meetings: Counter[Pair] = Counter()
    byes: Counter[int] = Counter()
    for rnd in plan:
        seated_once(rnd, range(size))
        for t in rnd:
            assert len(t) in (1, table)
            byes.update(t if len(t) == 1 else [])
            meetings.update(frozenset(p) for p in combinations(t, 2))
    want = cup_meetings(size, table)
    assert all(meetings[frozenset(p)] == want for p in combinations(range(size), 2))
    # Byes, where there are any, fall evenly: nobody gets more free wins than another.
    assert len({byes[p] for p in range(size)}) == 1
    if table == 2 or want == 1:
        assert want == 1
    assert cup_plan(size, table) == plan


def test_circle_alternates_the_fixed_seat() -> None:
    firsts = [next(t for t in rnd if 0 in t).index(0) for rnd in cup_plan(6, 2)]
    assert firsts == [0, 1, 0, 1, 0]


# -- swiss ---------------------------------------------------------------------------------------


def test_swiss_pairs_top_half_against_bottom_half() -> None:
    field = [Entrant(k, 0.0, 2000.0 - k) for k in range(1, 9)]
    assert swiss_round(field, 2, 2, 2, {}, set(), set()) == [[1, 5], [2, 6], [3, 7], [4, 8]]


def test_swiss_bye_rematch_and_apart() -> None:
    field = [Entrant(k, 2.0 if k <= 4 else 0.0, 2000.0 - k) for k in range(1, 10)]
    met = {frozenset((1, 3)): 1, frozenset((2, 4)): 1}
    plan = swiss_round(field, 2, 2, 2, met, set(), {9})
    # No rematch; the bye goes to the lowest-ranked player who has not had one.
    assert plan == [[1, 2], [3, 4], [5, 6], [7, 9], [8]]
    # A player apart from everyone else sits out.
    lonely = {frozenset((1, k)) for k in range(2, 5)}
    assert swiss_round(field[:4], 2, 2, 2, {}, lonely, set()) == [[2, 4], [1], [3]]


def test_swiss_tables_group_leaders_and_avoid_repeats() -> None:
    field = [Entrant(k, 0.0, 2000.0 - k) for k in range(1, 7)]
    assert swiss_round(field, 3, 2, 3, {}, set(), set()) == [[1, 2, 3], [4, 5, 6]]
    met = {frozenset((1, 2)): 1, frozenset((4, 5)): 1}
    plan = swiss_round(field, 3, 2, 3, met, {frozenset((1, 3))}, set())
    assert plan == [[2, 3, 4], [1, 5, 6]]
    assert table_sizes(7, 3, 2, 4) == ([3, 4], 0)
    assert table_sizes(8, 3, 2, 3) == ([3, 3, 2], 0)
    # One extra seat a table first, then one table more, then wider tables, then byes.
    assert table_sizes(5, 3, 2, 8) == ([3, 2], 0)
    assert table_sizes(8, 3, 2, 8) == ([4, 4], 0)
    assert table_sizes(5, 3, 3, 8) == ([5], 0)
    assert table_sizes(5, 3, 3, 4) == ([3], 2)
    assert table_sizes(7, 3, 3, 3) == ([3, 3], 1)
    assert table_sizes(1, 3, 2, 3) == ([], 1)


def entrants(draw: st.DrawFn, least: int, most: int) -> list[Entrant]:
    n = draw(st.integers(least, most))
    halves = st.integers(0, 12).map(lambda h: h / 2)
    ratings = st.integers(1000, 2000).map(float)
    return [Entrant(k, draw(halves), draw(ratings)) for k in range(1, n + 1)]


def pairs_of(draw: st.DrawFn, keys: Sequence[int], most: int) -> set[Pair]:
    every = [frozenset(p) for p in combinations(keys, 2)]
    if not every:
        return set()
    return set(draw(st.lists(st.sampled_from(every), max_size=most)))


@st.composite
def swiss_cases(
    draw: st.DrawFn,
) -> tuple[list[Entrant], int, int, int, dict[Pair, int], set[Pair], set[int]]:
    field = entrants(draw, 0, 20)
    keys = [e.key for e in field]
    table = draw(st.integers(2, 5))
    min_seats = draw(st.integers(2, table))
    max_seats = table if table == 2 else draw(st.integers(table, 8))
    met = {p: draw(st.integers(1, 2)) for p in pairs_of(draw, keys, 25)}
    apart = pairs_of(draw, keys, 8)
    had_bye = set(draw(st.lists(st.sampled_from(keys), max_size=4))) if keys else set()
    return field, table, min_seats, max_seats, met, apart, had_bye


@FEW
@given(swiss_cases())
def test_swiss_round_properties(
    case: tuple[list[Entrant], int, int, int, dict[Pair, int], set[Pair], set[int]],
) -> None:
    field, table, min_seats, max_seats, met, apart, had_bye = case
    plan = swiss_round(field, table, min_seats, max_seats, met, apart, had_bye)
    seated_once(plan, [e.key for e in field])
    no_apart(plan, apart)
    for t in plan:
        assert len(t) == 1 or min_seats <= len(t) <= max_seats
    assert plan == swiss_round(field, table, min_seats, max_seats, met, apart, had_bye)
    if not apart and len(field) >= min_seats:
        # Byes only where the count leaves no other way.
        assert (
            sum(len(t) == 1 for t in plan)
            == table_sizes(len(field), table, min_seats, max_seats)[1]
            or table == 2
        )


def clean_pairings(keys: list[int], banned: set[Pair]) -> Iterator[list[tuple[int, int]]]:
    """Every pairing of ``keys`` (an even count) with no banned pair."""
    if not keys:
        yield []
        return
    first, rest = keys[0], keys[1:]
    for i, other in enumerate(rest):
        if frozenset((first, other)) not in banned:
            for more in clean_pairings(rest[:i] + rest[i + 1 :], banned):
                yield [(first, other), *more]


@FEW
@given(swiss_cases())
def test_swiss_two_seats_avoids_rematches_when_it_can(
    case: tuple[list[Entrant], int, int, int, dict[Pair, int], set[Pair], set[int]],
) -> None:
    field, _, _, _, met, apart, had_bye = case
    field = field[:9]
    keys = [e.key for e in field]
    banned = apart | set(met)
    if len(keys) % 2:
        fresh = [k for k in keys if k not in had_bye]
        possible = any(
            next(clean_pairings([k for k in keys if k != bye], banned), None) is not None
            for bye in fresh
        )
    else:
        possible = next(clean_pairings(keys, banned), None) is not None
    plan = swiss_round(field, 2, 2, 2, met, apart, had_bye)
    seated_once(plan, keys)
    no_apart(plan, apart)
    if possible:
        assert sum(len(t) == 1 for t in plan) == len(keys) % 2
        assert not [t for t in plan if frozenset(t) in met]
        assert not [t for t in plan if len(t) == 1 and t[0] in had_bye]


def test_swiss_sixty_four_players_is_quick() -> None:
    field = [Entrant(k, float(k % 7), 1500.0 + k) for k in range(64)]
    met = {frozenset((k, (k * 7 + 3) % 64)): 1 for k in range(64) if k != (k * 7 + 3) % 64}
    plan = swiss_round(field, 2, 2, 2, met, set(), set())
    assert len(plan) == 32 and not [t for t in plan if frozenset(t) in met]


# -- knockout ------------------------------------------------------------------------------------


def test_knockout_sizes_and_rounds() -> None:
    assert round_sizes(7, 3) == ([3, 3], 1)
    assert round_sizes(8, 3) == ([2, 3, 3], 0)
    assert round_sizes(6, 2) == ([2, 2, 2], 0)
    assert round_sizes(8, 3, 3) == ([3, 3], 2)
    assert round_sizes(4, 3, 3) == ([3], 1)
    assert [knockout_rounds(n, 2) for n in (1, 2, 3, 4, 5, 8, 9, 16, 17)] == [
        0,
        1,
        2,
        2,
        3,
        3,
        4,
        4,
        5,
    ]
    assert [knockout_rounds(n, 3) for n in (3, 4, 9, 10, 27, 28)] == [1, 2, 2, 3, 3, 4]
    assert knockout_rounds(6, 3, 3) == 3


def test_knockout_seeds_spread_and_byes_to_the_best() -> None:
    field = [Entrant(k, 0.0, 2000.0 - k) for k in range(1, 11)]
    # Seed 1 has the bye; 2, 3, 4 head the tables; snake back 7, 6, 5; then 8, 9, 10.
    assert knockout_round(field, 3, 2, set()) == [[2, 7, 8], [3, 6, 9], [4, 5, 10], [1]]
    assert goes_on([5, 6, 7], [1.0, 1.0, 0.0], {5: 1500.0, 6: 1600.0}) == 6
    assert goes_on([5, 6], [2.0, 0.0], {5: 1500.0, 6: 1600.0}) == 5


@st.composite
def knockout_cases(draw: st.DrawFn) -> tuple[list[Entrant], int, int, set[Pair]]:
    field = entrants(draw, 2, 30)
    table = draw(st.integers(2, 6))
    min_seats = draw(st.integers(2, table))
    apart = pairs_of(draw, [e.key for e in field], 8)
    return field, table, min_seats, apart


@FEW
@given(knockout_cases(), st.randoms(use_true_random=False))
def test_knockout_runs_to_one_player(
    case: tuple[list[Entrant], int, int, set[Pair]], rnd: object
) -> None:
    field, table, min_seats, apart = case
    seeds = {e.key: e.rating for e in field}
    rounds = 0
    while len(field) > 1:
        plan = knockout_round(field, table, min_seats, apart)
        if all(len(t) == 1 for t in plan):
            # No table can be formed across the ignores: the caller decides (say, the best
            # seed goes on). Check that truly no table could.
            low = max(2, min_seats)
            keys = seeds_of(field)
            assert not [
                group
                for size in range(low, min(table, len(keys)) + 1)
                for group in combinations(keys, size)
                if not [p for p in combinations(group, 2) if frozenset(p) in apart]
            ]
            break
        seated_once(plan, [e.key for e in field])
        no_apart(plan, apart)
        assert all(len(t) <= table for t in plan)
        if not apart:
            sizes, byes = round_sizes(len(field), table, min_seats)
            assert sorted(len(t) for t in plan) == sorted(sizes + [1] * byes)
        survivors = []
        for t in plan:
            points = table_points([[i] for i in range(len(t))], len(t))
            survivors.append(goes_on(t, points, seeds))
        field = [e for e in field if e.key in survivors]
        rounds += 1
    if not apart:
        assert rounds == knockout_rounds(len(case[0]), table, min_seats)


def seeds_of(field: Sequence[Entrant]) -> list[int]:
    return [e.key for e in field]


# -- standings -----------------------------------------------------------------------------------


def test_standings_tiebreaks() -> None:
    a, b, c, d = (
        Entrant(k, 0.0, r) for k, r in ((1, 1500.0), (2, 1600.0), (3, 1400.0), (4, 1300.0))
    )
    tables = [
        PlayedTable((1, 2), (2.0, 0.0)),
        PlayedTable((3, 4), (2.0, 0.0)),
        PlayedTable((2, 4), (2.0, 0.0)),
        PlayedTable((1, 3), (1.0, 1.0)),
    ]
    lines = standings([a, b, c, d], tables)
    # 1 and 3 have 3 points; 1 beat 2 (2 points) and drew 3 (3): SB 2 + 1.5; 3 beat 4 (0)
    # and drew 1: SB 1.5.
    assert [(s.key, s.place, s.points, s.tiebreak) for s in lines] == [
        (1, 1, 3.0, 3.5),
        (3, 2, 3.0, 1.5),
        (2, 3, 2.0, 0.0),
        (4, 4, 0.0, 0.0),
    ]


def test_standings_head_to_head_rating_and_shared_places() -> None:
    people = [Entrant(k, 0.0, 1500.0) for k in range(1, 9)]
    people[1] = Entrant(2, 0.0, 1600.0)
    tables = [
        PlayedTable((1, 2), (2.0, 0.0)),
        PlayedTable((2, 3), (2.0, 0.0)),
        PlayedTable((1, 4), (1.0, 1.0)),
        PlayedTable((2, 5), (1.0, 1.0)),
        PlayedTable((3, 6), (2.0, 0.0)),
        PlayedTable((3, 7), (2.0, 0.0)),
        PlayedTable((4, 8), (2.0, 0.0)),
        PlayedTable((6,), (BYE_POINTS,)),
    ]
    lines = {s.key: s for s in standings(people, tables)}
    # 1 and 2: 3 points each, Sonneborn-Berger 3 + 3/2 and 4 + 1/2; 1 beat 2, so 1 is
    # ahead although 2 has the higher rating.
    assert (lines[1].points, lines[1].tiebreak) == (lines[2].points, lines[2].tiebreak)
    assert (lines[1].head_to_head, lines[2].head_to_head) == (1.0, 0.0)
    assert lines[1].place + 1 == lines[2].place
    # A bye counts as points but not towards the Sonneborn-Berger (6 lost to 3, who has 4).
    assert (lines[6].points, lines[6].tiebreak) == (BYE_POINTS, 0.0)
    even = standings(
        [Entrant(5, 0.0, 1500.0), Entrant(6, 0.0, 1500.0)], [PlayedTable((5, 6), (1.0, 1.0))]
    )
    assert [(s.key, s.place) for s in even] == [(5, 1), (6, 1)]
    rated = standings(
        [Entrant(5, 0.0, 1400.0), Entrant(6, 0.0, 1500.0)], [PlayedTable((5, 6), (1.0, 1.0))]
    )
    assert [(s.key, s.place) for s in rated] == [(6, 1), (5, 2)]


@FEW
@given(swiss_cases(), st.integers(1, 4), st.randoms(use_true_random=False))
def test_a_swiss_to_the_end(
    case: tuple[list[Entrant], int, int, int, dict[Pair, int], set[Pair], set[int]],
    rounds: int,
    rnd: object,
) -> None:
    """Rounds of Swiss with random results: every round seats everyone once, the standings
    hand out exactly the tables' points, and places run 1..n with shares only on full ties."""
    import random

    assert isinstance(rnd, random.Random)
    field, table, min_seats, max_seats, _, apart, _ = case
    seed = {e.key: e.rating for e in field}
    played: list[PlayedTable] = []
    met: Counter[Pair] = Counter()
    had_bye: set[int] = set()
    for _ in range(rounds):
        points = {e.key: 0.0 for e in field}
        for done in played:
            for k, p in zip(done.players, done.points, strict=True):
                points[k] += p
        now = [Entrant(k, points[k], seed[k]) for k in seed]
        plan = swiss_round(now, table, min_seats, max_seats, met, apart, had_bye)
        seated_once(plan, list(seed))
        no_apart(plan, apart)
        for t in plan:
            if len(t) == 1:
                had_bye.add(t[0])
            met.update(frozenset(p) for p in combinations(t, 2))
            order = rnd.sample(range(len(t)), len(t))
            groups = [[i] for i in order]
            if len(t) > 1 and rnd.random() < 0.3:
                groups = [order[:2], *[[i] for i in order[2:]]]
            played.append(PlayedTable(tuple(t), tuple(table_points(groups, len(t)))))
    lines = standings([Entrant(k, 0.0, r) for k, r in seed.items()], played)
    handed_out = sum(p for done in played for p in done.points)
    assert sum(s.points for s in lines) == pytest.approx(handed_out)
    assert sorted(s.key for s in lines) == sorted(seed)
    for i, s in enumerate(lines):
        assert s.place <= i + 1
        if i:
            before = lines[i - 1]
            level = (before.points, before.tiebreak, before.head_to_head, before.rating) == (
                s.points,
                s.tiebreak,
                s.head_to_head,
                s.rating,
            )
            assert s.place == (before.place if level else i + 1)
