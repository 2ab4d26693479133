"""Boss Dice told in sentences, from the watcher's views only: the concealed roll is named
only to the Boss, and to everyone once it is shown down."""

from __future__ import annotations

from collections.abc import Sequence

from dicehall.engine.events import Acted
from dicehall.games.boss.hands import describe, first_roll_rank, showdown_rank
from dicehall.games.boss.rules import BossView, ComeUp, HandRecord, Keep, NoBoss, PickUp, Showdown
from dicehall.games.narration import Line, SeenEvent, counted, does, faces


def hand_order(dice: Sequence[int]) -> tuple[int, ...]:
    """Dice the way players call a hand: biggest group first, high faces first (6 6 4 4 1)."""
    return tuple(sorted(dice, key=lambda d: (-list(dice).count(d), -d)))


def _first(name: str, seat: int, dice: Sequence[int]) -> Line:
    text = f"{does(name, 'rolls')} {faces(dice, ' ')} ({describe(first_roll_rank(dice))})."
    return Line(text, seat, tuple(dice))


def narrate(
    before: BossView, event: SeenEvent, after: BossView, names: Sequence[str]
) -> list[Line]:
    """What one event did, as the watcher of ``before`` and ``after`` may know it."""
    lines: list[Line] = []
    if isinstance(event, Acted):
        name = names[event.seat]
        if isinstance(event.action, ComeUp):
            lines.append(Line(f'{does(name, "calls")} "Come up!"', event.seat))
        elif isinstance(event.action, PickUp):
            lines.append(
                Line(f'{does(name, "says")} "Pick \'em up." The hand starts over.', event.seat)
            )
        elif isinstance(event.action, Keep):
            kept = event.action.dice
            count = 5 - len(kept)
            what = faces(kept, " ") if kept else "nothing"
            rolling = f"rolling {counted(count, 'die')}" if count else "rolling none"
            lines.append(Line(f"{does(name, 'keeps')} {what}, {rolling}.", event.seat, kept))
    elif len(after.first_rolls) > len(before.first_rolls):
        seat = len(after.first_rolls) - 1
        lines.append(_first(names[seat], seat, after.first_rolls[seat]))
    if after.boss is not None and before.boss is None:
        boss = after.boss
        kept = hand_order(after.boss_kept)
        text = f"{does(names[boss], 'is')} the Boss, keeping {faces(kept, ' ')}."
        lines.append(Line(text, boss, kept))
    if before.phase == "boss_roll" and after.phase == "call" and after.boss is not None:
        boss = after.boss
        if not after.concealed_count:
            # A full house or five of a kind: the Boss keeps all five and rolls nothing.
            text = f"{does(names[boss], 'rolls')} nothing under the cup: all five dice are kept."
            lines.append(Line(text, boss))
        elif after.concealed is not None:
            text = f"{does(names[boss], 'rolls')} {faces(after.concealed, ' ')} under the cup."
            lines.append(Line(text, boss, after.concealed))
        else:
            hidden = counted(after.concealed_count, "die")
            lines.append(Line(f"{does(names[boss], 'rolls')} {hidden} under the cup.", boss))
    for record in after.history[len(before.history) :]:
        lines.extend(_record(record, after, names))
    return lines


def _record(record: HandRecord, after: BossView, names: Sequence[str]) -> list[Line]:
    if isinstance(record, NoBoss):
        # The second first roll made no Boss: it is told here, the table already cleared.
        lines = [_first(names[1], 1, record.first_rolls[1])]
        lines.append(Line("No Boss (no pair for either, or equal first rolls): both roll again."))
        return lines
    if not isinstance(record, Showdown):
        return []  # a pick-up was told as the call itself; the concealed dice stay unseen
    boss, opponent = record.boss, 1 - record.boss
    lines = [
        Line(
            f"Showdown: {names[boss]} (the Boss) {faces(hand_order(record.boss_hand), ' ')}, "
            f"{describe(showdown_rank(record.boss_hand))}.",
            boss,
            hand_order(record.boss_hand),
        ),
        Line(
            f"Showdown: {names[opponent]} {faces(hand_order(record.opponent_hand), ' ')}, "
            f"{describe(showdown_rank(record.opponent_hand))}.",
            opponent,
            hand_order(record.opponent_hand),
        ),
    ]
    if record.winner is None:
        lines.append(Line("A push: equal hands, no horse. The hand is replayed."))
    else:
        score = ", ".join(f"{names[s]} {after.horses[s]}" for s in (0, 1))
        winner = record.winner
        lines.append(Line(f"{does(names[winner], 'takes')} a horse. Horses: {score}.", winner))
    return lines
