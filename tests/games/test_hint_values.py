"""A hint's figures mean one documented thing per game, and its ``text`` quotes them.

Boatzee: a choice's ``value`` is the expected final score of the whole game, the card's
points included. Ten Thousand: the points the turn is expected to bank, the turn's points
so far included. Boss Dice: equity is win + push / 2. Bull's Eye: this round's expected
points (``stop`` is exactly what stopping scores).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from dicehall.games.boatzee import seat_hint as boatzee_hints
from dicehall.games.boatzee.card import fill, total
from dicehall.games.boatzee.evaluators import HEURISTIC
from dicehall.games.boss.odds import format_odds
from dicehall.games.bullseye.scoring import round_score
from tests.games.boatzee.solved import solved, solved_dir
from tests.games.hints import seeded_hints

__all__ = ["solved", "solved_dir"]


def _choices(name: str, seats: int, seed: int) -> list[tuple[Any, dict[str, Any]]]:
    """Each (view, choice) of the hints met in a seeded game."""
    return [(view, c) for view, hint in seeded_hints(name, seats, seed) for c in hint["choices"]]


def _quoted(pattern: str, text: str) -> str:
    found = re.search(pattern, text)
    assert found is not None, text
    return found[1]


def test_boatzee_values_are_expected_final_scores(solved: Path) -> None:
    hints = [hint for _, hint in seeded_hints("boatzee", 2, seed=5) if hint["choices"]]
    assert hints and all(hint["basis"] == "exact" for hint in hints)
    for hint in hints:
        assert "the points already on the card included" in hint["note"]
    for view, choice in _choices("boatzee", 2, seed=5):
        assert _quoted(r"expect (\d+\.\d) in all", choice["text"]) == f"{choice['value']:.1f}"
        # Never less than the card holds now: the card's points are in it.
        assert choice["value"] >= total(view.cards[view.seat]) - 1e-9


def test_boatzee_heuristic_values_are_final_scores_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(boatzee_hints, "_solved", lambda *args: None)
    hints = [(view, hint) for view, hint in seeded_hints("boatzee", 2, seed=5) if hint["choices"]]
    assert hints
    for view, hint in hints:
        assert hint["basis"] == "heuristic"
        assert "the points already on the card included" in hint["note"]
        card, options = view.cards[view.seat], view.options
        for choice in hint["choices"]:
            if "box" in choice:  # the rule of thumb's final score of the card so filled
                dice, box, column = view.dice, choice["box"], choice["column"]
                after = fill(card, dice, options.ruleset, box, column, options.joker)
                assert choice["value"] == pytest.approx(HEURISTIC.value(after), abs=1e-9)
        best = hint["choices"][0]["value"]
        for choice in hint["choices"][1:]:
            if best - choice["value"] >= 0.05:
                worse = _quoted(r"\((\d+\.\d) worse\)", choice["text"])
                assert worse == f"{best - choice['value']:.1f}"


def test_ten_thousand_values_are_the_turns_expected_bank() -> None:
    choices = _choices("tenthousand", 2, seed=3)
    assert any(c.get("then") == "bank" and "keep" in c for _, c in choices)
    for view, choice in choices:
        turn_total = view.state.turn_total
        if "keep" in choice:
            assert _quoted(r"expect (\d+)$", choice["text"]) == f"{choice['value']:.0f}"
            if choice["then"] == "bank":  # the turn so far, plus these points, banked
                assert choice["value"] == turn_total + choice["points"]
        elif choice["then"] == "bank":
            assert choice["text"] == f"Bank {turn_total} now" and choice["value"] == turn_total
        else:
            assert _quoted(r"expect (\d+)$", choice["text"]) == f"{choice['value']:.0f}"


def test_boss_equity_and_odds_text_agree() -> None:
    hints = [hint for _, hint in seeded_hints("boss", 2, seed=4)]
    keeps = [k for hint in hints if hint.get("kind") == "keep" for k in hint["keeps"]]
    calls = [hint for hint in hints if hint.get("kind") == "call"]
    assert keeps and calls
    for keep in keeps:
        assert keep["equity"] == pytest.approx(keep["win"] + keep["push"] / 2)
        assert keep["odds_against_text"] == format_odds(keep["odds_against"])
    for call in calls:
        up = call["come_up"]
        assert call["come_up_equity"] == pytest.approx(up["win"] + up["push"] / 2)
        assert call["pick_up_equity"] == 0.5


def test_bullseye_stop_is_what_stopping_scores_this_round() -> None:
    hints = [hint for _, hint in seeded_hints("bullseye", 3, seed=2)]
    choices = [hint for hint in hints if hint.get("kind") == "choice"]
    assert any(hint["stop"] is not None for hint in choices)
    for hint in choices:
        assert "this round's expected points" in hint["basis_text"]
        if hint["stop"] is not None:
            assert hint["stop"] == round_score(hint["total"], hint["target"])
