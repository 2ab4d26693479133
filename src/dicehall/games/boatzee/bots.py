"""Boatzee bots: ``greedy``, ``heuristic``, ``optimal``, ``strong`` and ``winmax``.

All of them plan each turn exactly (every re-roll choice by expectimax); they differ only in
how they value the final choice. ``greedy`` takes the best points now, ``heuristic`` adds
estimated prospects, and ``optimal`` and ``strong`` add what the solved tables expect of the
rest of the game (see :mod:`valuation`): exactly optimal play with one column, the
per-column decomposition with two or three. ``winmax`` values it by the chance to finish
ahead of the other cards (:mod:`winmax`). The registry adds the ``random`` bot.
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Sequence
from typing import Protocol

from dicehall.engine.bots import Bot
from dicehall.games.boatzee.card import Card, Joker, Ruleset
from dicehall.games.boatzee.dice_tables import FloatArray, sub_keeps
from dicehall.games.boatzee.evaluators import GREEDY, HEURISTIC
from dicehall.games.boatzee.planner import Decision, TurnPlan
from dicehall.games.boatzee.rules import BoatzeeAction, BoatzeeOptions, BoatzeeView, Reroll, Score
from dicehall.games.boatzee.scoring import HAND_INDEX, Box, hand_of
from dicehall.games.boatzee.valuation import for_game


class ChoiceValuer(Protocol):
    """Values every final choice of a turn: ``values[hand, choice]`` (``-inf``: not allowed)."""

    def choice_values(
        self, card: Card, ruleset: Ruleset, joker: Joker = "forced"
    ) -> tuple[list[tuple[Box, int]], FloatArray]:
        """Every open (box, column) and the value of scoring each hand there."""
        ...


class PlanningBot:
    """Plans each turn to maximise the expected value of its final choice."""

    def __init__(self, valuation: ChoiceValuer) -> None:
        self._valuation = valuation
        self._key: Hashable = None
        self._choices: list[tuple[Box, int]] = []
        self._plan: TurnPlan | None = None

    def valuation_for(self, options: BoatzeeOptions) -> ChoiceValuer:
        """How this bot values final choices in a game with these options."""
        return self._valuation

    def valuation_in(self, view: BoatzeeView) -> ChoiceValuer:
        """How this bot values final choices at this turn (by default: by the options)."""
        return self.valuation_for(view.options)

    def plan_key(self, view: BoatzeeView) -> Hashable:
        """What a turn's plan depends on: the seat's card and the options (by default)."""
        return (view.cards[view.seat or 0], view.options)

    def _plan_for(self, view: BoatzeeView) -> TurnPlan:
        # The plan is fixed for a whole turn: plan once, answer up to three decisions.
        key = self.plan_key(view)
        if self._plan is None or self._key != key:
            options = view.options
            card = view.cards[view.seat or 0]
            valuation = self.valuation_in(view)
            self._choices, values = valuation.choice_values(card, options.ruleset, options.joker)
            self._plan = TurnPlan(values)
            self._key = key
        return self._plan

    def decide(self, plan: TurnPlan, dice: tuple[int, ...], rerolls_left: int) -> Decision:
        """The plan's best move for ``dice`` with ``rerolls_left`` re-rolls left."""
        return plan.decide(dice, rerolls_left)

    def choose(self, view: BoatzeeView, legal: Sequence[BoatzeeAction]) -> BoatzeeAction:
        """The planned move for the seat's own card and dice."""
        if view.seat is None:
            raise ValueError("a bot needs its own seat's view")
        plan = self._plan_for(view)
        can_reroll = any(isinstance(action, Reroll) for action in legal)
        decision = self.decide(plan, view.dice, view.rerolls_left if can_reroll else 0)
        action: BoatzeeAction
        if decision.reroll:
            action = Reroll(decision.reroll)
        else:
            box, column = self._choices[decision.choice]
            action = Score(box, column)
        for move in legal:  # the legal move itself, with the figures the rules give it
            if move == action:
                return move
        raise RuntimeError(  # pragma: no cover - the plan only uses the rules' choices
            f"planned {action!r}, which the rules do not allow"
        )


class TableBot(PlanningBot):
    """Values final choices by the solved tables (solved on first use, then cached)."""

    def __init__(self) -> None:
        super().__init__(GREEDY)
        self._tables: dict[tuple[int, Ruleset, Joker], ChoiceValuer] = {}

    def decide(self, plan: TurnPlan, dice: tuple[int, ...], rerolls_left: int) -> Decision:
        """As :meth:`TurnPlan.decide`, with every keep of the sorted hand valued at once."""
        hand = HAND_INDEX[hand_of(dice)]
        stop = float(plan.stop[hand])
        if rerolls_left <= 0:
            return Decision((), int(plan.best_choice[hand]), stop)
        # sub_keeps()[hand, m]: the keep holding bits m of the *sorted* hand; 31 holds all.
        values = plan.keep_value[min(rerolls_left, 2) - 1][sub_keeps()[hand, :31]]
        best = int(values.argmax())
        if values[best] <= stop + 1e-9:  # re-roll only for a real gain, as the plan does
            return Decision((), int(plan.best_choice[hand]), stop)
        order = sorted(range(len(dice)), key=dice.__getitem__)
        positions = tuple(sorted(order[i] for i in range(len(dice)) if not best >> i & 1))
        return Decision(positions, -1, float(values[best]))

    def valuation_for(self, options: BoatzeeOptions) -> ChoiceValuer:
        key = (options.columns, options.ruleset, options.joker)
        if key not in self._tables:
            if options.columns > 1 and options.ruleset == "boatzee":
                from dicehall.games.boatzee.flexible import for_columns

                self._tables[key] = for_columns(options.columns)
            else:
                self._tables[key] = for_game(options.columns, options.ruleset, joker=options.joker)
        return self._tables[key]


class WinMaxBot(TableBot):
    """In one-column boatzee-ruleset games with rivals, plans each turn for the chance to
    end ahead of them (:mod:`winmax`); elsewhere plays as ``optimal``."""

    @staticmethod
    def _for_winning(view: BoatzeeView) -> bool:
        options = view.options
        return options.columns == 1 and options.ruleset == "boatzee" and len(view.cards) > 1

    @staticmethod
    def _rivals(view: BoatzeeView) -> tuple[Card, ...]:
        return tuple(card for seat, card in enumerate(view.cards) if seat != view.seat)

    def plan_key(self, view: BoatzeeView) -> Hashable:
        if not self._for_winning(view):
            return super().plan_key(view)
        return (view.cards[view.seat or 0], self._rivals(view), view.options)

    def valuation_in(self, view: BoatzeeView) -> ChoiceValuer:
        if not self._for_winning(view):
            return super().valuation_in(view)
        from dicehall.games.boatzee.final_scores import final_scores
        from dicehall.games.boatzee.winmax import WinValuation

        return WinValuation(final_scores(), self._rivals(view))


def greedy(rng: random.Random) -> Bot:
    """Best immediate points: re-rolls and scores to maximise this turn's points."""
    return PlanningBot(GREEDY)


def heuristic(rng: random.Random) -> Bot:
    """This turn's points plus the estimated worth of the boxes and bonuses left open."""
    return PlanningBot(HEURISTIC)


def optimal(rng: random.Random) -> Bot:
    """Optimal solitaire play (maximum expected score); as ``strong`` with several columns."""
    return TableBot()


def strong(rng: random.Random) -> Bot:
    """Optimal with one column. In Double and Triple each turn is planned exactly over the
    columns' values: the relaxed tables of columns that may wait for their rolls
    (:mod:`flexible`) in the boatzee ruleset, the solitaire tables one per column in the
    yahtzee ruleset."""
    return TableBot()


def winmax(rng: random.Random) -> Bot:
    """One column against rivals: the highest chance to finish ahead, each rival assumed
    to play ``optimal`` (see :mod:`winmax`); otherwise as ``optimal``."""
    return WinMaxBot()
