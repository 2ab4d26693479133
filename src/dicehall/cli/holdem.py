"""Hold'em Dice on the command line: ``odds holdem``, ``score holdem`` and the terminal screen."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Optional

import typer
from rich.console import Console
from rich.table import Table as RichTable

from dicehall.cli.apps import odds_app, score_app
from dicehall.cli.common import console, print_json
from dicehall.cli.terminal import register_ui
from dicehall.engine.errors import InvalidInput
from dicehall.engine.events import Acted, Event
from dicehall.engine.game import Result
from dicehall.games.holdem.dice import check_bag, parse_dice
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
from dicehall.games.holdem.ranking import CATEGORIES, CATEGORY_TITLES, best_hand

Text = Optional[str]  # noqa: UP045 - Typer needs Optional here

_STYLES = {"r": "bold red", "k": "bold bright_black", "w": "bold white", "y": "bold yellow"}
_STREET_TITLES = {"open": "the Open", "flop": "the Flop", "turn": "the Turn", "river": "the River"}


def dice_markup(dice: Sequence[str]) -> str:
    """Dice as Rich markup, each in its colour, with its notation."""
    if not dice:
        return "[dim]none[/]"
    return " ".join(f"[{_STYLES[d[1]]}]{d}[/]" for d in dice)


# -- odds and score --------------------------------------------------------------------------


@odds_app.command("holdem")
def odds_holdem(
    pocket: Text = typer.Option(None, "--pocket", help="Your two pocket dice, e.g. 6r,6k."),
    board: Text = typer.Option(None, "--board", help="Community dice so far, e.g. 6w,2y,3r."),
    opponents: int = typer.Option(1, "--opponents", help="Unknown hands against you (1-5)."),
    samples: int = typer.Option(
        200_000, "--samples", help="Monte Carlo deals when exact counting is too long."
    ),
    seed: int = typer.Option(0, "--seed", help="Seed for Monte Carlo (same seed, same answer)."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Your final-hand distribution and, with a pocket, win and tie chances."""
    mine = parse_dice(pocket or "", what="--pocket", min_count=2, max_count=2) if pocket else ()
    shared = parse_dice(board or "", what="--board", max_count=5) if board else ()
    check_bag([*mine, *shared], "--pocket and --board")
    if not 1 <= opponents <= 5:
        raise InvalidInput(f"--opponents: expected 1 to 5, got {opponents}")
    if not 1 <= samples <= 100_000_000:
        raise InvalidInput(f"--samples: expected 1 to 100,000,000, got {samples}")
    from dicehall.games.holdem.equity import odds  # Numba loads only for this command

    result = odds(mine, shared, opponents, samples=samples, seed=seed)
    if as_json:
        print_json(result.as_json())
        return
    title = "Your final best hand"
    if mine or shared:
        title += f" (pocket {','.join(mine) or 'unknown'}; board {','.join(shared) or 'none'})"
    table = RichTable(title=title)
    table.add_column("hand")
    table.add_column("probability", justify="right")
    for name in reversed(CATEGORIES):
        table.add_row(CATEGORY_TITLES[name], f"{result.categories[name]:.4%}")
    console.print(table)
    if result.win is None:
        return
    assert result.tie is not None and result.share is not None
    against = f"against {opponents} unknown hand{'s' if opponents > 1 else ''}"
    console.print(
        f"Win {result.win:.2%}   tie {result.tie:.2%}   pot share {result.share:.2%}   {against}"
    )
    if result.exact:
        console.print("[dim]exact: every outcome counted[/]")
    else:
        assert result.stderr is not None
        console.print(
            f"[dim]Monte Carlo, {result.samples:,} deals, seed {seed}: standard error "
            f"win {result.stderr['win']:.2%}, tie {result.stderr['tie']:.2%}[/]"
        )


@score_app.command("holdem")
def score_holdem(
    dice: str = typer.Argument(..., help="Five to seven dice, e.g. 6r,6k,6w,2y,2r,1k,4w."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """The best five of five to seven dice, with the three keys that rank it."""
    hand = parse_dice(dice, what="dice", min_count=5, max_count=7)
    check_bag(hand)
    best = best_hand(hand)
    if as_json:
        print_json(
            {
                "dice": list(hand),
                "best": list(best.five),
                "category": best.rank.name,
                "faces": list(best.rank.faces),
                "colour": best.rank.colour,
            }
        )
        return
    console.print(f"Best five: {dice_markup(best.five)}")
    console.print(
        f"[bold]{best.rank.title}[/]; faces {','.join(map(str, best.rank.faces))}; "
        f"{best.rank.colour} dice of one colour"
    )


# -- the terminal screen ---------------------------------------------------------------------


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


def _agree(name: str, words: str) -> str:
    """``checks`` as ``check`` after ``You``."""
    if name != "You":
        return words
    verb, _, rest = words.partition(" ")
    verb = "go" if verb == "goes" else verb.removesuffix("s")
    return f"{verb} {rest.replace('and raises', 'and raise')}".strip()


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
    parts = text.strip().lower().replace("-", " ").split()
    if not parts:
        raise InvalidInput(f"type one of: {_action_words(legal)}")
    word, rest = parts[0], parts[1:]
    if word == "all" and rest[:1] == ["in"]:
        word, rest = "allin", rest[1:]
    amount: int | None = None
    if rest:
        if len(rest) > 1 or not rest[0].isdigit():
            raise InvalidInput(f"{text.strip()!r}: an amount is a number, like bet 10")
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


class HoldemUI:
    """The Hold'em Dice terminal screen."""

    def render(self, console: Console, view: HoldemView, names: Sequence[str]) -> None:
        """The table as the seat to move sees it: its own pocket, never another's."""
        street = _STREET_TITLES[view.street]
        dealer = names[view.dealer]
        console.rule(f"Hand {view.hand}: {street}; {dealer} {_agree(dealer, 'deals')}")
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
        console.print(f"Board: {dice_markup(view.board)}")
        if view.pocket:
            line = f"Your pocket: {dice_markup(view.pocket)}"
            if len(view.board) >= 3:
                best = best_hand(view.pocket + view.board)
                line += f"   best now: {best.rank.title} ({dice_markup(best.five)})"
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
                return parse_action(text, view, legal)
            except InvalidInput as exc:
                console.print(f"[red]{exc}[/]")

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
            console.print(f"{name} {_agree(name, words)}.")
        elif after.hand == before.hand:
            if after.pocket and after.pocket != before.pocket:
                console.print(f"Your pocket dice: {dice_markup(after.pocket)}")
            elif before.stage == "reroll":
                console.print(
                    f"Everyone checked: the flop is re-rolled: {dice_markup(after.board)}"
                )
            elif len(after.board) > len(before.board):
                street = {3: "Flop", 4: "Turn", 5: "River"}[len(after.board)]
                console.print(f"{street}: {dice_markup(after.board)}")
        if after.last is not None and after.last != before.last:
            self._hand_end(console, after.last, names)
            if after.stage != "over":
                dealer = names[after.dealer]
                console.print(f"[dim]Hand {after.hand}: {dealer} {_agree(dealer, 'deals')}.[/]")

    def _hand_end(self, console: Console, end: HandEnd, names: Sequence[str]) -> None:
        if end.showdown:
            console.print(f"Showdown. Board: {dice_markup(end.board)}")
            for shown in end.showdown:
                name = names[shown.seat]
                console.print(
                    f"  {name} {_agree(name, 'shows')} {dice_markup(shown.pocket)}: "
                    f"{CATEGORY_TITLES[shown.category]} ({dice_markup(shown.five)})"
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
        winners = " and ".join(names[w] for w in result.winners)
        hands = f"{result.turns} hand{'s' if result.turns != 1 else ''}"
        console.rule(f"Game over after {hands}. Winner: {winners}")
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


register_ui("holdem", HoldemUI())
