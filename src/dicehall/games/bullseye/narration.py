"""Bull's Eye told in sentences (nothing is hidden): throws for the lead, throws and the
matching rule, bets, stops, and each round's end with where every chip of its pot went,
the odd chips of a split included (RULES.md: carried over; after the last round, to the
game's winners, the remainder to the first winner left of the last lead)."""

from __future__ import annotations

from collections.abc import Sequence

from dicehall.engine.events import Acted, Resolved
from dicehall.games.bullseye.model import BullseyeView, RoundSummary, RoundView, Stop, ThrowOn
from dicehall.games.bullseye.rules import throwing_order
from dicehall.games.bullseye.scoring import THROWS
from dicehall.games.narration import Line, SeenEvent, counted, does, faces, listing


def narrate(
    before: BullseyeView, event: SeenEvent, after: BullseyeView, names: Sequence[str]
) -> list[Line]:
    """What one event did, for any watcher."""
    if isinstance(event, Acted):
        return _action(before, event, after, names)
    if before.lead_choice is not None and isinstance(event, Resolved):
        return _lead_throw(before, tuple(int(f) for f in event.outcome), after, names)
    if before.round is not None and after.round is not None:
        return _throw(before.round, after.round, names)
    return []


def _lead_throw(
    before: BullseyeView, dice: tuple[int, ...], after: BullseyeView, names: Sequence[str]
) -> list[Line]:
    choice = before.lead_choice
    assert choice is not None
    seat = choice.contenders[len(choice.throws)]
    name = names[seat]
    lines = [
        Line(f"{does(name, 'throws')} for the lead: {faces(dice, ' ')} = {sum(dice)}.", seat, dice)
    ]
    if after.lead_choice is not None and not after.lead_choice.throws:
        tied = listing([names[s] for s in after.lead_choice.contenders])
        lines.append(Line(f"A tie for the highest throw: {tied} throw again."))
    elif after.round is not None:
        lines.append(
            Line(f"{does(names[after.round.lead], 'leads')} the first round.", after.round.lead)
        )
    return lines


def _throw(before: RoundView, after: RoundView, names: Sequence[str]) -> list[Line]:
    seat = before.thrower
    name = names[seat]
    if before.dice:
        face = before.dice[before.rerolling[0]]
        moved = tuple(after.dice[p] for p in before.rerolling)
        text = (
            f"{does(name, 're-rolls')} the {face}s: {faces(moved, ' ')}, "
            f"making {faces(after.dice, ' ')}."
        )
    else:
        text = f"{does(name, 'throws')} {faces(after.dice, ' ')}."
    lines = [Line(text, seat, after.dice)]
    if after.rerolling:
        face = after.dice[after.rerolling[0]]
        what = "Three" if len(after.rerolling) == 3 else "A pair of"
        lines.append(Line(f"{what} {face}s: the matching rule rolls them again.", seat))
    elif seat == before.lead:
        lines.append(Line(f"It counts: the Bull's Eye is {after.target} so far.", seat))
    else:
        lines.append(
            Line(
                f"It counts: {name} {'are' if name == 'You' else 'is'} on {after.totals[seat]}.",
                seat,
            )
        )
    return lines


def _action(
    before: BullseyeView, event: Acted, after: BullseyeView, names: Sequence[str]
) -> list[Line]:
    action = event.action
    seat = event.seat
    name = names[seat]
    rnd = before.round
    assert rnd is not None and isinstance(action, Stop | ThrowOn)
    lines: list[Line] = []
    if action.bet:
        pot = before.pot + action.bet
        lines.append(
            Line(f"{does(name, 'bets')} {counted(action.bet, 'chip')}: the pot is {pot}.", seat)
        )
    if isinstance(action, ThrowOn):
        if seat != rnd.lead:
            dice = THROWS - len(rnd.counted[seat])
            lines.append(Line(f"{does(name, 'throws')} on with {counted(dice, 'die')}.", seat))
    elif seat == rnd.lead:
        lines.append(Line(f"The Bull's Eye is {rnd.target}.", seat))
    else:
        lines.append(Line(f"{does(name, 'stops')} on {rnd.totals[seat]}.", seat))
    if len(after.history) > len(before.history):
        over = after.round is None
        lines.extend(round_end(after.history[-1], names, over, after.points))
    return lines


def round_end(
    summary: RoundSummary,
    names: Sequence[str],
    game_over: bool,
    points: Sequence[int],
) -> list[Line]:
    """A round's end: each score, then where the pot went, every chip of it."""
    seats = len(summary.scores)
    pot = summary.pot
    lines = [Line(f"Round {summary.number} is over: the Bull's Eye was {summary.target}.")]
    for seat in throwing_order(summary.lead, seats)[1:]:
        text = f"{names[seat]}: {summary.totals[seat]}, scoring {summary.scores[seat]}."
        lines.append(Line(text, seat))
    scores = [s for s in summary.scores if s is not None]
    top = max(scores)
    round_winners = [s for s, score in enumerate(summary.scores) if score == top and top > 0]
    share, odd = divmod(pot, len(round_winners)) if round_winners else (0, pot)
    if not pot:
        lines.append(Line("The pot was empty."))
    elif not round_winners:
        lines.append(Line(f"Nobody scored, so the pot of {counted(pot, 'chip')} is not won."))
    elif len(round_winners) == 1:
        lines.append(
            Line(
                f"{names[round_winners[0]]} takes the pot of {counted(pot, 'chip')}.",
                round_winners[0],
            )
        )
    else:
        tied = listing([names[s] for s in round_winners])
        lines.append(
            Line(f"{tied} tie on {top} and split the pot of {counted(pot, 'chip')}: {share} each.")
        )
    if odd and summary.carried:
        what = "The odd chip" if odd == 1 and round_winners else counted(odd, "chip")
        lines.append(
            Line(f"{what} {'is' if odd == 1 else 'are'} carried over to the next round's pot.")
        )
    elif odd and game_over:
        # The game is over: what the round left goes to the game's winners (RULES.md 5).
        top_points = max(points)
        order = throwing_order(summary.lead, seats)
        winners = [s for s in (*order[1:], order[0]) if points[s] == top_points]
        extra = [summary.won[s] - (share if s in round_winners else 0) for s in range(seats)]
        parts = [f"{names[s]} +{extra[s]}" for s in winners if extra[s]]
        left = counted(odd, "chip")
        text = f"The game is over, so what was left in the pot ({left}) goes to its winners: "
        text += ", ".join(parts)
        if len(winners) > 1 and odd % len(winners):
            text += (
                f" (the odd chip to {names[winners[0]]}, the first winner left of the last lead)"
            )
        lines.append(Line(text + "."))
    return lines
