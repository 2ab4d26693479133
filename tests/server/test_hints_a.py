"""Hints for Boatzee and Ten Thousand: from a seat's own view, ranked by the strategy modules."""

from __future__ import annotations

from typing import Any

import pytest

from dicehall.games.boatzee import GAME as BOATZEE
from dicehall.games.boatzee import BoatzeeOptions, BoatzeeState
from dicehall.games.boatzee import seat_hint as boatzee_hints
from dicehall.games.boatzee.card import empty_card
from dicehall.games.tenthousand import GAME as TENTHOUSAND
from dicehall.games.tenthousand import rules as tt
from tests.games.hints import hint_for


def _boatzee(dice: tuple[int, ...], rolls: int = 1, columns: int = 1) -> tuple[Any, Any]:
    options = BoatzeeOptions(columns=columns)
    state = BoatzeeState(options, (empty_card(columns), empty_card(columns)), 0, dice, rolls)
    return BOATZEE.view(state, 0), BOATZEE.legal(state, 0)


def _tenthousand(
    phase: tt.Phase, dice: tuple[int, ...], in_hand: int, turn_total: int, banked: int = 0
) -> tuple[Any, Any]:
    options = tt.TenThousandOptions(entry_threshold=300)
    state = tt.TenThousandState(
        options,
        (banked, 0),
        (25, 25),
        0,
        phase,
        dice,
        in_hand,
        turn_total,
        (),
        0,
        None,
        0,
        None,
        (),
    )
    return TENTHOUSAND.view(state, 0), TENTHOUSAND.legal(state, 0)


def test_both_games_register_a_hint() -> None:
    assert hint_for("boatzee") is boatzee_hints.seat_hint
    assert hint_for("tenthousand") is not None


@pytest.mark.parametrize("solved", [True, False])
def test_boatzee_scores_a_boatzee_and_keeps_a_straight_draw(
    solved: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not solved:  # the heuristic evaluation, as on a server without the solved tables
        monkeypatch.setattr(boatzee_hints, "_solved", lambda *rules: None)
    fn = hint_for("boatzee")
    assert fn is not None
    got = fn(*_boatzee((4, 4, 4, 4, 4)))
    assert got["note"].startswith("Values from the solved tables") == (
        solved and boatzee_hints._solved(1, "boatzee") is not None
    )
    assert got["choices"][0]["box"] == "boatzee"
    assert got["choices"][0]["points"] == 50
    assert got["summary"].startswith("Best: Score Boatzee for 50")
    got = fn(*_boatzee((1, 2, 3, 4, 6), rolls=1))
    assert got["choices"][0].get("keep") == [1, 2, 3, 4] or got["choices"][0].get("box")
    assert len(got["choices"]) <= 5
    values = [c["value"] for c in got["choices"]]
    assert values == sorted(values, reverse=True)
    # No re-rolls left: only boxes.
    got = fn(*_boatzee((1, 2, 3, 4, 6), rolls=3))
    assert all("box" in c for c in got["choices"])
    assert got["choices"][0]["box"] == "small_straight"


def test_boatzee_hint_columns_and_other_seats() -> None:
    fn = hint_for("boatzee")
    assert fn is not None
    got = fn(*_boatzee((6, 6, 6, 6, 6), rolls=3, columns=3))
    assert got["choices"][0] == {**got["choices"][0], "box": "boatzee", "column": 3, "points": 150}
    # Another seat's turn: nothing to advise.
    options = BoatzeeOptions()
    state = BoatzeeState(options, (empty_card(1), empty_card(1)), 1, (1, 2, 3, 4, 5), 1)
    got = fn(BOATZEE.view(state, 0), BOATZEE.legal(state, 0))
    assert got["choices"] == []


def test_tenthousand_set_aside_and_bank_or_roll() -> None:
    fn = hint_for("tenthousand")
    assert fn is not None
    got = fn(*_tenthousand("set_aside", (1, 1, 1, 2, 3, 4), 6, 0))
    best = got["choices"][0]
    assert best["keep"] == [1, 1, 1]
    assert best["points"] == 1000
    assert got["summary"].startswith("Best: Set aside 1 1 1 (1000)")
    # Hot dice with a small total: roll all six on.
    got = fn(*_tenthousand("choose", (1, 5, 5, 5, 1, 1), 6, 250, banked=500))
    assert got["choices"][0]["then"] == "roll"
    # One die left with 2000 in hand: bank.
    got = fn(*_tenthousand("choose", (1, 1, 1, 5, 5, 2), 1, 2000, banked=500))
    assert got["choices"][0]["then"] == "bank"
    assert got["summary"] == "Best: Bank 2000 now."
    # Below the entry threshold only rolling is offered.
    got = fn(*_tenthousand("choose", (5, 2, 3, 4, 6, 6), 5, 50))
    assert [c["then"] for c in got["choices"]] == ["roll"]
