"""Ten Thousand hints: the best set-aside, then bank or roll on, from the seat's view only.

Values come from the exact single-turn tables of :mod:`dicehall.games.tenthousand.strategy`:
the points the turn is expected to bank under best play from here (they ignore the score of
the game, so near the end, or in the final round, the chance to win may say otherwise).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dicehall.games.hint_basis import Basis, with_basis
from dicehall.games.tenthousand.rules import DICE, Bank, RollOn, SetAside, TenThousandView
from dicehall.games.tenthousand.strategy import turn_tables

SHOWN = 5
NOTE = (
    "Values are the points this turn is expected to bank under best play, the turn's points "
    "so far included (exact single-turn tables); they do not weigh the score of the game or "
    "the final round."
)

#: Always exact (the single-turn tables take well under a second to build), but exact about
#: the turn's points, not the chance to win the game.
BASIS: tuple[Basis, str] = (
    "exact",
    "Exact: the points this turn is expected to bank under best play (single-turn tables, "
    "not the chance to win the game).",
)


def _dice(n: int) -> str:
    return f"{n} {'die' if n == 1 else 'dice'}"


def seat_hint(view: TenThousandView, legal: Sequence[Any]) -> dict[str, Any]:
    """The set-asides ranked by expected banked points, or the bank / roll-on decision."""
    state = view.state
    seat = view.seat
    if seat is None or not legal or seat != state.current:
        return {"summary": "Hints appear here on your turn.", "choices": []}
    options = state.options
    tables = turn_tables(options.entry_threshold, options.four_and_pair_is_three_pairs)
    entered = state.banked[seat] > 0
    choices: list[dict[str, Any]] = []
    if state.phase == "set_aside":
        for action in legal:
            if not isinstance(action, SetAside):
                continue
            left = state.in_hand - len(action.dice) or DICE
            after = state.turn_total + action.points
            value = tables.after_set_aside(left, after, entered)
            then = "bank" if tables.should_bank(left, after, entered) else f"roll {_dice(left)}"
            faces = " ".join(map(str, action.dice))
            choices.append(
                {
                    "keep": list(action.dice),
                    "points": action.points,
                    "then": then,
                    "value": value,
                    "text": f"Set aside {faces} ({action.points}), then {then}: expect {value:.0f}",
                }
            )
    elif state.phase == "choose":
        rolling = tables.expected_if_rolling(state.in_hand, state.turn_total, entered)
        if any(isinstance(a, Bank) for a in legal):
            choices.append(
                {
                    "then": "bank",
                    "value": float(state.turn_total),
                    "text": f"Bank {state.turn_total} now",
                }
            )
        if any(isinstance(a, RollOn) for a in legal):
            choices.append(
                {
                    "then": "roll",
                    "value": rolling,
                    "text": f"Roll {_dice(state.in_hand)} on: expect {rolling:.0f}",
                }
            )
    if not choices:
        return {"summary": "Nothing to decide right now.", "choices": []}
    choices.sort(key=lambda c: -float(c["value"]))
    hint = {"summary": f"Best: {choices[0]['text']}.", "choices": choices[:SHOWN], "note": NOTE}
    return with_basis(hint, *BASIS)
