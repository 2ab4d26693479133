"""Random legal play through the engine's harness, with Bull's Eye's own invariants."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from dicehall.engine.bots import RandomBot
from dicehall.engine.events import Acted, Event
from dicehall.engine.game import ToAct
from dicehall.engine.harness import check_random_play
from dicehall.games.bullseye import (
    GAME,
    BullseyeOptions,
    BullseyeState,
)
from dicehall.games.bullseye.bots import HeuristicBot, OptimalBot
from dicehall.games.bullseye.scoring import shared_positions


def check_invariants(before: BullseyeState, event: Event, after: BullseyeState) -> None:
    """Chips and points conserved; counted throws obey the matching rule; views agree."""
    seats = len(after.points)
    bank = after.options.bank
    assert sum(after.banks) + after.pot == seats * bank, "chips were created or lost"
    assert all(b >= 0 for b in after.banks)
    assert after.points == tuple(
        sum(r.scores[s] or 0 for r in after.history) for s in range(seats)
    ), "points differ from the round scores"
    ended = len(after.history) > len(before.history)
    won = after.history[-1].won if ended else (0,) * seats
    scores = after.history[-1].scores if ended else (None,) * seats
    bets = [0] * seats
    if isinstance(event, Acted):
        bets[event.seat] = event.action.bet
        assert before.round is not None
        if event.seat == before.round.lead:
            assert event.action.bet == 0, "the lead does not bet"
    else:
        assert not ended and after.banks == before.banks and after.pot == before.pot
    for s in range(seats):
        assert after.banks[s] == before.banks[s] - bets[s] + won[s]
        assert after.points[s] == before.points[s] + (scores[s] or 0)
    assert after.pot == before.pot + sum(bets) - sum(won)
    if ended:
        assert after.pot == after.history[-1].carried
    if after.round is None and after.lead_choice is None:
        assert after.pot == 0, "a pot carried to the game's end goes to the winners"
    rnd = after.round
    if rnd is not None:
        for seat, throws in enumerate(rnd.counted):
            sizes = [len(t) for t in throws]
            assert sizes == ([3] * len(sizes) if seat == rnd.lead else [3, 2, 1][: len(sizes)])
            assert all(not shared_positions(t) for t in throws), "a throw counted with a match"
        if isinstance(GAME.turn(after), ToAct):
            assert rnd.dice and not shared_positions(rnd.dice)
    views = [GAME.view(after, s) for s in [None, *range(seats)]]
    assert all(v.seat == s for v, s in zip(views, [None, *range(seats)], strict=True))
    # Bull's Eye hides nothing: every seat's view is the spectator's, bar the seat.
    assert all(v.round == views[0].round and v.history == views[0].history for v in views)


@st.composite
def games(draw: st.DrawFn) -> tuple[int, BullseyeOptions]:
    seats = draw(st.integers(2, 8))
    target = draw(st.none() | st.integers(20, 150))
    rounds = draw(st.integers(1 if target is None else 0, 4))
    options = BullseyeOptions(
        rounds=rounds,
        target_points=target,
        bet_limit=draw(st.integers(0, 12)),
        bank=draw(st.integers(0, 40)),
        allow_two_seats=seats == 2,
    )
    return seats, options


@settings(max_examples=60, deadline=None)
@given(game=games(), seed=st.integers(0, 2**32 - 1))
def test_random_play_ends_conserves_and_replays(
    game: tuple[int, BullseyeOptions], seed: int
) -> None:
    seats, options = game
    run = check_random_play(GAME, seats, options, seed, on_step=check_invariants, codec_every=3)
    assert run.result.scores == run.state.points
    assert run.result.turns == len(run.state.history)
    top = max(run.state.points)
    assert run.result.winners == tuple(i for i, p in enumerate(run.state.points) if p == top)


@settings(max_examples=60, deadline=None)
@given(game=games(), seed=st.integers(0, 2**32 - 1))
def test_chips_are_conserved_from_start_to_end(
    game: tuple[int, BullseyeOptions], seed: int
) -> None:
    seats, options = game
    run = check_random_play(GAME, seats, options, seed, codec_every=50)
    start = seats * options.bank
    assert sum(run.state.banks) + run.state.pot == start
    # Nothing is left in the pot: every chip is back in a bank.
    assert run.state.pot == 0 and sum(run.state.banks) == start
    got = [b - options.bank for b in run.state.banks]
    bet = [0] * seats
    for event in run.events:
        if isinstance(event, Acted):
            bet[event.seat] += event.action.bet
    won = [sum(r.won[s] for r in run.state.history) for s in range(seats)]
    assert got == [w - b for w, b in zip(won, bet, strict=True)]


@settings(max_examples=25, deadline=None)
@given(
    game=games(),
    seed=st.integers(0, 2**32 - 1),
    bot=st.sampled_from([OptimalBot, HeuristicBot, RandomBot]),
)
def test_bots_play_legal_whole_games(
    game: tuple[int, BullseyeOptions], seed: int, bot: Any
) -> None:
    seats, options = game
    run = check_random_play(
        GAME, seats, options, seed, on_step=check_invariants, codec_every=5, bot=bot
    )
    assert run.result.turns >= 1


def test_a_default_eight_seat_game() -> None:
    run = check_random_play(
        GAME,
        8,
        BullseyeOptions(),
        7,
        on_step=check_invariants,
        codec_every=50,
        bot=OptimalBot,
    )
    assert run.result.turns == 16
