"""Ten Thousand bots: ``heuristic`` (fixed bank thresholds), ``threshold`` alias
``max_expected`` (exact play for the most points per turn) and ``optimal`` (exact play for the
best chance to win).

All see only their seat's view and the legal actions. ``heuristic`` and ``threshold`` share
the end-game rules: on a last turn of the final round, bank as soon as the total beats every
other seat (and roll on until then); otherwise bank whenever banking reaches the target.
``optimal`` needs no such rules: its tables know the end game.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import lru_cache

from dicehall.games.tenthousand.cache import Solution, SolveKey, solution
from dicehall.games.tenthousand.plans import TurnPlan
from dicehall.games.tenthousand.rules import (
    DICE,
    Bank,
    RollOn,
    SetAside,
    TenThousandAction,
    TenThousandState,
    TenThousandView,
)
from dicehall.games.tenthousand.strategy import turn_tables

#: The heuristic bot banks once the turn total reaches this, by dice left in hand.
HEURISTIC_BANK_AT = {1: 300, 2: 300, 3: 400, 4: 1000, 5: 3000}
#: The heuristic bot values each die left to roll at this many points when setting aside.
HEURISTIC_DIE_WORTH = 100


def end_game_bank(state: TenThousandState) -> bool | None:
    """The end-game decision to bank (True) or roll on (False), or None when it is not end game.

    On a last turn of the final round only a total above every other seat can win, so roll on
    until it is reached; a bank that reaches the target starts the final round, so take it.
    """
    me = state.current
    total = state.banked[me] + state.turn_total
    if state.final_trigger is not None:
        best_other = max((b for i, b in enumerate(state.banked) if i != me), default=0)
        return total > best_other
    if total >= state.options.target:
        return True
    return None


def _bank_or_roll(legal: Sequence[TenThousandAction], bank: bool) -> TenThousandAction:
    for action in legal:
        if isinstance(action, Bank if bank else RollOn):
            return action
    return legal[0]


class HeuristicBot:
    """A plain rule-of-thumb player.

    Set-aside: the one with the most points plus 100 for every die left to roll (hot dice
    count as six), so it keeps a lone 1 from 1,2,2,2,4,5 and rolls five dice. Bank: once the
    turn total reaches 300 with one or two dice left, 400 with three, 1000 with four, 3000 with
    five; with six dice (hot dice) it always rolls on. End game as in the module notes.
    """

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng
        self._picks: dict[tuple[tuple[int, ...], bool], SetAside] = {}

    def choose(
        self, view: TenThousandView, legal: Sequence[TenThousandAction]
    ) -> TenThousandAction:
        """Pick a set-aside, or bank or roll on."""
        state = view.state
        if state.phase == "set_aside":
            key = (state.dice, state.options.four_and_pair_is_three_pairs)
            pick = self._picks.get(key)
            if pick is None:
                pick = self._pick(state.in_hand, legal)
                self._picks[key] = pick
            return pick
        decision = end_game_bank(state)
        if decision is None:
            limit = HEURISTIC_BANK_AT.get(state.in_hand)
            decision = limit is not None and state.turn_total >= limit
        return _bank_or_roll(legal, decision)

    @staticmethod
    def _pick(in_hand: int, legal: Sequence[TenThousandAction]) -> SetAside:
        best: SetAside | None = None
        best_worth = -1
        for action in legal:
            if isinstance(action, SetAside):
                left = in_hand - len(action.dice) or DICE
                worth = action.points + HEURISTIC_DIE_WORTH * left
                if worth > best_worth:
                    best, best_worth = action, worth
        assert best is not None, "a set-aside phase always offers set-asides"
        return best


class ThresholdBot:
    """Plays each turn to maximise the points it expects to bank, from exact turn tables.

    Every set-aside and every bank-or-roll choice is the one with the highest expected banked
    points for the turn (see :mod:`dicehall.games.tenthousand.strategy`), respecting the entry
    threshold; end game as in the module notes.
    """

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng

    def choose(
        self, view: TenThousandView, legal: Sequence[TenThousandAction]
    ) -> TenThousandAction:
        """Pick a set-aside, or bank or roll on."""
        state = view.state
        options = state.options
        tables = turn_tables(options.entry_threshold, options.four_and_pair_is_three_pairs)
        entered = state.entered(state.current)
        if state.phase == "set_aside":
            best: TenThousandAction = legal[0]
            best_value = -1.0
            for action in legal:
                if isinstance(action, SetAside):
                    left = state.in_hand - len(action.dice) or DICE
                    total = state.turn_total + action.points
                    value = tables.after_set_aside(left, total, entered)
                    if value > best_value:
                        best, best_value = action, value
            return best
        decision = end_game_bank(state)
        if decision is None:
            decision = tables.should_bank(state.in_hand, state.turn_total, entered)
        return _bank_or_roll(legal, decision)


class OptimalBot:
    """Plays for the best chance to win, from the exact solution (:mod:`.duel`).

    With two seats every choice maximises its chance to win under best play by both seats
    (a shared win counting half). With more seats it plays the same tables against the
    leading other seat; on a last turn of the final round it plays to finish above the best
    other total. Alone it plays for the fewest expected turns to the target (:mod:`.solitaire`).
    The tables for the game's options are read from the cache, or solved on first use.
    """

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng

    def choose(
        self, view: TenThousandView, legal: Sequence[TenThousandAction]
    ) -> TenThousandAction:
        """Pick a set-aside, or bank or roll on."""
        state = view.state
        plan = optimal_plan(state)
        if state.phase == "set_aside":
            best: TenThousandAction = legal[0]
            best_value = -float("inf")
            for action in legal:
                if isinstance(action, SetAside):
                    left = state.in_hand - len(action.dice) or DICE
                    value = plan.after_set_aside(left, state.turn_total + action.points)
                    if value > best_value:
                        best, best_value = action, value
            return best
        bank = any(isinstance(a, Bank) for a in legal) and plan.should_bank(
            state.in_hand, state.turn_total
        )
        return _bank_or_roll(legal, bank)


def optimal_plan(state: TenThousandState) -> TurnPlan:
    """The solved turn of the seat to act (see :class:`OptimalBot` for more than two seats)."""
    solved = solution(SolveKey.of(state.options))
    me = state.current
    mine = state.banked[me]
    others = [b for i, b in enumerate(state.banked) if i != me]
    if not others:
        plan = _solitaire_plan(solved, mine)
    elif state.final_trigger is not None:
        plan = _last_turn_plan(solved, mine, max(others))
    else:
        plan = _duel_plan(solved, mine, max(others))
    if state.turn_total > plan.cap * 50:  # past the cap the plan banks; reach further
        if not others:
            return solved.solitaire.plan(mine, state.turn_total)
        if state.final_trigger is not None:
            return solved.duel.last_turn_plan(mine, max(others), state.turn_total)
        return solved.duel.plan(mine, max(others), state.turn_total)
    return plan


# A plan takes well under a millisecond to solve and is used for every choice of a turn;
# the caches keep the plans of recent positions (about 40 KB each).
@lru_cache(maxsize=1024)
def _duel_plan(solved: Solution, banked: int, opponent: int) -> TurnPlan:
    return solved.duel.plan(banked, opponent)


@lru_cache(maxsize=256)
def _last_turn_plan(solved: Solution, banked: int, to_beat: int) -> TurnPlan:
    return solved.duel.last_turn_plan(banked, to_beat)


@lru_cache(maxsize=256)
def _solitaire_plan(solved: Solution, banked: int) -> TurnPlan:
    return solved.solitaire.plan(banked)
