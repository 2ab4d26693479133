"""The relaxed column tables (columns that may pass a turn) and ``strong``'s valuation by them.

The relaxed game is checked three ways: with no turn to spare it is the exact solitaire
table; a turn more to spare never lowers a value; and small positions (one box open) agree
with an expectimax written here from the rules, with no code shared with the solver.
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Callable
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dicehall.games.boatzee import flex_tables, table_cache
from dicehall.games.boatzee.card import Card
from dicehall.games.boatzee.flexible import SPARE_SHARE, FlexValuation, for_columns
from dicehall.games.boatzee.scoring import BOX_INDEX, BOXES
from dicehall.games.boatzee.valuation import TableValuation, column_state
from tests.games.boatzee.helpers import cards, make_card
from tests.games.boatzee.solved import solved, solved_dir

__all__ = ["solved", "solved_dir"]

FULL = (1 << len(BOXES)) - 1
Hand = tuple[int, ...]


def _bands(multiplier: int) -> np.ndarray:
    return flex_tables.flex_table(multiplier).bands


@pytest.mark.parametrize("multiplier", [1, 2, 3])
def test_no_turn_to_spare_is_the_solitaire_table(solved: Path, multiplier: int) -> None:
    exact = np.asarray(table_cache.table("boatzee", multiplier).values[0])
    relaxed = _bands(multiplier)[0]
    reachable = ~np.isnan(exact)
    assert reachable.sum() > 350_000
    assert np.allclose(relaxed[reachable], exact[reachable], rtol=0, atol=2e-3)


@pytest.mark.parametrize("multiplier", [1, 3])
def test_a_turn_more_to_spare_never_lowers_a_value(solved: Path, multiplier: int) -> None:
    exact = np.asarray(table_cache.table("boatzee", multiplier).values[0])
    bands = _bands(multiplier)
    reachable = ~np.isnan(exact)
    for spare in range(flex_tables.SPARE):
        assert (bands[spare + 1][reachable] >= bands[spare][reachable] - 1e-3).all()
    # Waiting pays most for the boxes that need luck: the empty card gains with each turn.
    assert bands[flex_tables.SPARE][0, 0] > bands[0][0, 0] + 10 * multiplier


# -- an expectimax from the rules, for a column with one box open --------------------------


@cache
def _completions(keep: Hand) -> tuple[tuple[Hand, float], ...]:
    """Every hand that re-rolling all but ``keep`` can give, with its chance."""
    rolled = 5 - len(keep)
    counts: dict[Hand, int] = {}
    for faces in itertools.product(range(1, 7), repeat=rolled):
        hand = tuple(sorted(keep + faces))
        counts[hand] = counts.get(hand, 0) + 1
    return tuple((hand, n / 6**rolled) for hand, n in counts.items())


def _keeps(hand: Hand) -> set[Hand]:
    return {tuple(sorted(c)) for r in range(6) for c in itertools.combinations(hand, r)}


def _turn(stop: Callable[[Hand], float]) -> float:
    """A turn's value: roll five, re-roll any dice twice, then ``stop`` the final hand."""

    @cache
    def best(hand: Hand, rerolls: int) -> float:
        if rerolls == 0:
            return stop(hand)
        return max(
            sum(p * best(h, rerolls - 1) for h, p in _completions(keep)) for keep in _keeps(hand)
        )

    return sum(p * best(h, 2) for h, p in _completions(()))


def _relaxed_one_box(points: Callable[[Hand], int], turns: int) -> float:
    """The value of a column with one open box and ``turns`` turns: each turn may pass."""
    value = 0.0
    for turn in range(turns):
        after = value if turn else None  # the last turn must fill the box

        def stop(hand: Hand, after: float | None = after) -> float:
            filled = float(points(hand))
            return filled if after is None else max(filled, after)

        value = _turn(stop)
    return value


def test_one_open_chance_box_agrees_with_an_expectimax(solved: Path) -> None:
    bands = _bands(2)
    mask = FULL ^ 1 << BOX_INDEX["chance"]
    for spare in (0, 1, 2):
        expected = _relaxed_one_box(lambda hand: 2 * sum(hand), spare + 1)
        assert bands[spare][mask, 63] == pytest.approx(expected, abs=2e-3)


def test_one_open_sixes_box_counts_the_bonus_once(solved: Path) -> None:
    # Upper total 50 with only Sixes open: three sixes or more reach 63 and the bonus.
    bands = _bands(3)
    mask = FULL ^ 1 << BOX_INDEX["sixes"]

    def points(hand: Hand) -> int:
        sixes = 6 * hand.count(6)
        return 3 * sixes + (35 if 50 + sixes >= 63 else 0)

    for spare in (0, 1):
        expected = _relaxed_one_box(points, spare + 1)
        assert bands[spare][mask, 50] == pytest.approx(expected, abs=2e-3)


# -- the valuation -----------------------------------------------------------------------------


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(position=cards())
def test_with_no_share_the_valuation_is_the_solitaire_decomposition(
    solved: Path, position: tuple[Card, str]
) -> None:
    card, _ = position
    if card.columns == 1:
        return
    bands = [_bands(k) for k in range(1, card.columns + 1)]
    tables = [table_cache.table("boatzee", k).values for k in range(1, card.columns + 1)]
    choices, values = FlexValuation(bands, 0.0).choice_values(card, "boatzee")
    same_choices, same_values = TableValuation(tables, "boatzee").choice_values(card, "boatzee")
    assert choices == same_choices
    assert np.allclose(values, same_values, rtol=0, atol=1e-2)


def test_each_column_is_valued_with_its_share_of_the_others_turns(solved: Path) -> None:
    # Double, column 2 has only Chance open: 14 turns are left, so column 1 (13 open) has
    # 1 turn to spare and column 2 has 13, each counted at the share.
    card = make_card(2, {(box, 2): 0 for box in BOXES if box != "chance"})
    share = SPARE_SHARE[2]

    def at(multiplier: int, spare: float, column: int) -> float:
        _, mask, upper = column_state(card, column, "boatzee")
        bands = _bands(multiplier)
        low, part = math.floor(spare), spare - math.floor(spare)
        return float((1 - part) * bands[low][mask, upper] + part * bands[low + 1][mask, upper])

    expected = at(1, share * 1, 1) + at(2, share * 13, 2)
    assert for_columns(2).future(card) == pytest.approx(expected, abs=1e-3)
    solitaire = sum(
        float(table_cache.table("boatzee", k).values[0][column_state(card, k, "boatzee")[1:]])
        for k in (1, 2)
    )
    assert expected > solitaire + 1


def test_the_valuation_refuses_other_rules_and_shares(solved: Path) -> None:
    bands = [_bands(1), _bands(2)]
    with pytest.raises(ValueError, match="boatzee ruleset"):
        FlexValuation(bands, 0.3).choice_values(make_card(2, {}), "yahtzee")
    with pytest.raises(ValueError, match="0 to 1"):
        FlexValuation(bands, 1.5)
    with pytest.raises(ValueError, match="spare turns"):
        FlexValuation([_bands(1), _bands(2), _bands(3)], 0.5)
    with pytest.raises(ValueError, match="Double and Triple"):
        for_columns(1)


# -- the cache -----------------------------------------------------------------------------


def test_a_stale_or_broken_cached_table_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DICEHALL_DATA", str(tmp_path))
    folder = tmp_path / "boatzee"
    folder.mkdir()
    shape = (flex_tables.SPARE + 1, 1 << 13, 64)
    np.save(folder / "flex-x1.npy", np.zeros(shape, dtype=np.float32))
    meta = {"version": flex_tables.flex_key(1), "multiplier": 1, "seconds": 1.0}
    (folder / "flex-x1.json").write_text(json.dumps(meta))
    found = flex_tables.load(1)
    assert found is not None and found.bands.shape == shape
    (folder / "flex-x1.json").write_text(json.dumps({**meta, "version": "flex0-old"}))
    assert flex_tables.load(1) is None
    (folder / "flex-x1.json").write_text(json.dumps(meta))
    np.save(folder / "flex-x1.npy", np.zeros((2, 2), dtype=np.float32))
    assert flex_tables.load(1) is None
    (folder / "flex-x1.npy").write_bytes(b"not a table")
    assert flex_tables.load(1) is None


@given(st.integers(1, 3))
def test_each_multiplier_has_its_own_key(multiplier: int) -> None:
    keys = {flex_tables.flex_key(k) for k in (1, 2, 3)}
    assert len(keys) == 3 and flex_tables.flex_key(multiplier) in keys
