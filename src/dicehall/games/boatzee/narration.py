"""Boatzee told in sentences (nothing is hidden): rolls, re-rolls, and each box scored with
the dice that filled it."""

from __future__ import annotations

from collections.abc import Sequence

from dicehall.engine.events import Acted
from dicehall.games.boatzee.rules import BoatzeeView, Reroll, Score
from dicehall.games.boatzee.scoring import BOX_INDEX, TITLES
from dicehall.games.narration import Line, SeenEvent, counted, does, faces


def narrate(
    before: BoatzeeView, event: SeenEvent, after: BoatzeeView, names: Sequence[str]
) -> list[Line]:
    """What one event did, for any watcher."""
    seat = before.current
    name = names[seat]
    if isinstance(event, Acted):
        action = event.action
        if isinstance(action, Reroll):
            kept = [d for i, d in enumerate(before.dice) if i not in action.positions]
            keeping = f", keeping {faces(kept, ' ')}" if kept else ""
            text = f"{does(name, 're-rolls')} {counted(len(action.positions), 'die')}{keeping}."
            return [Line(text, seat)]
        if isinstance(action, Score):
            k = action.column - 1
            old, new = before.sheets[seat], after.sheets[seat]
            points = new.boxes[k][BOX_INDEX[action.box]] or 0
            notes = []
            if new.upper_bonus[k] > old.upper_bonus[k]:
                notes.append(f"+{new.upper_bonus[k]} upper bonus")
            if new.extra_bonus > old.extra_bonus:
                notes.append(f"+{new.extra_bonus - old.extra_bonus} Boatzee bonus")
            more = f" ({', '.join(notes)})" if notes else ""
            where = TITLES[action.box] + (
                f" (column {action.column})" if len(new.boxes) > 1 else ""
            )
            text = (
                f"{does(name, 'scores')} {points} in {where} with {faces(before.dice, ' ')}{more}; "
                f"total {after.totals[seat]}."
            )
            return [Line(text, seat, before.dice)]
        return []
    verb = "rolls" if not before.rerolling else "re-rolls to"
    return [Line(f"{does(name, verb)} {faces(after.dice, ' ')}.", seat, after.dice)]
