"""Ten Thousand bots: their stated policies, the end game, and their strength."""

from __future__ import annotations

import random
from dataclasses import replace

from dicehall import games
from dicehall.engine import Seeded, play_out
from dicehall.games.tenthousand import (
    BOTS,
    GAME,
    Bank,
    RollOn,
    SetAside,
    TenThousandOptions,
    TenThousandState,
)
from dicehall.games.tenthousand.bots import HeuristicBot, ThresholdBot


def rolled(dice: tuple[int, ...], **changes: object) -> TenThousandState:
    """Seat 1 of two has just rolled ``dice`` (after ``changes`` to the fresh state)."""
    state = replace(GAME.start(2, TenThousandOptions()), **changes)  # type: ignore[arg-type]
    return GAME.resolve(state, dice)


def choosing(**changes: object) -> TenThousandState:
    """Seat 1 of two must bank or roll on."""
    state = GAME.start(2, TenThousandOptions())
    return replace(state, phase="choose", **changes)  # type: ignore[arg-type]


def pick(bot: HeuristicBot | ThresholdBot, state: TenThousandState) -> object:
    return bot.choose(GAME.view(state, state.current), GAME.legal(state, state.current))


def test_registry_offers_every_bot_and_random() -> None:
    assert set(BOTS) == {"heuristic", "threshold", "max_expected", "optimal"}
    assert BOTS["max_expected"] is ThresholdBot  # the name for the threshold policy
    assert {"heuristic", "threshold", "random"} <= set(games.get("tenthousand").bots)


def test_heuristic_set_aside_rule() -> None:
    bot = HeuristicBot(random.Random(0))
    assert pick(bot, rolled((1, 2, 2, 2, 4, 5))) == SetAside((1,))  # 100 + 5 dice left
    assert pick(bot, rolled((1, 1, 1, 5, 3, 3))) == SetAside((1, 1, 1))  # 1000 + 3 dice left
    assert pick(bot, rolled((2, 2, 3, 3, 6, 6))) == SetAside((2, 2, 3, 3, 6, 6))  # hot dice
    assert pick(bot, rolled((5, 5), in_hand=2)) == SetAside((5, 5))  # hot dice beat one 5


def test_heuristic_banks_by_dice_left() -> None:
    bot = HeuristicBot(random.Random(0))
    entered = (2000, 0)
    assert pick(bot, choosing(banked=entered, in_hand=1, turn_total=300)) == Bank()
    assert pick(bot, choosing(banked=entered, in_hand=1, turn_total=250)) == RollOn()
    assert pick(bot, choosing(banked=entered, in_hand=3, turn_total=400)) == Bank()
    assert pick(bot, choosing(banked=entered, in_hand=4, turn_total=950)) == RollOn()
    assert pick(bot, choosing(banked=entered, in_hand=5, turn_total=3000)) == Bank()
    assert pick(bot, choosing(banked=entered, in_hand=6, turn_total=5000)) == RollOn()
    # Not yet in: banking is not legal below 1000, so it rolls on.
    assert pick(bot, choosing(in_hand=1, turn_total=900)) == RollOn()
    assert pick(bot, choosing(in_hand=1, turn_total=1000)) == Bank()


def test_end_game_rules_for_both_bots() -> None:
    for bot in (HeuristicBot(random.Random(0)), ThresholdBot(random.Random(0))):
        # Banking reaches the target: take it even with six dice to roll.
        assert pick(bot, choosing(banked=(9500, 0), in_hand=6, turn_total=500)) == Bank()
        # Last turn of the final round: roll on until ahead, then bank.
        final = {"final_trigger": 1, "final_left": 1}
        tied = choosing(banked=(9000, 10_200), in_hand=1, turn_total=1200, **final)
        assert pick(bot, tied) == RollOn()
        ahead = choosing(banked=(9000, 10_200), in_hand=1, turn_total=1250, **final)
        assert pick(bot, ahead) == Bank()


def test_threshold_bot_follows_the_tables() -> None:
    bot = ThresholdBot(random.Random(0))
    entered = (2000, 0)
    assert pick(bot, choosing(banked=entered, in_hand=1, turn_total=300)) == Bank()
    assert pick(bot, choosing(banked=entered, in_hand=1, turn_total=250)) == RollOn()
    assert pick(bot, choosing(banked=entered, in_hand=6, turn_total=3000)) == RollOn()
    assert pick(bot, rolled((1, 2, 2, 2, 4, 5), banked=entered)) in GAME.legal(
        rolled((1, 2, 2, 2, 4, 5)), 0
    )


def _share(first: str, second: str, games_count: int, seed: int) -> float:
    """Seat-balanced win share of ``first`` against ``second``."""
    entry = games.get("tenthousand")
    wins = 0.0
    for g in range(games_count):
        names = [first, second] if g % 2 == 0 else [second, first]
        rng = random.Random(seed * 100_000 + g)
        bots = [entry.bot(n, random.Random(rng.getrandbits(32))) for n in names]
        _, result, _ = play_out(
            GAME, 2, TenThousandOptions(), bots, Seeded(rng.getrandbits(32)), record=False
        )
        me = 0 if g % 2 == 0 else 1
        if me in result.winners:
            wins += 1 / len(result.winners)
    return wins / games_count


def test_heuristic_crushes_random() -> None:
    assert _share("heuristic", "random", 60, seed=1) > 0.95


def test_threshold_beats_heuristic() -> None:
    assert _share("threshold", "heuristic", 600, seed=2) > 0.52
