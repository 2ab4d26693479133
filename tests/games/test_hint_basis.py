"""Every hint that advises says what its figures rest on: exact, an estimate or a heuristic."""

from __future__ import annotations

from typing import Any

import pytest

from dicehall.engine import Chance, Finished, Seeded, resolve_request
from dicehall.games.boatzee import GAME as BOATZEE
from dicehall.games.boatzee import BoatzeeOptions, BoatzeeState
from dicehall.games.boatzee import seat_hint as boatzee_hints
from dicehall.games.boatzee.card import empty_card
from dicehall.games.boatzee.evaluators import HEURISTIC
from dicehall.games.hint_basis import BASES, with_basis
from dicehall.games.holdem import GAME as HOLDEM
from dicehall.games.holdem.model import HoldemOptions
from tests.games.hints import hint_for, seeded_hints


def _advises(hint: dict[str, Any]) -> bool:
    """Whether a hint weighs choices (not a "nothing to decide now" note)."""
    if "choices" in hint:
        return bool(hint["choices"])
    return hint.get("kind") not in ("wait", "lead")


def _hints(name: str, seats: int, seed: int) -> list[dict[str, Any]]:
    """The hint of every seat to act in a game of seeded dice and random moves."""
    return [hint for _, hint in seeded_hints(name, seats, seed)]


@pytest.mark.parametrize(
    ("name", "seats"),
    [("tenthousand", 2), ("boatzee", 2), ("boss", 2), ("holdem", 3), ("bullseye", 3)],
)
def test_every_advising_hint_names_its_basis(
    name: str, seats: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(boatzee_hints, "_solved", lambda *args: None)
    hints = [hint for hint in _hints(name, seats, seed=7) if _advises(hint)]
    assert hints, name
    for hint in hints:
        assert hint["basis"] in BASES, hint
        assert hint["basis_text"].endswith(".") and len(hint["basis_text"]) > 20, hint


def _boatzee(columns: int) -> tuple[Any, Any]:
    options = BoatzeeOptions(columns=columns)
    cards = (empty_card(columns), empty_card(columns))
    state = BoatzeeState(options, cards, 0, (1, 2, 3, 4, 6), 1)
    return BOATZEE.view(state, 0), BOATZEE.legal(state, 0)


@pytest.mark.parametrize(
    ("tables", "columns", "basis"),
    [(False, 1, "heuristic"), (True, 1, "exact"), (False, 3, "heuristic"), (True, 3, "estimate")],
)
def test_boatzee_says_whether_the_solved_tables_were_used(
    tables: bool, columns: int, basis: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Any valuer stands in for the cached tables: the basis follows which one was used.
    valuer = HEURISTIC if tables else None
    monkeypatch.setattr(boatzee_hints, "_solved", lambda *args: valuer)
    hint = boatzee_hints.seat_hint(*_boatzee(columns))
    assert hint["basis"] == basis
    assert ("solved tables" in hint["basis_text"]) == tables or basis == "heuristic"
    assert hint["choices"] and hint["note"]  # the existing fields stay


def _holdem_hint(seats: int, board_dice: int) -> dict[str, Any]:
    """My hint at a table of ``seats`` after ``board_dice`` community dice."""
    state = HOLDEM.start(seats, HoldemOptions())
    source = Seeded(3)
    while len(state.board) < board_dice or isinstance(HOLDEM.turn(state), Chance):
        turn = HOLDEM.turn(state)
        if isinstance(turn, Chance):
            state = HOLDEM.resolve(state, resolve_request(source, turn.request))
            continue
        assert not isinstance(turn, Finished)
        legal = HOLDEM.legal(state, turn.seat)
        # Bet and call (a street of checks on the flop would roll the flop again).
        by_kind = {type(a).__name__: a for a in legal}
        move = by_kind.get("Call") or by_kind.get("Bet") or by_kind["Check"]
        state = HOLDEM.act(state, turn.seat, move)
    function = hint_for("holdem")
    assert function is not None
    seat = HOLDEM.turn(state).seat  # type: ignore[union-attr]
    return function(HOLDEM.view(state, seat), HOLDEM.legal(state, seat))


def test_holdem_says_exact_or_sampled() -> None:
    exact = _holdem_hint(seats=2, board_dice=5)
    assert exact["exact"] is True and exact["basis"] == "exact"
    sampled = _holdem_hint(seats=6, board_dice=0)
    assert sampled["exact"] is False and sampled["basis"] == "estimate"
    assert f"{sampled['samples']:,} random deals" in sampled["basis_text"]


def test_with_basis_refuses_an_unknown_basis() -> None:
    with pytest.raises(ValueError, match="exact, estimate, heuristic"):
        with_basis({}, "guess", "A guess.")  # type: ignore[arg-type]
