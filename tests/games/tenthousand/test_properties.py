"""Property tests over many seeds through the engine's random-play harness.

Every game ends, replay rebuilds it, the codec round-trips it (the harness checks those), and
the Ten Thousand invariants hold at every step: banked totals change only by a legal bank of
the turn total, the turn total is the value of this turn's set-asides, cents are conserved,
and in the final round every other seat gets exactly one turn.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from dicehall.engine import Acted, Event, RandomBot, Resolved
from dicehall.engine.harness import check_random_play
from dicehall.games.tenthousand import GAME, Bank, TenThousandOptions, TenThousandState
from dicehall.games.tenthousand.bots import HeuristicBot, ThresholdBot
from dicehall.games.tenthousand.scoring import keep_value

BOTS: dict[str, Any] = {"random": RandomBot, "heuristic": HeuristicBot, "threshold": ThresholdBot}


@dataclass
class Watcher:
    """Checks the game's invariants after every event and remembers the final round."""

    seats: int
    options: TenThousandOptions
    trigger: int | None = None
    final_turns: list[int] = field(default_factory=list)
    penalties: int = 0

    def __call__(self, before: TenThousandState, event: Event, after: TenThousandState) -> None:
        self._banked(before, event, after)
        self._money(before, event, after)
        self._turn(after)
        self._final_round(before, after)

    def _banked(self, before: TenThousandState, event: Event, after: TenThousandState) -> None:
        for seat in range(self.seats):
            change = after.banked[seat] - before.banked[seat]
            if change == 0:
                continue
            assert isinstance(event, Acted) and event.seat == seat and event.action == Bank()
            assert before.phase == "choose" and before.current == seat
            assert before.can_bank()
            assert before.banked[seat] > 0 or before.turn_total >= self.options.entry_threshold
            assert change == before.turn_total > 0
        if isinstance(event, Acted) and event.action == Bank():
            assert after.banked[event.seat] == before.banked[event.seat] + before.turn_total

    def _money(self, before: TenThousandState, event: Event, after: TenThousandState) -> None:
        for seat in range(self.seats):
            change = after.paid[seat] - before.paid[seat]
            if change == 0:
                continue
            assert change == self.options.zero_penalty
            assert isinstance(event, Resolved) and before.current == seat
            assert before.banked[seat] > 0, "a seat pays for zero-outs only after entering"
            assert after.last is not None and after.last.zeroed
            self.penalties += change
        assert after.pot == self.options.ante * self.seats + self.penalties
        if after.phase == "over":
            assert sum(after.payouts) == after.pot
            assert all(
                after.payouts[w] > 0 or after.pot < len(after.winners()) for w in after.winners()
            )
            assert all(after.payouts[s] == 0 for s in range(self.seats) if s not in after.winners())
        else:
            assert after.payouts == ()

    def _turn(self, after: TenThousandState) -> None:
        flag = self.options.four_and_pair_is_three_pairs
        values = [keep_value(k, flag) for k in after.kept]
        assert None not in values
        assert after.turn_total == sum(v for v in values if v is not None)
        if after.phase == "set_aside":
            assert len(after.dice) == after.in_hand
        if after.phase == "roll":
            assert after.dice == ()

    def _final_round(self, before: TenThousandState, after: TenThousandState) -> None:
        if after.turns == before.turns:
            return
        assert after.last is not None and after.last.seat == before.current
        if self.trigger is not None:
            self.final_turns.append(before.current)
        elif after.final_trigger is not None:
            assert after.banked[before.current] >= self.options.target
            self.trigger = after.final_trigger
            assert self.trigger == before.current

    def check_end(self, state: TenThousandState) -> None:
        """Every other seat had exactly one turn after the trigger, in order, then the end."""
        assert self.trigger is not None
        assert state.phase == "over"
        others = [(self.trigger + k) % self.seats for k in range(1, self.seats)]
        assert self.final_turns == others


@st.composite
def options_strategy(draw: st.DrawFn) -> TenThousandOptions:
    """Options across their range, kept small enough for quick random games."""
    target = draw(st.sampled_from([50, 500, 1000, 3000, 10_000]))
    return TenThousandOptions(
        target=target,
        entry_threshold=draw(st.sampled_from([t for t in (0, 50, 300, 1000) if t <= target])),
        four_and_pair_is_three_pairs=draw(st.booleans()),
        ante=draw(st.integers(0, 100)),
        zero_penalty=draw(st.integers(0, 20)),
    )


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    seats=st.integers(1, 8),
    options=options_strategy(),
    bot=st.sampled_from(sorted(BOTS)),
)
def test_random_play_keeps_every_invariant(
    seed: int, seats: int, options: TenThousandOptions, bot: str
) -> None:
    if seats > 4 and options.target > 3000:
        options = replace(options, target=3000)  # keeps eight random seats quick
    watcher = Watcher(seats, options)
    run = check_random_play(
        GAME, seats, options, seed, on_step=watcher, bot=BOTS[bot], codec_every=3
    )
    watcher.check_end(run.state)
    assert run.result.scores == run.state.banked
    assert run.result.turns == run.state.turns
    top = max(run.state.banked)
    assert top >= options.target
    assert run.result.winners == tuple(i for i, b in enumerate(run.state.banked) if b == top)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_default_two_seat_games_with_full_codec_checks(seed: int) -> None:
    options = TenThousandOptions()
    watcher = Watcher(2, options)
    run = check_random_play(GAME, 2, options, seed, on_step=watcher)
    watcher.check_end(run.state)


def test_bots_choose_a_legal_move_from_the_view_alone() -> None:
    """Bots given the same view and legal list choose the same legal move, whatever their rng."""
    state = GAME.start(2, TenThousandOptions())
    state = GAME.resolve(state, (1, 2, 2, 2, 4, 5))
    view = GAME.view(state, 0)
    legal = GAME.legal(state, 0)
    for factory in (HeuristicBot, ThresholdBot):
        picks = {factory(random.Random(s)).choose(view, legal) for s in range(5)}
        assert len(picks) == 1 and picks <= set(legal)
