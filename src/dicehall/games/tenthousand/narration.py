"""Ten Thousand told in sentences (nothing is hidden): rolls, set-asides, banks, zero-outs,
the final round."""

from __future__ import annotations

from collections.abc import Sequence

from dicehall.engine.events import Acted
from dicehall.games.narration import Line, SeenEvent, agree, counted, does, faces
from dicehall.games.tenthousand.rules import Bank, RollOn, SetAside, TenThousandView


def cents(amount: int) -> str:
    """Money in the pot, counted in cents: "5¢", "$1.50"."""
    return f"{amount}¢" if amount < 100 else f"${amount // 100}.{amount % 100:02d}"


def narrate(
    before: TenThousandView, event: SeenEvent, after: TenThousandView, names: Sequence[str]
) -> list[Line]:
    """What one event did, for any watcher."""
    prior, now = before.state, after.state
    seat = prior.current
    name = names[seat]
    lines: list[Line] = []
    if isinstance(event, Acted):
        action = event.action
        if isinstance(action, SetAside):
            gained = now.turn_total - prior.turn_total
            text = f"{does(name, 'sets')} aside {faces(action.dice, ' ')} for {gained}"
            lines.append(Line(f"{text}: turn total {now.turn_total}.", seat, action.dice))
            if now.hot_dice:
                lines.append(Line("Hot dice: all six may be rolled again.", seat))
        elif isinstance(action, Bank):
            lines.append(
                Line(
                    f"{does(name, 'banks')} {prior.turn_total}: total {now.banked[seat]:,}.",
                    seat,
                )
            )
        elif isinstance(action, RollOn):
            lines.append(
                Line(f"{does(name, 'rolls')} on with {counted(prior.in_hand, 'die')}.", seat)
            )
    else:
        zeroed = now.turns > prior.turns and now.last is not None and now.last.zeroed
        rolled = now.last.zero_roll if zeroed and now.last is not None else now.dice
        lines.append(Line(f"{does(name, 'rolls')} {faces(rolled, ' ')}.", seat, rolled))
        if zeroed and now.last is not None:
            last = now.last
            costs = []
            if last.lost:
                costs.append(f"{agree(name, 'loses')} {last.lost} points")
            if last.penalty:
                costs.append(f"{agree(name, 'pays')} {cents(last.penalty)} into the pot")
            cost = f": {name} {' and '.join(costs)}" if costs else ""
            lines.append(Line(f"Nothing scores, so the turn is zeroed out{cost}.", seat))
    if prior.final_trigger is None and now.final_trigger is not None:
        others = (
            "the game is over" if now.phase == "over" else "every other player gets one more turn"
        )
        trigger = names[now.final_trigger]
        lines.append(
            Line(f"{does(trigger, 'reaches')} {now.options.target:,}: {others}.", now.final_trigger)
        )
    return lines
