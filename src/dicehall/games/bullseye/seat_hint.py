"""Bull's Eye hints: stop or throw on, by exact expected points (optimal stopping)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dicehall.games.bullseye.model import BullseyeView
from dicehall.games.bullseye.stopping import hint
from dicehall.games.hint_basis import with_basis

#: Optimal stopping is solved exactly (``dicehall.games.bullseye.stopping``).
BASIS = "Exact: this round's expected points under best play, every throw to come counted."


def seat_hint(view: BullseyeView, legal: Sequence[Any]) -> dict[str, Any]:
    """This round's expected points (the seat's round score) if it stops and if it throws on,
    for the seat to throw; else a note."""
    rnd = view.round
    seat = view.seat
    if seat is None or rnd is None or not legal or rnd.thrower != seat:
        return {"kind": "wait", "note": "No decision for you right now."}
    if seat == rnd.lead:
        return {
            "kind": "lead",
            "note": "As the lead you take all three throws: they set the Bull's Eye.",
            "target": rnd.target,
        }
    total = rnd.totals[seat] or 0
    throws = len(rnd.counted[seat])
    got = hint(rnd.target, total, throws)
    choice = {
        "kind": "choice",
        "target": rnd.target,
        "total": total,
        "throws": throws,
        "stop": None if got.stop is None else float(got.stop),
        "throw": None if got.throw is None else float(got.throw),
        "best": got.best,
    }
    return with_basis(choice, "exact", BASIS)
