"""Boss Dice hints: the Boss's call (come up or pick 'em up) and the opponent's keeps ranked.

Computed from the seat's own view only: the Boss sees his concealed dice, the opponent only
the Boss's kept dice (his concealed roll counts as unknown).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dicehall.games.boss import BossView
from dicehall.games.boss.odds import call_odds, format_odds, rank_keeps
from dicehall.games.hint_basis import with_basis

#: How many keeps the panel lists, best first.
TOP_KEEPS = 5

#: The odds are counted over every roll (``dicehall.games.boss.odds``): always exact.
CALL_BASIS = "Exact: every roll counted, against the opponent's best reply."
KEEP_BASIS = "Exact: every roll counted, the Boss's concealed dice unknown to you."
#: ``dicehall hint boss --boss HAND``: against a hand the player states (never on the site).
STATED_BASIS = "Exact: every roll counted, against the Boss's stated hand."


def seat_hint(view: BossView, legal: Sequence[Any]) -> dict[str, Any]:
    """The odds behind this seat's decision now, or a note when it has none to make."""
    seat, boss = view.seat, view.boss
    if seat is None or boss is None or not legal:
        return {"kind": "wait", "note": "No decision for you right now."}
    opponent_roll = view.first_rolls[1 - boss]
    if view.phase == "call" and seat == boss and view.concealed is not None:
        hand = (*view.boss_kept, *view.concealed)
        odds = call_odds(hand, view.boss_kept, opponent_roll)
        best = "come_up" if odds.should_come_up else "pick_up"
        call = {
            "kind": "call",
            "come_up": odds.come_up.as_json(),
            "come_up_equity": float(odds.come_up.equity),
            "pick_up_equity": float(odds.pick_up),
            "reply": list(odds.reply.keep),
            "best": best,
        }
        return with_basis(call, "exact", CALL_BASIS)
    if view.phase == "keep" and seat == 1 - boss:
        ranked = rank_keeps(view.first_rolls[seat], boss_kept=view.boss_kept)
        keep = {
            "kind": "keep",
            "keeps": [
                {
                    "keep": list(r.keep),
                    "rolled": r.rolled,
                    "equity": float(r.odds.equity),
                    **r.odds.as_json(),
                    # For people: "2.47 to 1" (the number itself is ``odds_against``).
                    "odds_against_text": format_odds(r.odds.odds_against),
                }
                for r in ranked[:TOP_KEEPS]
            ],
            "best": list(ranked[0].keep),
        }
        return with_basis(keep, "exact", KEEP_BASIS)
    return {"kind": "wait", "note": "No decision for you right now."}
