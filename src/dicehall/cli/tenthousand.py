"""Ten Thousand on the command line: ``score``, ``solve`` and ``hint tenthousand``, and the
terminal game screen."""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, Progress, TaskProgressColumn, TimeElapsedColumn
from rich.table import Table as RichTable

from dicehall.cli.apps import hint_app, score_app, solve_app
from dicehall.cli.common import console, err_console, print_json
from dicehall.cli.terminal import register_ui
from dicehall.engine.errors import InvalidInput
from dicehall.engine.events import Acted, Event, Resolved
from dicehall.engine.game import Result
from dicehall.engine.notation import parse_faces
from dicehall.engine.options import parse_pairs
from dicehall.games.tenthousand import GAME, cache
from dicehall.games.tenthousand.advice import Hint, check_position, duel_hint, solo_hint
from dicehall.games.tenthousand.duel import Progress as SolveProgress
from dicehall.games.tenthousand.rules import (
    DICE,
    Bank,
    RollOn,
    SetAside,
    TenThousandAction,
    TenThousandState,
    TenThousandView,
)
from dicehall.games.tenthousand.scoring import set_asides
from dicehall.games.tenthousand.strategy import turn_tables

OptionList = Optional[list[str]]  # noqa: UP045 - Typer needs Optional here


def score_report(roll: Sequence[int], four_and_pair: bool = False) -> dict[str, Any]:
    """The JSON shape of ``score tenthousand``: the roll ascending and each set-aside."""
    dice = tuple(sorted(roll))
    return {
        "roll": list(dice),
        "options": [
            {"keep": list(keep), "points": points}
            for keep, points in set_asides(dice, four_and_pair)
        ],
    }


@score_app.command("tenthousand")
def score(
    roll: str = typer.Argument(..., help="The dice rolled, 1 to 6 of them, e.g. 1,2,2,2,4,5."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
    option: OptionList = typer.Option(None, "--option", "-o", help="A game option, name=value."),
) -> None:
    """Every legal set-aside of a roll and its points, best first."""
    faces = parse_faces(roll, min_count=1, max_count=DICE, what="roll")
    options = GAME.options(parse_pairs(option or []))
    report = score_report(faces, options.four_and_pair_is_three_pairs)
    if as_json:
        print_json(report)
        return
    shown = _faces(report["roll"])
    if not report["options"]:
        console.print(f"Roll {shown}: no scoring dice. This roll zeroes out (the turn scores 0).")
        return
    table = RichTable(title=f"Roll {shown}: {len(report['options'])} legal set-asides")
    table.add_column("#", justify="right")
    table.add_column("set aside")
    table.add_column("points", justify="right")
    table.add_column("then roll", justify="right")
    for number, item in enumerate(report["options"], 1):
        left = len(faces) - len(item["keep"])
        table.add_row(str(number), _faces(item["keep"]), str(item["points"]), _dice_left(left))
    console.print(table)


# -- solve and hint ----------------------------------------------------------------------------


@contextmanager
def solve_progress(description: str) -> Iterator[SolveProgress]:
    """A progress bar on standard error (shown on terminals only) for a long solve."""
    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        TaskProgressColumn(),
        TimeElapsedColumn(),
        console=err_console,
        transient=True,
        disable=not err_console.is_terminal,
    ) as bar:
        task = bar.add_task(description, total=None)

        def report(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield report


# Bots and hints that need a solve show this bar too (the cache module itself draws nothing).
cache.show_progress_with(solve_progress)


def solve_report(solved: cache.Solution, seconds: float) -> dict[str, Any]:
    """The JSON shape of ``solve tenthousand``: the figures of the exact solution."""
    key = solved.key
    tables = turn_tables(key.entry_threshold, key.four_and_pair)
    return {
        "max_expected_turn": tables.expected_if_rolling(DICE, 0, True),
        "bank_thresholds": {str(n): tables.bank_threshold(n, True) for n in range(1, DICE + 1)},
        "bank_thresholds_before_entry": {
            str(n): tables.bank_threshold(n, False) for n in range(1, DICE + 1)
        },
        "expected_turns_to_target": solved.solitaire.turns_to_target(0),
        "first_seat_win": solved.duel.first_seat_win,
        "seconds": seconds,
        "solve_seconds": solved.seconds,
        "solve_cpu_seconds": solved.cpu_seconds,
        "cached": solved.cached,
        "target": key.target,
        "entry_threshold": key.entry_threshold,
        "four_and_pair_is_three_pairs": key.four_and_pair,
        "error_bound": key.epsilon,
    }


@solve_app.command("tenthousand")
def solve(
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
    option: OptionList = typer.Option(None, "--option", "-o", help="A game option, name=value."),
    recompute: bool = typer.Option(
        False, "--recompute", help="Solve again even when the tables are cached."
    ),
) -> None:
    """Solve Ten Thousand exactly: best points per turn, fewest turns alone, best chance to win."""
    options = GAME.options(parse_pairs(option or []))
    start = time.perf_counter()
    key = cache.SolveKey.of(options)
    with solve_progress(f"Solving Ten Thousand (target {key.target:,})") as report:
        solved = cache.solution(key, report, recompute=recompute)
    report_data = solve_report(solved, time.perf_counter() - start)
    if as_json:
        print_json(report_data)
        return
    _print_solve(report_data)


def _print_solve(data: dict[str, Any]) -> None:
    table = RichTable(title="Ten Thousand, solved exactly", title_justify="left", show_header=False)
    table.add_column("figure")
    table.add_column("value", justify="right")
    table.add_row("expected points of one turn, best play", f"{data['max_expected_turn']:.2f}")
    table.add_row(
        f"fewest expected turns to {data['target']:,} alone (entry {data['entry_threshold']:,})",
        f"{data['expected_turns_to_target']:.3f}",
    )
    table.add_row("first seat's chance to win, best play by both", f"{data['first_seat_win']:.4%}")
    console.print(table)
    thresholds = RichTable(
        title="Most points per turn: bank once the turn total reaches",
        title_justify="left",
    )
    thresholds.add_column("dice left to roll", justify="right")
    thresholds.add_column("in the game", justify="right")
    thresholds.add_column("not yet in", justify="right")
    for n in range(1, DICE + 1):
        label = "6 (hot dice)" if n == DICE else str(n)
        entered = data["bank_thresholds"][str(n)]
        before = data["bank_thresholds_before_entry"][str(n)]
        thresholds.add_row(label, _points_or_never(entered), _points_or_never(before))
    console.print(thresholds)
    how = "read from the cache" if data["cached"] else "solved now"
    console.print(
        f"Tables {how} ({data['solve_seconds']:.1f} s to solve, "
        f"{data['solve_cpu_seconds']:.1f} s of CPU); this took {data['seconds']:.2f} s. "
        f"Chances are exact to within {data['error_bound']:g}."
    )


def _points_or_never(points: int | None) -> str:
    return "never" if points is None else f"{points:,}"


def hint_report(hint: Hint) -> dict[str, Any]:
    """The JSON shape of ``hint tenthousand``: every choice with its value, best first."""
    return {
        "roll": list(hint.roll),
        "turn_total": hint.turn_total,
        "banked": hint.banked,
        "opponent": hint.opponent,
        "measure": hint.measure,
        "last_turn": hint.last_turn,
        "options": [
            {
                "keep": list(c.keep),
                "points": c.points,
                "turn_total": c.turn_total,
                "then": c.then,
                "dice_to_roll": c.dice_to_roll,
                "value": c.value,
            }
            for c in hint.choices
        ],
    }


@hint_app.command("tenthousand")
def hint(
    roll: str = typer.Option(..., "--roll", help="The dice just rolled, e.g. 1,2,2,2,4,5."),
    turn: int = typer.Option(0, "--turn", help="The turn total before this roll."),
    banked: int = typer.Option(0, "--banked", help="Your banked total."),
    opponent: int = typer.Option(0, "--opponent", help="The opponent's banked total."),
    solo: bool = typer.Option(
        False, "--solo", help="Rank by the points this turn is expected to bank instead."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
    option: OptionList = typer.Option(None, "--option", "-o", help="A game option, name=value."),
) -> None:
    """Every choice after a roll (set aside, then bank or roll on), best first."""
    faces = parse_faces(roll, min_count=1, max_count=DICE, what="roll")
    options = GAME.options(parse_pairs(option or []))
    if solo:
        result = solo_hint(faces, turn, banked, options)
    else:
        check_position(faces, turn, banked, options, opponent)  # before a first solve
        solved = cache.solution(cache.SolveKey.of(options))
        result = duel_hint(faces, turn, banked, opponent, options, solved)
    if as_json:
        print_json(hint_report(result))
        return
    _print_hint(result)


def _print_hint(hint: Hint) -> None:
    where = f"turn total {hint.turn_total}, banked {hint.banked:,}"
    if hint.opponent is not None:
        where += f", opponent {hint.opponent:,}"
        if hint.last_turn:
            where += " (final round: your last turn)"
    if not hint.choices:
        console.print(f"Roll {_faces(hint.roll)}: no scoring dice. This roll zeroes out.")
        return
    measure = "chance to win" if hint.measure == "win_probability" else "expected points"
    table = RichTable(title=f"Roll {_faces(hint.roll)}; {where}", title_justify="left")
    table.add_column("#", justify="right")
    table.add_column("set aside")
    table.add_column("points", justify="right")
    table.add_column("then")
    table.add_column(measure, justify="right")
    for number, choice in enumerate(hint.choices, 1):
        then = (
            f"bank {choice.turn_total:,}"
            if choice.then == "bank"
            else f"roll {_dice_left(choice.dice_to_roll % DICE)} at {choice.turn_total:,}"
        )
        value = (
            f"{choice.value:.2%}" if hint.measure == "win_probability" else f"{choice.value:.1f}"
        )
        table.add_row(str(number), _faces(choice.keep), str(choice.points), then, value)
    console.print(table)


# -- the terminal game -------------------------------------------------------------------------


def _faces(dice: Sequence[int]) -> str:
    return ",".join(str(d) for d in dice)


def _dice(dice: Sequence[int]) -> str:
    return " ".join(f"[bold]\\[{d}][/]" for d in dice)


def _dice_left(left: int) -> str:
    return "6 (hot dice)" if left == 0 else f"{left} {'die' if left == 1 else 'dice'}"


def _verb(name: str, verb: str) -> str:
    """``verb`` agreeing with ``name``: "rolls", but "roll" after "You"."""
    return verb.removesuffix("s") if name == "You" else verb


def _does(name: str, verb: str) -> str:
    return f"{name} {_verb(name, verb)}"


def _whose(name: str) -> str:
    return "Your" if name == "You" else f"{name}'s"


def _cents(cents: int) -> str:
    return f"${cents // 100}.{cents % 100:02d}"


class TenThousandUI:
    """The Rich terminal screen of Ten Thousand (no hidden information: everyone sees all)."""

    def render(self, console: Console, view: TenThousandView, names: Sequence[str]) -> None:
        """Draw the scoreboard, the pot, the turn so far and the dice on the table."""
        state = view.state
        opts = state.options
        table = RichTable(
            title=f"Ten Thousand: first to {opts.target:,}, pot {_cents(state.pot)}",
            title_justify="left",
        )
        for column in ("", "player", "banked", "paid in"):
            table.add_column(column, justify="left" if column == "player" else "right")
        for seat, name in enumerate(names):
            mark = "▶" if seat == state.current and state.phase != "over" else ""
            banked = f"{state.banked[seat]:,}" if state.entered(seat) else "not in yet"
            table.add_row(mark, name, banked, _cents(state.paid[seat]))
        console.print()
        console.print(table)
        if state.final_trigger is not None and state.phase != "over":
            console.print(
                f"[bold magenta]Final round:[/] {names[state.final_trigger]} reached "
                f"{opts.target:,}; {state.final_left} more turn(s) to play."
            )
        name = names[state.current]
        kept = " + ".join(_faces(k) for k in state.kept) or "nothing yet"
        console.print(
            f"[bold]{_whose(name)}[/] turn. "
            f"Turn total [bold]{state.turn_total}[/], set aside: {kept}."
        )
        if state.phase == "set_aside":
            console.print(f"Rolled: {_dice(state.dice)}")
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
        for number, action in enumerate(choices, 1):
            left = state.in_hand - len(action.dice)
            console.print(
                f"  {number:>2}) set aside {_faces(action.dice):<12} {action.points:>5} points, "
                f"then {_dice_left(left)} to roll"
            )
        numbers = "1" if len(choices) == 1 else f"1-{len(choices)}"
        while True:
            text = console.input(
                f"Set aside which? {numbers} from the list, or the dice like 1,5: "
            ).strip()
            if not text:
                console.print("[red]Type a number from the list, or the dice to set aside.[/]")
                continue
            if text.isdigit() and "," not in text:
                number = int(text)
                if 1 <= number <= len(choices):
                    return choices[number - 1]
                console.print(f"[red]Choose a number from 1 to {len(choices)}.[/]")
                continue
            try:
                dice = parse_faces(text, min_count=1, max_count=DICE)
            except InvalidInput as exc:
                console.print(f"[red]{escape(str(exc))}[/]")
                continue
            wanted = SetAside(dice)
            if wanted in choices:
                return choices[choices.index(wanted)]
            console.print(f"[red]Not allowed:[/] {GAME.why_illegal(state, state.current, wanted)}")

    def _choose_bank_or_roll(
        self, console: Console, state: TenThousandState, legal: Sequence[TenThousandAction]
    ) -> TenThousandAction:
        roll_on = f"roll {_dice_left(state.in_hand)}"
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
            console.print(f"{_does(name, 'rolls')} {_dice(rolled)}")
        elif isinstance(event, Acted) and isinstance(event.action, SetAside):
            gained = now.turn_total - prior.turn_total
            console.print(
                f"{_does(name, 'sets')} aside {_faces(event.action.dice)} for {gained}: "
                f"turn total {now.turn_total}."
            )
            if now.hot_dice:
                console.print("[bold green]Hot dice![/]")
        elif isinstance(event, Acted) and isinstance(event.action, Bank):
            console.print(
                f"{_does(name, 'banks')} {prior.turn_total}: "
                f"total [bold]{now.banked[prior.current]:,}[/]."
            )
        if now.turns > prior.turns and now.last is not None and now.last.zeroed:
            fine = (
                f", and {_verb(name, 'pays')} {now.last.penalty}¢ into the pot"
                if now.last.penalty
                else ""
            )
            console.print(
                f"[red]No scoring dice: {name} zeroed out on {_faces(now.last.zero_roll)}[/] "
                f"({_verb(name, 'loses')} {now.last.lost}{fine})."
            )
        if prior.final_trigger is None and now.final_trigger is not None:
            others = (
                "the game is over"
                if now.phase == "over"
                else ("every other player gets one more turn")
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
                _cents(state.paid[seat]),
                _cents(won),
                f"{sign}{_cents(abs(net))}",
            )
        console.print(table)
        winners = " and ".join(names[w] for w in result.winners)
        verb = "share the win" if len(result.winners) > 1 else _verb(winners, "wins")
        console.print(f"[bold green]{winners} {verb}[/] and the pot of {_cents(state.pot)}.")


register_ui("tenthousand", TenThousandUI())
