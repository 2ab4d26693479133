"""The engine on a worked example (Pig): contract, driver, log, replay, harness."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dicehall.engine import (
    Acted,
    Chance,
    IllegalMove,
    InvalidOptions,
    InvalidOutcome,
    RandomBot,
    Resolved,
    Scripted,
    Seeded,
    Table,
    ToAct,
    play_out,
    replay,
)
from dicehall.engine.events import decode_record, encode_record
from dicehall.engine.harness import check_random_play
from tests.engine.pig import PIG, Hold, PigOptions, RollAgain


def test_options_from_text_and_errors() -> None:
    assert PIG.options({"target": "50"}) == PigOptions(50)
    assert PIG.options({}) == PigOptions()
    with pytest.raises(InvalidOptions, match="unknown option 'goal'"):
        PIG.options({"goal": "5"})
    with pytest.raises(InvalidOptions, match="whole number"):
        PIG.options({"target": "lots"})
    with pytest.raises(InvalidOptions, match="1 to 1000"):
        PIG.options({"target": 0})


def test_seat_count_checked() -> None:
    with pytest.raises(InvalidOptions, match="1 to 4 seats"):
        Table(PIG, 5, PigOptions())


def test_scripted_game_and_illegal_moves_change_nothing() -> None:
    table = Table(PIG, 2, PigOptions(target=5))
    assert isinstance(table.turn(), Chance)
    with pytest.raises(IllegalMove, match="dice must be rolled"):
        table.act(0, Hold())
    table.resolve((4,))
    assert table.turn() == ToAct(0)
    before = table.state
    with pytest.raises(IllegalMove, match="seat 1's turn, not seat 2's"):
        table.act(1, Hold())
    assert table.state == before
    with pytest.raises(InvalidOutcome):
        PIG.resolve(table.state, (3,))  # no roll pending: rejected by the game
    table.act(0, RollAgain())
    with pytest.raises(InvalidOutcome, match=r"1\.\.6"):
        table.resolve((7,))
    table.resolve((2,))
    table.act(0, Hold())
    assert table.state.banked == (6, 0)
    assert table.events == [
        Resolved((4,)),
        Acted(0, RollAgain()),
        Resolved((2,)),
        Acted(0, Hold()),
    ]
    assert replay(PIG, 2, PigOptions(target=5), table.events) == table.state


def test_record_round_trip() -> None:
    state, result, events = play_out(
        PIG, 2, PigOptions(), [RandomBot(random.Random(1)), RandomBot(random.Random(2))], Seeded(3)
    )
    record = Table(PIG, 2, PigOptions()).record_of()
    record = type(record)("pig", 2, PigOptions(), tuple(events))
    assert decode_record(PIG, encode_record(record)) == record
    assert replay(PIG, 2, PigOptions(), events) == state
    assert result.winners


def test_scripted_source_checks_and_runs_out() -> None:
    source = Scripted([(3,), (9,)])
    assert source.roll(1) == (3,)
    with pytest.raises(InvalidOutcome):
        source.roll(1)
    with pytest.raises(InvalidOutcome, match="ran out"):
        Scripted([]).roll(1)


def test_seeded_source_is_reproducible_and_fair_enough() -> None:
    a, b = Seeded(7), Seeded(7)
    assert a.roll(50) == b.roll(50)
    faces = Seeded(11).roll(60_000)
    counts = [faces.count(f) for f in range(1, 7)]
    assert all(9_400 < c < 10_600 for c in counts), counts
    drawn = Seeded(5).draw(4, ["r", "r", "k", "w", "y"])
    assert len(drawn) == 4 and drawn.count("r") <= 2


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), seats=st.integers(1, 4))
def test_random_play_harness(seed: int, seats: int) -> None:
    run = check_random_play(PIG, seats, PigOptions(target=30), seed)
    assert max(run.result.scores) >= 30
