"""Random play through the engine harness, with Hold'em Dice's own invariants at every step."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from dicehall.engine.events import Event
from dicehall.engine.harness import check_random_play
from dicehall.games.holdem.model import HoldemOptions, HoldemState
from dicehall.games.holdem.pots import pots_from
from dicehall.games.holdem.rules import GAME

_OTHER_POCKETS = (("1r", "1r"), ("6y", "5k"))


def check_step(before: HoldemState, event: Event, after: HoldemState) -> None:
    """Chips conserved, pots add up, the bag holds 20 dice, and views hide other pockets."""
    seats = len(after.stacks)
    assert sum(after.stacks) + sum(after.contributions) == seats * after.options.stack
    assert all(s >= 0 for s in after.stacks) and all(c % 10 == 0 for c in after.contributions)
    not_in = tuple(o or f for o, f in zip(after.out, after.folded, strict=True))
    pots = pots_from(after.contributions, not_in, after.stacks)
    assert sum(p.amount for p in pots) == sum(after.contributions)
    dealt = sum(len(p) for p in after.pockets) + len(after.board) + len(after.drawn)
    assert len(GAME.bag(after)) + dealt == 20
    if after.stage == "over":
        return
    for viewer in range(seats):
        view = GAME.view(after, viewer)
        assert view.pocket == after.pockets[viewer]
        for other in range(seats):
            if other == viewer or not after.pockets[other]:
                continue
            for fake in _OTHER_POCKETS:
                pockets = list(after.pockets)
                pockets[other] = fake
                changed = replace(after, pockets=tuple(pockets))
                assert GAME.view(changed, viewer) == view, "a view depends on another pocket"
                assert GAME.view(changed, None) == GAME.view(after, None)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    seats=st.integers(2, 6),
    stack=st.sampled_from([10, 30, 60, 150]),
    rerolls=st.sampled_from([None, 0, 1]),
)
def test_random_play_conserves_chips_and_hides_pockets(
    seed: int, seats: int, stack: int, rerolls: int | None
) -> None:
    options = HoldemOptions(stack=stack, max_flop_rerolls=rerolls)
    run = check_random_play(GAME, seats, options, seed, on_step=check_step, codec_every=5)
    result = run.result
    assert sum(result.scores) == seats * stack
    assert result.turns == run.state.hand >= 1
    if not (run.state.last is not None and run.state.last.yahtzee_flush):
        assert result.winners == tuple(s for s in range(seats) if result.scores[s] > 0)


def _equity_bot(rng: Any) -> Any:
    from dicehall.games.holdem.bots import EquityBot

    return EquityBot(rng)


@settings(max_examples=3, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), seats=st.integers(2, 4))
def test_equity_bots_play_legal_games_to_the_end(seed: int, seats: int) -> None:
    options = HoldemOptions(stack=40)
    run = check_random_play(
        GAME, seats, options, seed, on_step=check_step, codec_every=10, bot=_equity_bot
    )
    assert sum(run.result.scores) == seats * 40
