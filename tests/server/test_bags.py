"""Committed Hold'em bags: the pool serves its shuffles in order and never twice, even to two
threads at once (PostgreSQL), each batch's root covers exactly its shuffles and is logged
in the chain; and the shuffles themselves are consistent with uniform permutations."""

from __future__ import annotations

import random
import threading
from collections import Counter
from collections.abc import Callable
from math import comb

import pytest
from sqlalchemy import Connection, select

from dicehall.fairness.chain import verify_chain
from dicehall.fairness.leaves import shuffle_digests, shuffle_leaf
from dicehall.fairness.merkle import merkle_root
from dicehall.server.core.models import BagBatch, BagShuffle
from dicehall.server.domain.dice import fairlog
from dicehall.server.domain.dice.bags import FULL_BAG, ServedShuffle, shuffle_bag
from dicehall.server.domain.dice.fairness import chi_square_survival
from dicehall.server.domain.services import Services
from dicehall.server.domain.work import write

#: Shuffles each thread takes (bag batches in the tests hold 10: several top-ups race).
PER_THREAD = 25
#: Shuffles the chi-square tests look at, and the p-value below which they fail (fixed and
#: generous: a fair shuffle fails one of the two statistics about once in 500,000 runs).
SAMPLES = 2000
P_MIN = 1e-6
COLOURS = sorted(set(FULL_BAG))


@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_two_threads_get_every_shuffle_once_in_order(services: Services) -> None:
    services.pool.ensure_reserve(services.write_conn)
    taken: dict[int, list[ServedShuffle]] = {1: [], 2: []}
    barrier = threading.Barrier(2)
    failures: list[BaseException] = []

    def serve(game_id: int) -> None:
        def take(conn: Connection) -> ServedShuffle:
            return services.pool.take_shuffle(conn, game_id)

        try:
            barrier.wait()
            for _ in range(PER_THREAD):
                taken[game_id].append(write(services, take))
        except BaseException as exc:  # pragma: no cover - reported below
            failures.append(exc)

    threads = [threading.Thread(target=serve, args=(g,)) for g in taken]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures, failures
    numbers = [s.shuffle_id for served in taken.values() for s in served]
    assert sorted(numbers) == list(range(1, 2 * PER_THREAD + 1))
    for served in taken.values():
        ids = [s.shuffle_id for s in served]
        assert ids == sorted(ids), "a thread was served an earlier shuffle after a later one"
    with services.sessions() as db:
        rows = {s.id: s for s in db.scalars(select(BagShuffle))}
        batches = db.scalars(select(BagBatch).order_by(BagBatch.id)).all()
    for game_id, served in taken.items():
        for shuffle in served:
            row = rows[shuffle.shuffle_id]
            assert (row.game_id, row.colours) == (game_id, shuffle.colours)
            assert sorted(row.colours) == sorted(FULL_BAG)
    unserved = [s for s in rows.values() if s.id > 2 * PER_THREAD]
    assert all(s.game_id is None for s in unserved)
    _check_batches(services, list(batches), rows)


def _check_batches(
    services: Services, batches: list[BagBatch], rows: dict[int, BagShuffle]
) -> None:
    """Each bag batch's root is the Merkle root of its shuffles' leaves, and its record in
    the (unbroken) public log says so."""
    with services.read_conn() as conn:
        records = {r["seq"]: r for r in fairlog.records(conn)}
    assert verify_chain(list(records.values())) is None
    expected_first = 1
    for batch in batches:
        assert batch.first_shuffle == expected_first
        members = [rows[batch.first_shuffle + i] for i in range(batch.size)]
        leaves = [
            shuffle_leaf(
                bytes.fromhex(m.salt), m.id, shuffle_digests(bytes.fromhex(m.secret), m.colours)
            )
            for m in members
        ]
        assert merkle_root(leaves).hex() == batch.root
        record = records[batch.log_seq]
        assert (record["kind"], record["batch"], record["first"], record["size"]) == (
            "bags",
            batch.id,
            batch.first_shuffle,
            batch.size,
        )
        assert record["root"] == batch.root
        expected_first += batch.size


def _pearson(observed: Counter[object], expected: dict[object, float]) -> float:
    return sum((observed[key] - e) ** 2 / e for key, e in expected.items())


def _first_red(shuffles: list[str]) -> float:
    """The p-value of where the first red die lies: position k (0..10) with probability
    C(19-k, 4) / C(20, 5), positions 11 and later as one bin: 12 bins, 11 degrees."""
    total = comb(20, 5)
    expected: dict[object, float] = {k: SAMPLES * comb(19 - k, 4) / total for k in range(11)}
    expected["late"] = SAMPLES * comb(9, 5) / total
    observed: Counter[object] = Counter()
    for colours in shuffles:
        k = colours.index("r")
        observed[k if k < 11 else "late"] += 1
    return chi_square_survival(_pearson(observed, expected), len(expected) - 1)


def _pair(shuffles: list[str], at: int) -> float:
    """The p-value of the colours at positions ``at`` and ``at + 1`` together: 16 cells,
    a colour twice with probability 5/20 * 4/19, two colours 5/20 * 5/19; 15 degrees."""
    expected: dict[object, float] = {
        (a, b): SAMPLES * (5 / 20) * ((4 if a == b else 5) / 19) for a in COLOURS for b in COLOURS
    }
    observed: Counter[object] = Counter((c[at], c[at + 1]) for c in shuffles)
    return chi_square_survival(_pearson(observed, expected), len(expected) - 1)


STATISTICS: list[Callable[[list[str]], float]] = [
    _first_red,
    lambda shuffles: _pair(shuffles, 0),
    lambda shuffles: _pair(shuffles, 18),
]


def test_shuffles_are_consistent_with_uniform_permutations() -> None:
    shuffles = [shuffle_bag() for _ in range(SAMPLES)]
    assert all(sorted(s) == sorted(FULL_BAG) for s in shuffles)
    for statistic in STATISTICS:
        assert statistic(shuffles) > P_MIN


def test_the_statistics_catch_a_biased_shuffle() -> None:
    """A shuffle that only rotates the bag (runs of one colour stay together), and one that
    moves just one die: both fail, so the test above has teeth."""
    rng = random.Random(7)
    rotated = []
    for _ in range(SAMPLES):
        k = rng.randrange(20)
        rotated.append("".join(FULL_BAG[k:] + FULL_BAG[:k]))
    assert _pair(rotated, 0) < P_MIN
    lazy = []
    for _ in range(SAMPLES):
        items = list(FULL_BAG)
        i = rng.randrange(20)
        items[0], items[i] = items[i], items[0]
        lazy.append("".join(items))
    assert _first_red(lazy) < P_MIN
