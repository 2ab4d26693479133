"""Boatzee bots: ``greedy`` (best points this turn) and ``heuristic`` (points plus prospects).

Both plan each turn exactly (every re-roll choice by expectimax); they differ only in how
they value the final choice. The registry adds the ``random`` bot.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from dicehall.engine.bots import Bot, BotFactory
from dicehall.games.boatzee.card import Card
from dicehall.games.boatzee.evaluators import GREEDY, HEURISTIC, Valuation
from dicehall.games.boatzee.planner import TurnPlan
from dicehall.games.boatzee.rules import BoatzeeAction, BoatzeeOptions, BoatzeeView, Reroll, Score
from dicehall.games.boatzee.scoring import Box


class PlanningBot:
    """Plans each turn to maximise the expected change in ``valuation.value`` of its card."""

    def __init__(self, valuation: Valuation) -> None:
        self._valuation = valuation
        self._key: tuple[Card, BoatzeeOptions] | None = None
        self._choices: list[tuple[Box, int]] = []
        self._plan: TurnPlan | None = None

    def _plan_for(self, card: Card, options: BoatzeeOptions) -> TurnPlan:
        # The card is fixed for a whole turn: plan once, answer up to three decisions.
        if self._plan is None or self._key != (card, options):
            self._choices, values = self._valuation.choice_values(card, options.ruleset)
            self._plan = TurnPlan(values)
            self._key = (card, options)
        return self._plan

    def choose(self, view: BoatzeeView, legal: Sequence[BoatzeeAction]) -> BoatzeeAction:
        """The planned move for the seat's own card and dice."""
        if view.seat is None:
            raise ValueError("a bot needs its own seat's view")
        plan = self._plan_for(view.cards[view.seat], view.options)
        can_reroll = any(isinstance(action, Reroll) for action in legal)
        decision = plan.decide(view.dice, view.rerolls_left if can_reroll else 0)
        action: BoatzeeAction
        if decision.reroll:
            action = Reroll(decision.reroll)
        else:
            box, column = self._choices[decision.choice]
            action = Score(box, column)
        if action not in legal:  # pragma: no cover - the plan only uses the rules' choices
            raise RuntimeError(f"planned {action!r}, which the rules do not allow")
        return action


def greedy(rng: random.Random) -> Bot:
    """Best immediate points: re-rolls and scores to maximise this turn's points."""
    return PlanningBot(GREEDY)


def heuristic(rng: random.Random) -> Bot:
    """This turn's points plus the estimated worth of the boxes and bonuses left open."""
    return PlanningBot(HEURISTIC)


BOTS: dict[str, BotFactory] = {"greedy": greedy, "heuristic": heuristic}
