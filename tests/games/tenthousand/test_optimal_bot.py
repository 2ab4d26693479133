"""The ``optimal`` bot: it plays its tables, knows the end game, and wins more than the others.

Small targets keep every solve to a second or two; the default rules are solved in the
benchmark, never here.
"""

from __future__ import annotations

import random
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from dicehall import games
from dicehall.engine import Seeded, play_out
from dicehall.engine.harness import check_random_play
from dicehall.games.tenthousand import (
    GAME,
    Bank,
    RollOn,
    SetAside,
    TenThousandAction,
    TenThousandOptions,
    TenThousandState,
)
from dicehall.games.tenthousand.bots import OptimalBot, ThresholdBot, optimal_plan
from dicehall.games.tenthousand.cache import SolveKey, solution

SMALL = TenThousandOptions(target=1500, entry_threshold=500)


def position(options: TenThousandOptions = SMALL, **changes: object) -> TenThousandState:
    """Seat 1 of two to act, after ``changes`` to a fresh state."""
    return replace(GAME.start(2, options), **changes)  # type: ignore[arg-type]


def pick(bot: OptimalBot | ThresholdBot, state: TenThousandState) -> TenThousandAction:
    action: TenThousandAction = bot.choose(
        GAME.view(state, state.current), GAME.legal(state, state.current)
    )
    return action


def test_set_aside_is_the_one_the_tables_value_most() -> None:
    bot = OptimalBot(random.Random(0))
    state = GAME.resolve(position(banked=(300, 700)), (1, 2, 2, 2, 4, 5))
    plan = solution(SolveKey.of(SMALL)).duel.plan(300, 700)
    values = {
        a: plan.after_set_aside(6 - len(a.dice) or 6, a.points)
        for a in GAME.legal(state, 0)
        if isinstance(a, SetAside)
    }
    chosen = pick(bot, state)
    assert chosen in values
    assert values[chosen] == max(values.values())


def test_bank_or_roll_follows_the_tables() -> None:
    bot = OptimalBot(random.Random(0))
    plan = solution(SolveKey.of(SMALL)).duel.plan(300, 700)
    for in_hand in range(1, 7):
        for total in (50, 200, 400, 600, 900):
            state = position(banked=(300, 700), phase="choose", in_hand=in_hand, turn_total=total)
            expected = Bank() if plan.should_bank(in_hand, total) else RollOn()
            assert pick(bot, state) == expected
    # Not in yet: below the entry threshold banking is not allowed, so it rolls on.
    assert pick(bot, position(phase="choose", in_hand=1, turn_total=450)) == RollOn()


def test_rolls_on_past_the_target_when_the_lead_is_too_thin() -> None:
    # Banking 1550 against 1450 leaves the opponent a last turn needing 150: almost sure.
    # Six hot dice are worth rolling for a bigger lead; the threshold bot banks anyway.
    state = position(banked=(1200, 1450), phase="choose", in_hand=6, turn_total=350)
    assert pick(OptimalBot(random.Random(0)), state) == RollOn()
    assert pick(ThresholdBot(random.Random(0)), state) == Bank()
    # With a wide lead it banks.
    wide = position(banked=(1200, 50), phase="choose", in_hand=1, turn_total=350)
    assert pick(OptimalBot(random.Random(0)), wide) == Bank()


def test_last_turn_of_the_final_round() -> None:
    bot = OptimalBot(random.Random(0))

    def last(in_hand: int, total: int) -> TenThousandState:
        return position(
            final_trigger=1,
            final_left=1,
            phase="choose",
            banked=(900, 1600),
            in_hand=in_hand,
            turn_total=total,
        )

    assert pick(bot, last(1, 650)) == RollOn()  # behind
    assert pick(bot, last(1, 750)) == Bank()  # ahead
    assert pick(bot, last(1, 700)) == Bank()  # level: a sure 1/2 beats 1/3
    assert pick(bot, last(6, 700)) == RollOn()  # six dice score 98% of the time


def test_more_than_two_seats_play_against_the_leader() -> None:
    state = replace(GAME.start(3, SMALL), banked=(300, 100, 700), phase="choose")
    state = replace(state, in_hand=2, turn_total=400)
    plan = solution(SolveKey.of(SMALL)).duel.plan(300, 700)
    assert optimal_plan(state).start == plan.start
    expected = Bank() if plan.should_bank(2, 400) else RollOn()
    assert pick(OptimalBot(random.Random(0)), state) == expected


@settings(max_examples=8, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    seats=st.integers(1, 3),
    target=st.sampled_from([300, 1000]),
    entry=st.sampled_from([0, 300]),
)
def test_optimal_bot_plays_legal_games_to_the_end(
    seed: int, seats: int, target: int, entry: int
) -> None:
    options = TenThousandOptions(target=target, entry_threshold=entry)
    played = check_random_play(GAME, seats, options, seed, bot=OptimalBot, codec_every=5)
    assert max(played.state.banked) >= target


def _first_seat_share(names: tuple[str, str], options: TenThousandOptions, n: int) -> float:
    entry = games.get("tenthousand")
    total = 0.0
    for g in range(n):
        rng = random.Random(g)
        bots = [entry.bot(name, random.Random(rng.getrandbits(32))) for name in names]
        _, result, _ = play_out(GAME, 2, options, bots, Seeded(rng.getrandbits(32)), record=False)
        total += 1 / len(result.winners) if 0 in result.winners else 0.0
    return total / n


def test_simulated_games_between_optimal_bots_match_the_first_seat_figure() -> None:
    options = TenThousandOptions(target=500, entry_threshold=0)
    exact = solution(SolveKey.of(options)).duel.first_seat_win
    games_count = 3000
    share = _first_seat_share(("optimal", "optimal"), options, games_count)
    assert abs(share - exact) < 4 * (exact * (1 - exact) / games_count) ** 0.5


def test_alone_it_needs_the_expected_number_of_turns() -> None:
    options = TenThousandOptions(target=1000, entry_threshold=300)
    expected = solution(SolveKey.of(options)).solitaire.turns_to_target()
    turns = []
    for g in range(2000):
        bot = OptimalBot(random.Random(g))
        _, result, _ = play_out(GAME, 1, options, [bot], Seeded(g), record=False)
        turns.append(result.turns)
    mean = sum(turns) / len(turns)
    sd = (sum((t - mean) ** 2 for t in turns) / (len(turns) - 1)) ** 0.5
    assert abs(mean - expected) < 4 * sd / len(turns) ** 0.5


def test_optimal_beats_heuristic_and_max_expected() -> None:
    options = TenThousandOptions(target=2000, entry_threshold=500)
    for other in ("heuristic", "max_expected"):
        first = _first_seat_share(("optimal", other), options, 300)
        second = 1 - _first_seat_share((other, "optimal"), options, 300)
        assert (first + second) / 2 > 0.5, other
