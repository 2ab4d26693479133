"""The Hold'em Dice screen: stacks and pots, the board, the seat's own pocket, typed moves."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.table import Table as RichTable

from dicehall.cli.narration import coloured_dice, counted, does, together
from dicehall.engine.errors import InvalidInput
from dicehall.engine.events import Acted, Event
from dicehall.engine.game import Result
from dicehall.games.holdem.model import (
    AllIn,
    Bet,
    Call,
    Check,
    Fold,
    HandEnd,
    HoldemAction,
    HoldemView,
    Raise,
)
from dicehall.games.holdem.narration import describe_action
from dicehall.games.holdem.ranking import CATEGORY_TITLES, best_hand

_STREET_TITLES = {"open": "the Open", "flop": "the Flop", "turn": "the Turn", "river": "the River"}


def _action_words(legal: Sequence[HoldemAction]) -> str:
    words: list[str] = []
    bets = [a.amount for a in legal if isinstance(a, Bet)]
    raises = [a.amount for a in legal if isinstance(a, Raise)]
    for a in legal:
        if isinstance(a, Fold):
            words.append("fold")
        elif isinstance(a, Check):
            words.append("check")
        elif isinstance(a, Call):
            words.append("call")
        elif isinstance(a, AllIn):
            words.append("all-in")
    if bets:
        words.append(f"bet {'/'.join(map(str, bets))}")
    if raises:
        words.append(f"raise {'/'.join(map(str, raises))}")
    return ", ".join(words)


def parse_action(text: str, view: HoldemView, legal: Sequence[HoldemAction]) -> HoldemAction:
    """A typed move (``check``, ``call``, ``bet 10``, ``raise 20``, ``fold``, ``all-in``)."""
    parts = text.strip().lower().split()
    if not parts:
        raise InvalidInput(f"type one of: {_action_words(legal)}")
    word, rest = parts[0], parts[1:]
    if word == "all" and rest[:1] == ["in"]:
        word, rest = "allin", rest[1:]
    elif word == "all-in":
        word = "allin"
    amount: int | None = None
    if rest:
        # A sign or anything but plain digits is refused, never read as another amount.
        if len(rest) > 1 or not (rest[0].isascii() and rest[0].isdigit()):
            raise InvalidInput(f"{text.strip()!r}: an amount is a whole number, like bet 10")
        amount = int(rest[0])
    choice: HoldemAction | None = None
    if word in ("f", "fold"):
        choice = Fold()
    elif word in ("c", "k", "check", "call"):
        if word in ("c", "k"):
            choice = Check() if Check() in legal else Call()
        else:
            choice = Check() if word == "check" else Call()
    elif word in ("a", "allin", "shove"):
        choice = _all_in(view, legal)
    elif word in ("b", "bet", "r", "raise"):
        kind = "bet" if word in ("b", "bet") else "raise"
        options = [a.amount for a in legal if isinstance(a, Bet if kind == "bet" else Raise)]
        if not options:
            raise InvalidInput(f"you can't {kind} now; you may: {_action_words(legal)}")
        if amount is None:
            if len(options) > 1:
                raise InvalidInput(f"{kind} how much? {' or '.join(map(str, options))}")
            amount = options[0]
        if amount not in options:
            raise InvalidInput(
                f"a {kind} here must be {' or '.join(map(str, options))}, not {amount}"
            )
        choice = Bet(amount) if kind == "bet" else Raise(amount)
    if choice is None:
        raise InvalidInput(f"{text.strip()!r} is not a move; you may: {_action_words(legal)}")
    if amount is not None and not isinstance(choice, Bet | Raise):
        raise InvalidInput(f"{word} takes no amount")
    if choice not in legal:
        raise InvalidInput(f"you can't do that now; you may: {_action_words(legal)}")
    return choice


def confirm_fold(console: Console, typed: str) -> bool:
    """Whether a fold typed as ``typed`` stands: the word ``fold`` does at once; the letter
    ``f`` (one slip from ``c``, and irrevocable) only after a yes to "Fold? [y/N]"."""
    if typed.strip().lower() != "f":
        return True
    answer = console.input("Fold? \\[y/N] ")  # escaped: Rich reads [y/N] as markup
    return answer.strip().lower() in ("y", "yes")


def _all_in(view: HoldemView, legal: Sequence[HoldemAction]) -> HoldemAction:
    """The legal action that puts every chip in, if there is one."""
    assert view.seat is not None
    stack = view.stacks[view.seat]
    for action in legal:
        if isinstance(action, AllIn):
            return action
        if isinstance(action, Call) and view.to_call == stack:
            return action
        if isinstance(action, Bet) and action.amount == stack:
            return action
        if isinstance(action, Raise) and view.to_call + action.amount == stack:
            return action
    raise InvalidInput(
        f"all-in would be {stack}, more than the limit allows; you may: {_action_words(legal)}"
    )


class HoldemScreen:
    """The Hold'em Dice terminal screen: the table, the board, my pocket, typed moves."""

    def render(self, console: Console, view: HoldemView, names: Sequence[str]) -> None:
        """The table as the seat to move sees it: its own pocket, never another's."""
        street = _STREET_TITLES[view.street]
        dealer = names[view.dealer]
        console.rule(f"Hand {view.hand}: {street}; {does(dealer, 'deals')}")
        table = RichTable(show_edge=False, box=None, padding=(0, 2))
        for column in ("seat", "stack", "in pot", "this round", ""):
            table.add_column(column, justify="left" if column in ("seat", "") else "right")
        for s, name in enumerate(names):
            marks = []
            if s == view.dealer:
                marks.append("dealer")
            if view.out[s]:
                marks.append("out")
            elif view.folded[s]:
                marks.append("folded")
            elif view.stacks[s] == 0:
                marks.append("all-in")
            if s == view.to_act:
                marks.append("to act")
            table.add_row(
                f"[bold]{name}[/]" if s == view.seat else name,
                str(view.stacks[s]),
                str(view.contributions[s]),
                str(view.round_bets[s]),
                ", ".join(marks),
            )
        console.print(table)
        console.print(f"Board: {coloured_dice(view.board)}")
        if view.pocket:
            line = f"Your pocket: {coloured_dice(view.pocket)}"
            if len(view.board) >= 3:
                best = best_hand(view.pocket + view.board)
                line += f"   best now: {best.rank.title} ({coloured_dice(best.five)})"
            console.print(line)
        console.print(pots_line(view, names))
        if view.to_call:
            console.print(f"To call: {view.to_call}")
        console.print(
            f"[dim]Bets and raises 10 to {view.limit}; raises this round {view.raises} of 3[/]"
        )

    def choose(
        self,
        console: Console,
        view: HoldemView,
        legal: Sequence[HoldemAction],
        names: Sequence[str],
    ) -> HoldemAction:
        """Ask for a move until it is a legal one; Ctrl-C and end of input propagate."""
        prompt = f"Your move ({_action_words(legal)})"
        while True:
            text = console.input(f"{prompt}: ")
            try:
                action = parse_action(text, view, legal)
            except InvalidInput as exc:
                console.print(f"[red]{exc}[/]")
                continue
            if isinstance(action, Fold) and not confirm_fold(console, text):
                console.print("Not folded.")
                continue
            return action

    def narrate(
        self,
        console: Console,
        before: HoldemView,
        event: Event,
        after: HoldemView,
        names: Sequence[str],
    ) -> None:
        """Say what happened, showing only what the watcher may see."""
        if isinstance(event, Acted):
            name = names[event.seat]
            words = describe_action(event.action, before, event.seat)
            console.print(f"{does(name, words)}.")
        elif after.hand == before.hand:
            if after.pocket and after.pocket != before.pocket:
                console.print(f"Your pocket dice: {coloured_dice(after.pocket)}")
            elif before.stage == "reroll":
                console.print(
                    f"Everyone checked: the flop is re-rolled: {coloured_dice(after.board)}"
                )
            elif len(after.board) > len(before.board):
                street = {3: "Flop", 4: "Turn", 5: "River"}[len(after.board)]
                console.print(f"{street}: {coloured_dice(after.board)}")
        if after.last is not None and after.last != before.last:
            self._hand_end(console, after.last, names)
            if after.stage != "over":
                dealer = names[after.dealer]
                console.print(f"[dim]Hand {after.hand}: {does(dealer, 'deals')}.[/]")

    def _hand_end(self, console: Console, end: HandEnd, names: Sequence[str]) -> None:
        if end.showdown:
            console.print(f"Showdown. Board: {coloured_dice(end.board)}")
            for shown in end.showdown:
                name = names[shown.seat]
                console.print(
                    f"  {does(name, 'shows')} {coloured_dice(shown.pocket)}: "
                    f"{CATEGORY_TITLES[shown.category]} ({coloured_dice(shown.five)})"
                )
        for i, pot in enumerate(end.pots):
            label = "Pot" if len(end.pots) == 1 else ("Main pot" if i == 0 else f"Side pot {i}")
            takers = ", ".join(
                f"{names[w]} {chips}" for w, chips in zip(pot.winners, pot.shares, strict=True)
            )
            how = "" if end.showdown else " (uncontested)"
            console.print(f"  {label} of {pot.amount}{how}: {takers}")
        if end.yahtzee_flush:
            console.print("[bold green]A Yahtzee flush! It takes everything and ends the game.[/]")
        if end.eliminated:
            console.print(f"  Out of chips: {', '.join(names[s] for s in end.eliminated)}.")

    def show_result(
        self, console: Console, view: HoldemView, result: Result, names: Sequence[str]
    ) -> None:
        """The winner and the final stacks."""
        winners = together(names[w] for w in result.winners)
        console.rule(f"Game over after {counted(result.turns, 'hand')}. Winner: {winners}")
        for s, name in enumerate(names):
            console.print(f"  {name}: {result.scores[s]}")


def pots_line(view: HoldemView, names: Sequence[str]) -> str:
    """The pots of the hand in play, side pots with the seats that can win them."""
    if not view.pots:
        return "Pot: 0"
    if len(view.pots) == 1:
        return f"Pot: {view.pots[0].amount}"
    parts = [f"main {view.pots[0].amount}"]
    for i, pot in enumerate(view.pots[1:], start=1):
        who = ", ".join(names[s] for s in pot.eligible)
        parts.append(f"side {i}: {pot.amount} ({who})")
    return "Pots: " + "; ".join(parts)
