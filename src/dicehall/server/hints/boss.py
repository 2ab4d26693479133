"""Boss Dice hints: the Boss's call (come up or pick 'em up) and the opponent's keeps ranked.

Computed from the seat's own view only: the Boss sees his concealed dice, the opponent only
the Boss's kept dice (his concealed roll counts as unknown).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dicehall.games.boss import BossView
from dicehall.games.boss.odds import call_odds, format_odds, rank_keeps
from dicehall.server.hints import register

#: How many keeps the panel lists, best first.
TOP_KEEPS = 5


def boss_hint(view: BossView, legal: Sequence[Any]) -> dict[str, Any]:
    """The odds behind this seat's decision now, or a note when it has none to make."""
    seat, boss = view.seat, view.boss
    if seat is None or boss is None or not legal:
        return {"kind": "wait", "note": "No decision for you right now."}
    opponent_roll = view.first_rolls[1 - boss]
    if view.phase == "call" and seat == boss and view.concealed is not None:
        hand = (*view.boss_kept, *view.concealed)
        odds = call_odds(hand, view.boss_kept, opponent_roll)
        best = "come_up" if odds.should_come_up else "pick_up"
        return {
            "kind": "call",
            "come_up": odds.come_up.as_json(),
            "come_up_equity": float(odds.come_up.equity),
            "pick_up_equity": float(odds.pick_up),
            "reply": list(odds.reply.keep),
            "best": best,
        }
    if view.phase == "keep" and seat == 1 - boss:
        ranked = rank_keeps(view.first_rolls[seat], boss_kept=view.boss_kept)
        return {
            "kind": "keep",
            "keeps": [
                {
                    "keep": list(r.keep),
                    "rolled": r.rolled,
                    "equity": float(r.odds.equity),
                    "odds_against": format_odds(r.odds.odds_against),
                    **r.odds.as_json(),
                }
                for r in ranked[:TOP_KEEPS]
            ],
            "best": list(ranked[0].keep),
        }
    return {"kind": "wait", "note": "No decision for you right now."}


register("boss", boss_hint)
