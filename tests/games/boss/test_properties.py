"""Property tests: random legal play through the engine harness, plus Boss Dice invariants."""

from __future__ import annotations

from itertools import product
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from dicehall.engine import codec
from dicehall.engine.events import Event
from dicehall.engine.harness import check_random_play
from dicehall.games.boss import (
    BOTS,
    GAME,
    BossOptions,
    BossState,
    NoBoss,
    PickedUp,
    Showdown,
)
from dicehall.games.boss.hands import boss_keep, legal_keeps, missing_from, showdown_rank

options = st.builds(
    BossOptions,
    horses=st.integers(1, 3),
    max_pickups=st.one_of(st.none(), st.integers(0, 2)),
)


def other_rolls(count: int, actual: tuple[int, ...]) -> list[tuple[int, ...]]:
    """A handful of other concealed rolls the Boss could have had."""
    rolls = [r for r in product(range(1, 7), repeat=count) if r != actual]
    return rolls[:: max(1, len(rolls) // 12)]


def check_concealment(state: BossState) -> None:
    """The opponent's and the spectator's views are identical whatever the concealed roll."""
    if state.concealed is None or state.boss is None or not state.concealed:
        return
    opponent = 1 - state.boss
    seen = {seat: codec.dumps(GAME.view(state, seat)) for seat in (opponent, None)}
    assert GAME.view(state, opponent).concealed is None
    assert GAME.view(state, None).concealed is None
    assert GAME.view(state, state.boss).concealed == state.concealed
    for other in other_rolls(len(state.concealed), state.concealed):
        variant = BossState(
            state.target,
            state.max_pickups,
            state.horses,
            state.phase,
            state.first_rolls,
            state.boss,
            other,
            state.keep,
            state.pickups,
            state.hands,
            state.history,
        )
        for seat, text in seen.items():
            assert codec.dumps(GAME.view(variant, seat)) == text


def check_invariants(before: Any, event: Event, after: Any) -> None:
    """Horses are conserved and only grow; the counts match the public history."""
    assert isinstance(after, BossState)
    showdowns = [r for r in after.history if isinstance(r, Showdown)]
    pickups = [r for r in after.history if isinstance(r, PickedUp)]
    won = [sum(1 for r in showdowns if r.winner == s) for s in (0, 1)]
    assert list(after.horses) == won
    assert all(b <= a for b, a in zip(before.horses, after.horses, strict=True))
    assert after.hands == len(showdowns) + len(pickups)
    assert max(after.horses) <= after.target
    if after.boss is not None:
        assert after.boss_kept == boss_keep(after.first_rolls[after.boss])
    for record in after.history[len(before.history) :]:
        if isinstance(record, Showdown):
            boss, opp = showdown_rank(record.boss_hand), showdown_rank(record.opponent_hand)
            expected = record.boss if boss > opp else 1 - record.boss if opp > boss else None
            assert record.winner == expected
            assert not missing_from(record.boss_kept, record.boss_hand)
            assert record.keep in legal_keeps(record.first_rolls[1 - record.boss])
            assert not missing_from(record.keep, record.opponent_hand)
        elif isinstance(record, NoBoss):
            assert after.first_rolls == ()
    if after.max_pickups is not None:
        assert after.pickups <= after.max_pickups
    check_concealment(after)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), opts=options)
def test_random_play(seed: int, opts: BossOptions) -> None:
    run = check_random_play(GAME, 2, opts, seed, on_step=check_invariants)
    assert max(run.result.scores) == opts.horses
    assert run.result.winners == (run.result.scores.index(opts.horses),)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), bot=st.sampled_from(sorted(BOTS)), opts=options)
def test_bot_play(seed: int, bot: str, opts: BossOptions) -> None:
    run = check_random_play(GAME, 2, opts, seed, on_step=check_invariants, bot=BOTS[bot])
    assert max(run.result.scores) == opts.horses
