"""The one-hand fast path agrees with the reference ranking, and its stored tables are
rebuilt when missing, damaged or of another size."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dicehall.games.holdem import fastrank
from dicehall.games.holdem.dice import KINDS
from dicehall.games.holdem.ranking import best_hand, rank_five

dice = st.sampled_from(KINDS)


@settings(max_examples=300, deadline=None)
@given(st.lists(dice, min_size=5, max_size=7))
def test_the_fast_best_hand_is_the_reference_one(hand: list[str]) -> None:
    assert fastrank.best_hand(hand) == best_hand(hand)


def test_dense_ranks_order_hands_as_the_reference_does() -> None:
    rng = random.Random(11)
    hands = [[rng.choice(KINDS) for _ in range(7)] for _ in range(2000)]
    # A Yahtzee flush, a straight flush, a flush over four of a kind.
    hands += [["1r"] * 5 + ["1k", "1w"], ["1k", "2k", "3k", "4k", "5k", "6w", "1y"]]
    dense = [fastrank.dense_rank([fastrank.kind_of(d) for d in h]) for h in hands]
    codes = [best_hand(h).rank.code() for h in hands]
    # One dense rank per code, rising with it: the two order every pair of hands alike.
    pairs = sorted(set(zip(codes, dense, strict=True)))
    assert len({c for c, _ in pairs}) == len(pairs) == len({d for _, d in pairs})
    assert [d for _, d in pairs] == sorted(d for _, d in pairs)
    assert fastrank.hand_rank(dense[-2]).name == "yahtzee_flush"
    five = ["6r", "6k", "2w", "2y", "2r"]
    assert fastrank.hand_rank(fastrank.dense_rank([fastrank.kind_of(d) for d in five])) == (
        rank_five(five)
    )


def test_bad_hands_are_refused() -> None:
    with pytest.raises(ValueError, match="5 or 7"):
        fastrank.dense_rank([0, 1, 2, 3, 4, 5])
    with pytest.raises(ValueError, match="5 to 7"):
        fastrank.best_hand(["1r", "2r", "3r", "4r"])


def test_missing_or_damaged_tables_are_built_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DICEHALL_DATA", str(tmp_path))
    fastrank.rank_tables.cache_clear()
    try:
        built = fastrank.rank_tables()
        stored = tmp_path / "holdem" / f"ranks-v{fastrank.RANK_VERSION}.bin"
        assert stored.is_file()
        blob = bytearray(stored.read_bytes())
        fastrank.rank_tables.cache_clear()
        assert fastrank.rank_tables() == built, "read back as built"
        blob[100] ^= 1
        stored.write_bytes(bytes(blob))
        assert fastrank._read(stored, built.columns) is None, "a flipped bit is noticed"
        fastrank.rank_tables.cache_clear()
        assert fastrank.rank_tables() == built
        assert fastrank._read(stored, built.columns) == built, "and the file is whole again"
        stored.write_bytes(b"short")
        assert fastrank._read(stored, built.columns) is None
    finally:
        fastrank.rank_tables.cache_clear()
