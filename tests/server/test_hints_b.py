"""Hints for Boss Dice, Hold'em Dice and Bull's Eye: from a seat's view, matching the odds."""

from __future__ import annotations

from typing import Any

import pytest

from dicehall.engine.dice import Seeded
from dicehall.engine.game import ToAct
from dicehall.engine.table import Table
from dicehall.games.boss import GAME as BOSS
from dicehall.games.boss import BossOptions
from dicehall.games.boss.odds import call_odds, rank_keeps
from dicehall.games.bullseye import GAME as BULLSEYE
from dicehall.games.bullseye.model import BullseyeOptions
from dicehall.games.bullseye.stopping import hint as stopping_hint
from dicehall.games.holdem import GAME as HOLDEM
from dicehall.games.holdem.model import Fold, HoldemOptions
from tests.games.hints import hint_for


def _at_turn(table: Table[Any, Any], seed: int) -> int:
    turn = table.advance(Seeded(seed), {})
    assert isinstance(turn, ToAct)
    return turn.seat


def test_each_game_registers_a_hint() -> None:
    for name in ("boss", "holdem", "bullseye"):
        assert hint_for(name) is not None


def test_boss_call_and_keep_hints_match_the_odds_engine() -> None:
    fn = hint_for("boss")
    assert fn is not None
    table: Table[Any, Any] = Table(BOSS, 2, BossOptions())
    boss = _at_turn(table, 7)
    state = table.state
    view = BOSS.view(state, boss)
    got = fn(view, BOSS.legal(state, boss))
    assert view.concealed is not None
    expected = call_odds(
        (*view.boss_kept, *view.concealed), view.boss_kept, view.first_rolls[1 - boss]
    )
    assert got["kind"] == "call"
    assert got["come_up_equity"] == pytest.approx(float(expected.come_up.equity))
    assert got["pick_up_equity"] == 0.5
    assert got["best"] == ("come_up" if expected.should_come_up else "pick_up")
    # the opponent has no decision while the Boss calls
    other = BOSS.view(state, 1 - boss)
    assert fn(other, BOSS.legal(state, 1 - boss))["kind"] == "wait"

    table.act(boss, BOSS.legal(state, boss)[0])  # come up
    state = table.state
    opponent = 1 - boss
    view = BOSS.view(state, opponent)
    assert view.concealed is None  # the hint can only use what this seat sees
    got = fn(view, BOSS.legal(state, opponent))
    ranked = rank_keeps(view.first_rolls[opponent], boss_kept=view.boss_kept)
    assert got["kind"] == "keep"
    assert got["best"] == list(ranked[0].keep)
    assert 1 <= len(got["keeps"]) <= 5
    equities = [k["equity"] for k in got["keeps"]]
    assert equities == sorted(equities, reverse=True)


def test_holdem_equity_hint_is_fast_and_sane() -> None:
    fn = hint_for("holdem")
    assert fn is not None
    table: Table[Any, Any] = Table(HOLDEM, 3, HoldemOptions(stack=100))
    seat = _at_turn(table, 3)
    state = table.state
    got = fn(HOLDEM.view(state, seat), HOLDEM.legal(state, seat))
    assert got["kind"] == "equity"
    assert got["opponents"] == 2
    assert 0.0 <= got["win"] <= got["share"] <= 1.0
    table.act(seat, Fold())
    folded = fn(HOLDEM.view(table.state, seat), ())
    assert folded["kind"] == "wait"


def test_bullseye_hint_for_a_thrower_and_for_the_lead() -> None:
    fn = hint_for("bullseye")
    assert fn is not None
    table: Table[Any, Any] = Table(BULLSEYE, 3, BullseyeOptions(rounds=3))
    seen = set()
    for _ in range(60):
        seat = _at_turn(table, 11)
        state = table.state
        view = BULLSEYE.view(state, seat)
        legal = BULLSEYE.legal(state, seat)
        got = fn(view, legal)
        rnd = view.round
        assert rnd is not None
        if seat == rnd.lead:
            assert got["kind"] == "lead"
        else:
            throws = len(rnd.counted[seat])
            expected = stopping_hint(rnd.target, rnd.totals[seat] or 0, throws)
            assert got["kind"] == "choice"
            assert got["best"] == expected.best
            assert got["stop"] == pytest.approx(float(expected.stop or 0))
        seen.add(got["kind"])
        table.act(seat, legal[0])
        if table.state.round is None:
            break
    assert seen == {"lead", "choice"}
    spectator = BULLSEYE.view(table.state, None)
    assert fn(spectator, ())["kind"] == "wait"
