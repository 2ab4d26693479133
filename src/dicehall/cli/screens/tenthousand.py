"""The Ten Thousand screen: the scoreboard and the pot, set-asides by letter or by dice."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.markup import escape
from rich.table import Table as RichTable

from dicehall.cli.narration import agree, boxed_dice, dice_to_roll, does, faces, together, whose
from dicehall.engine.errors import InvalidInput
from dicehall.engine.events import Acted, Event, Resolved
from dicehall.engine.game import Result
from dicehall.engine.notation import parse_faces
from dicehall.games.tenthousand import GAME
from dicehall.games.tenthousand.rules import (
    DICE,
    Bank,
    RollOn,
    SetAside,
    TenThousandAction,
    TenThousandState,
    TenThousandView,
)

#: The labels of the set-asides listed on a roll (six dice allow at most 15 set-asides).
LETTERS = "abcdefghijklmnopqrstuvwxyz"


def parse_set_aside(text: str, choices: Sequence[SetAside]) -> SetAside:
    """A set-aside typed at the prompt: a letter of the list, or the dice themselves.

    Digits are always die faces, never list entries, so ``1`` sets aside one 1 whatever the
    list says; faces may be written ``1,5,5``, ``1 5 5`` or ``155``.
    """
    answer = text.strip().lower()
    if not answer:
        raise InvalidInput("Type a letter from the list, or the dice to set aside (like 1,5).")
    if answer.isalpha():
        if len(answer) == 1 and answer in LETTERS[: len(choices)]:
            return choices[LETTERS.index(answer)]
        last = LETTERS[len(choices) - 1]
        raise InvalidInput(
            f"{answer!r} is not on the list: type a letter from a to {last}, "
            "or the dice to set aside (like 1,5)"
        )
    if answer.isdigit():
        answer = " ".join(answer)  # 155 is three dice: 1, 5 and 5
    return SetAside(parse_faces(answer, min_count=1, max_count=DICE))


def cents(amount: int) -> str:
    """Money in the pot, counted in cents: "$0.50"."""
    return f"${amount // 100}.{amount % 100:02d}"


class TenThousandScreen:
    """The Rich terminal screen of Ten Thousand (no hidden information: everyone sees all)."""

    def render(self, console: Console, view: TenThousandView, names: Sequence[str]) -> None:
        """Draw the scoreboard, the pot, the turn so far and the dice on the table."""
        state = view.state
        opts = state.options
        table = RichTable(
            title=f"Ten Thousand: first to {opts.target:,}, pot {cents(state.pot)}",
            title_justify="left",
        )
        for column in ("", "player", "banked", "paid in"):
            table.add_column(column, justify="left" if column == "player" else "right")
        for seat, name in enumerate(names):
            mark = "▶" if seat == state.current and state.phase != "over" else ""
            banked = f"{state.banked[seat]:,}" if state.entered(seat) else "not in yet"
            table.add_row(mark, name, banked, cents(state.paid[seat]))
        console.print()
        console.print(table)
        if state.final_trigger is not None and state.phase != "over":
            console.print(
                f"[bold magenta]Final round:[/] {names[state.final_trigger]} reached "
                f"{opts.target:,}; {state.final_left} more turn(s) to play."
            )
        name = names[state.current]
        kept = " + ".join(faces(k) for k in state.kept) or "nothing yet"
        console.print(
            f"[bold]{whose(name)}[/] turn. "
            f"Turn total [bold]{state.turn_total}[/], set aside: {kept}."
        )
        if state.phase == "set_aside":
            console.print(f"Rolled: {boxed_dice(state.dice)}")
        elif state.hot_dice:
            console.print("[bold green]Hot dice![/] All six dice may be rolled again.")

    def choose(
        self,
        console: Console,
        view: TenThousandView,
        legal: Sequence[TenThousandAction],
        names: Sequence[str],
    ) -> TenThousandAction:
        """Ask for a set-aside (by number or by dice), or for bank or roll on."""
        state = view.state
        if state.phase == "set_aside":
            return self._choose_set_aside(console, state, legal)
        return self._choose_bank_or_roll(console, state, legal)

    def _choose_set_aside(
        self, console: Console, state: TenThousandState, legal: Sequence[TenThousandAction]
    ) -> TenThousandAction:
        choices = [a for a in legal if isinstance(a, SetAside)]
        for letter, action in zip(LETTERS, choices, strict=False):
            left = state.in_hand - len(action.dice)
            console.print(
                f"  {letter}) set aside {faces(action.dice):<12} {action.points:>5} points, "
                f"then {dice_to_roll(left)} to roll"
            )
        letters = LETTERS[0] if len(choices) == 1 else f"{LETTERS[0]}-{LETTERS[len(choices) - 1]}"
        while True:
            text = console.input(
                f"Set aside which? A letter ({letters}) from the list, or the dice like 1,5: "
            )
            try:
                wanted = parse_set_aside(text, choices)
            except InvalidInput as exc:
                console.print(f"[red]{escape(str(exc))}[/]")
                continue
            if wanted in choices:
                return choices[choices.index(wanted)]
            console.print(f"[red]Not allowed:[/] {GAME.why_illegal(state, state.current, wanted)}")

    def _choose_bank_or_roll(
        self, console: Console, state: TenThousandState, legal: Sequence[TenThousandAction]
    ) -> TenThousandAction:
        roll_on = f"roll {dice_to_roll(state.in_hand)}"
        can_bank = any(isinstance(a, Bank) for a in legal)
        if can_bank:
            question = f"[b]ank {state.turn_total} or [r]oll on ({roll_on})? "
        else:
            need = state.options.entry_threshold
            console.print(f"Your first bank needs at least {need} points; you must roll on.")
            question = f"[r]oll on ({roll_on})? "
        while True:
            text = console.input(question, markup=False).strip().lower()
            if text in ("r", "roll", "roll on"):
                return RollOn()
            if text in ("b", "bank"):
                if can_bank:
                    return Bank()
                console.print(
                    f"[red]Not allowed:[/] {GAME.why_illegal(state, state.current, Bank())}"
                )
                continue
            console.print(
                "[red]Type b to bank or r to roll on.[/]" if can_bank else "[red]Type r.[/]"
            )

    def narrate(
        self,
        console: Console,
        before: TenThousandView,
        event: Event,
        after: TenThousandView,
        names: Sequence[str],
    ) -> None:
        """Say what just happened: rolls, set-asides, banks, zero-outs, the final round."""
        prior, now = before.state, after.state
        name = names[prior.current]
        if isinstance(event, Resolved):
            rolled = tuple(sorted(int(f) for f in event.outcome))
            console.print(f"{does(name, 'rolls')} {boxed_dice(rolled)}")
        elif isinstance(event, Acted) and isinstance(event.action, SetAside):
            gained = now.turn_total - prior.turn_total
            console.print(
                f"{does(name, 'sets')} aside {faces(event.action.dice)} for {gained}: "
                f"turn total {now.turn_total}."
            )
            if now.hot_dice:
                console.print("[bold green]Hot dice![/]")
        elif isinstance(event, Acted) and isinstance(event.action, Bank):
            console.print(
                f"{does(name, 'banks')} {prior.turn_total}: "
                f"total [bold]{now.banked[prior.current]:,}[/]."
            )
        if now.turns > prior.turns and now.last is not None and now.last.zeroed:
            last = now.last
            fine = (
                f", and {agree(name, 'pays')} {last.penalty}¢ into the pot" if last.penalty else ""
            )
            console.print(
                f"[red]No scoring dice: {name} zeroed out on {faces(last.zero_roll)}[/] "
                f"({agree(name, 'loses')} {last.lost}{fine})."
            )
        if prior.final_trigger is None and now.final_trigger is not None:
            others = (
                "the game is over"
                if now.phase == "over"
                else "every other player gets one more turn"
            )
            console.print(
                f"[bold magenta]{names[now.final_trigger]} reached "
                f"{now.options.target:,}:[/] {others}."
            )

    def show_result(
        self, console: Console, view: TenThousandView, result: Result, names: Sequence[str]
    ) -> None:
        """Show the final totals, the winners and how the pot was shared."""
        state = view.state
        table = RichTable(title=f"Game over after {result.turns} turns", title_justify="left")
        for column in ("player", "banked", "paid in", "won", "net"):
            table.add_column(column, justify="left" if column == "player" else "right")
        for seat, name in enumerate(names):
            won = state.payouts[seat] if state.payouts else 0
            net = won - state.paid[seat]
            sign = "-" if net < 0 else "+"
            table.add_row(
                name,
                f"{state.banked[seat]:,}",
                cents(state.paid[seat]),
                cents(won),
                f"{sign}{cents(abs(net))}",
            )
        console.print(table)
        winners = together(names[w] for w in result.winners)
        verb = "share the win" if len(result.winners) > 1 else agree(winners, "wins")
        console.print(f"[bold green]{winners} {verb}[/] and the pot of {cents(state.pot)}.")
