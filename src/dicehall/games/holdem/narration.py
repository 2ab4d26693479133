"""Hold'em Dice told in sentences, from the watcher's views only: a pocket is named to its
owner, and to everyone once it is shown down. At a showdown each pot says who took it and
why: which hand beat which, and on which key (category, faces, or the colour tie-break of
RULES.md), or that equal hands split it and where the odd unit went."""

from __future__ import annotations

from collections.abc import Sequence

from dicehall.engine.events import Acted
from dicehall.games.holdem.dice import COLOUR_NAMES, colour, face
from dicehall.games.holdem.model import (
    AllIn,
    Bet,
    Call,
    Check,
    Fold,
    HandEnd,
    HoldemAction,
    HoldemView,
    PotResult,
    Showing,
)
from dicehall.games.holdem.pots import UNIT
from dicehall.games.holdem.ranking import CATEGORY_TITLES, HandRank, rank_five
from dicehall.games.narration import Line, SeenEvent, does, is_you, listing, whose

STREETS = {3: "The flop", 4: "The turn", 5: "The river"}


def dice_text(dice: Sequence[str]) -> str:
    """Coloured dice in words: "6 red, 2 black"."""
    return ", ".join(f"{face(d)} {COLOUR_NAMES[colour(d)]}" for d in dice)


def describe_action(action: HoldemAction, view: HoldemView, seat: int) -> str:
    """An action in words, with the chips it moves, as seen before it was taken."""
    owed = max(view.round_bets) - view.round_bets[seat]
    if isinstance(action, Check):
        return "checks"
    if isinstance(action, Call):
        return f"calls {owed}"
    if isinstance(action, Fold):
        return "folds"
    if isinstance(action, AllIn):
        return f"goes all-in for {view.stacks[seat]}"
    if isinstance(action, Bet):
        return f"bets {action.amount}"
    return f"calls {owed} and raises {action.amount} (to {max(view.round_bets) + action.amount})"


def narrate(
    before: HoldemView, event: SeenEvent, after: HoldemView, names: Sequence[str]
) -> list[Line]:
    """What one event did, as the watcher of ``before`` and ``after`` may know it."""
    lines: list[Line] = []
    if isinstance(event, Acted):
        words = describe_action(event.action, before, event.seat)
        lines.append(Line(f"{does(names[event.seat], words)}.", event.seat))
    else:
        if before.stage == "pocket_faces" and after.pocket and after.pocket != before.pocket:
            me = after.seat
            lines.append(Line(f"Your pocket dice: {dice_text(after.pocket)}.", me, after.pocket))
        if before.stage == "pocket_faces" and after.stage != "pocket_colours":
            lines.append(Line("Every player has two pocket dice; the betting opens."))
        elif before.stage == "reroll":
            text = f"Everyone checked, so the flop is rolled again: {dice_text(after.board)}."
            lines.append(Line(text, None, after.board))
        elif len(after.board) > len(before.board):
            street = STREETS.get(len(after.board), "The board")
            lines.append(Line(f"{street}: {dice_text(after.board)}.", None, after.board))
    if after.last is not None and after.last != before.last:
        lines.extend(hand_end(after.last, names))
        if after.stage != "over":
            lines.append(Line(f"Hand {after.hand}: {does(names[after.dealer], 'deals')}."))
    return lines


def hand_end(end: HandEnd, names: Sequence[str]) -> list[Line]:
    """A hand's end: the board and the hands shown, then each pot, who took it and why."""
    lines: list[Line] = []
    if end.showdown:
        lines.append(Line(f"Showdown. The board: {dice_text(end.board)}.", None, end.board))
    ranks = {s.seat: rank_five(s.five) for s in end.showdown}
    for shown in end.showdown:
        name = names[shown.seat]
        text = (
            f"{does(name, 'shows')} {dice_text(shown.pocket)}: "
            f"{CATEGORY_TITLES[shown.category]}, {dice_text(shown.five)}."
        )
        lines.append(Line(text, shown.seat, shown.five))
    for i, pot in enumerate(end.pots):
        label = "The pot" if len(end.pots) == 1 else ("The main pot" if i == 0 else f"Side pot {i}")
        lines.extend(_pot(pot, label, end.showdown, ranks, names))
    if end.yahtzee_flush:
        lines.append(Line("A Yahtzee flush! It takes everything and ends the game."))
    if end.eliminated:
        lines.append(Line(f"Out of chips: {listing([names[s] for s in end.eliminated])}."))
    return lines


def _pot(
    pot: PotResult,
    label: str,
    showdown: Sequence[Showing],
    ranks: dict[int, HandRank],
    names: Sequence[str],
) -> list[Line]:
    takers = [_object(names[w]) for w in pot.winners]
    if not showdown:
        text = f"{label} of {pot.amount} goes to {takers[0]} unseen: everyone else folded."
        return [Line(text, pot.winners[0])]
    if len(pot.winners) == 1:
        winner = pot.winners[0]
        text = f"{label} of {pot.amount} goes to {takers[0]}"
        losers = [s for s in pot.eligible if s not in pot.winners and s in ranks]
        if losers:
            best_loser = max(losers, key=lambda s: ranks[s])
            text += f": {why(winner, best_loser, ranks, names)}"
        return [Line(text + ".", winner)]
    shares = ", ".join(
        f"{_object(names[w])} {c}" for w, c in zip(pot.winners, pot.shares, strict=True)
    )
    first = pot.winners[0]
    text = (
        f"{label} of {pot.amount} is split between {listing(takers)} ({shares}): "
        f"their hands are equal in category, faces and colour"
    )
    if len(set(pot.shares)) > 1:
        odd = [
            names[w] for w, c in zip(pot.winners, pot.shares, strict=True) if c > min(pot.shares)
        ]
        units = "unit" if len(odd) == 1 else "units"
        text += (
            f"; the odd {units} of {UNIT} {'goes' if len(odd) == 1 else 'go'} to {listing(odd)}, "
            "first left of the dealer"
        )
    return [Line(text + ".", first)]


def why(winner: int, loser: int, ranks: dict[int, HandRank], names: Sequence[str]) -> str:
    """Why ``winner``'s hand beat ``loser``'s, on the first key that differs."""
    won, lost = ranks[winner], ranks[loser]
    mine, theirs = (
        f"{whose(names[winner]).lower() if names[winner] == 'You' else whose(names[winner])}",
        whose(names[loser]),
    )
    if won.category != lost.category:
        return f"{mine} {won.title} beats {theirs} {lost.title}"
    if won.faces != lost.faces:
        high = " ".join(map(str, won.faces))
        low = " ".join(map(str, lost.faces))
        return f"{mine} {won.title} ({high}) beats {theirs} ({low}) on the faces"
    return (
        f"{mine} {won.title} and {theirs} have the same faces "
        f"({' '.join(map(str, won.faces))}); the tie-break is colour: "
        f"{won.colour} dice of one colour beat {lost.colour}"
    )


def _object(name: str) -> str:
    """A name inside a sentence: "you" for the watcher."""
    return "you" if is_you(name) else name


def _possessive(name: str) -> str:
    """A possessive inside a sentence: "your", "alice's"."""
    return "your" if is_you(name) else whose(name)
