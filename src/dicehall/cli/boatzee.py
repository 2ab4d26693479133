"""Boatzee in the terminal: ``dicehall score boatzee`` and the interactive scorecard screen."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, TimeElapsedColumn
from rich.progress import Progress as RichProgress
from rich.prompt import Prompt
from rich.table import Table as RichTable

from dicehall.cli.apps import hint_app, score_app, solve_app
from dicehall.cli.common import console, err_console, print_json
from dicehall.cli.terminal import register_ui
from dicehall.engine.errors import InvalidInput
from dicehall.engine.events import Acted, Event, Resolved
from dicehall.engine.game import Result
from dicehall.engine.notation import parse_faces
from dicehall.engine.storage import data_dir
from dicehall.games.boatzee.card import (
    EXTRA_BOATZEE_BONUS,
    UPPER_BONUS_THRESHOLD,
    Card,
    Ruleset,
    column_total,
    extra_bonus_due,
    gain,
    preview,
    total,
    upper_bonus,
    upper_total,
    why_not_allowed,
)
from dicehall.games.boatzee.hints import Choice, hint, scored_card
from dicehall.games.boatzee.notation import SHORT, parse_box, parse_box_and_column
from dicehall.games.boatzee.rules import (
    GAME,
    BoatzeeOptions,
    BoatzeeView,
    Reroll,
    Score,
    variant_title,
)
from dicehall.games.boatzee.scoring import BOX_INDEX, BOXES, TITLES, Box, all_scores, joker_score
from dicehall.games.boatzee.table_cache import Progress, load, solve_and_store
from dicehall.games.boatzee.valuation import for_game

# -- dicehall score boatzee --------------------------------------------------------------------


@score_app.command("boatzee")
def score_boatzee(
    dice: str = typer.Argument(..., help="Five dice, e.g. 3,3,3,5,5."),
    columns: int = typer.Option(1, "--columns", help="1, 2 or 3 (Boatzee, Double, Triple)."),
    ruleset: str = typer.Option("boatzee", "--ruleset", help="boatzee or yahtzee."),
    joker: bool = typer.Option(
        False, "--joker", help="yahtzee ruleset: score a five of a kind as a joker."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
) -> None:
    """Points for every box (per column when there are several), unmultiplied in column 1."""
    options = GAME.options({"columns": columns, "ruleset": ruleset})
    faces = parse_faces(dice, count=5)
    if joker and options.ruleset != "yahtzee":
        raise InvalidInput("--joker needs --ruleset yahtzee (Boatzee has no joker rule)")
    if joker and len(set(faces)) != 1:
        raise InvalidInput("--joker needs a five of a kind")
    # As a joker every Boatzee box is already filled, so that box is left out.
    base = (
        {box: joker_score(box, faces) for box in BOXES if box != "boatzee"}
        if joker
        else all_scores(faces)
    )
    per_column = [{box: k * points for box, points in base.items()} for k in range(1, columns + 1)]
    if as_json:
        data: dict[str, Any] = {"dice": list(faces), "boxes": base}
        if columns > 1:
            data["columns"] = per_column
        print_json(data)
        return
    table = RichTable(title=f"{' '.join(map(str, faces))} in {variant_title(options)}")
    table.add_column("box")
    for k in range(1, columns + 1):
        table.add_column(f"column {k} (x{k})" if columns > 1 else "points", justify="right")
    for box in base:
        table.add_row(TITLES[box], *(str(c[box]) for c in per_column))
    if joker:
        table.caption = "as a joker (every Boatzee box filled): straights and Full House in full"
    console.print(table)


# -- dicehall solve boatzee / dicehall hint boatzee --------------------------------------------


def _ruleset(text: str) -> Ruleset:
    options = GAME.options({"ruleset": text.strip().lower()})
    return options.ruleset


@contextmanager
def _solving(rules: Ruleset) -> Iterator[Progress]:
    """A progress bar on standard error while a table is solved; yields its callback."""
    from dicehall.games.boatzee.solver import compile_kernels

    with err_console.status("Preparing the solver (compiled once, then cached)"):
        compile_kernels()
    with RichProgress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err_console,
        transient=True,
    ) as bar:
        title = variant_title(BoatzeeOptions(ruleset=rules))
        task = bar.add_task(f"Solving {title}: states", total=None)

        def advance(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield advance


@solve_app.command("boatzee")
def solve_boatzee(
    ruleset: str = typer.Option("boatzee", "--ruleset", help="boatzee or yahtzee."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text."),
) -> None:
    """Solve one-column solitaire play exactly: the optimal expected score and its spread.

    The solved table is cached in the user data directory for hints and the optimal bot.
    """
    rules = _ruleset(ruleset)
    with _solving(rules) as progress:
        table = solve_and_store(rules, 1, progress)
    if as_json:
        print_json(
            {
                "ruleset": rules,
                "expected": table.expected,
                "std": table.std,
                "seconds": table.seconds,
            }
        )
        return
    console.print(f"[bold]{variant_title(BoatzeeOptions(ruleset=rules))}[/], one player")
    console.print(f"Optimal expected score: [bold]{table.expected:.6f}[/]")
    console.print(f"Standard deviation:     {table.std:.4f}")
    console.print(f"Solved in {table.seconds:.2f} s; table cached in {data_dir() / 'boatzee'}")


def parse_scored(text: str) -> dict[Box, int]:
    """``ones=1,twos=2,fh=25`` as filled boxes; bad names, values or repeats raise."""
    scored: dict[Box, int] = {}
    for item in text.split(","):
        if not item.strip():
            continue
        name, sep, value = item.partition("=")
        if not sep or not value.strip().lstrip("-").isdigit():
            raise InvalidInput(
                f"--scored: expected box=points items like ones=3,fh=25, not {item.strip()!r}"
            )
        box = parse_box(name)
        if box in scored:
            raise InvalidInput(f"--scored: {TITLES[box]} is given twice")
        scored[box] = int(value)
    return scored


def _choice_text(choice: Choice) -> str:
    if choice.keep is not None:
        held = " ".join(map(str, choice.keep)) if choice.keep else "nothing"
        rolled = 5 - len(choice.keep)
        return f"keep {held}, re-roll {rolled} {'die' if rolled == 1 else 'dice'}"
    assert choice.box is not None
    return f"score {TITLES[choice.box]} ({choice.points})"


@hint_app.command("boatzee")
def hint_boatzee(
    dice: str = typer.Option(..., "--dice", help="The five dice, e.g. 1,1,2,3,4."),
    rolls_left: int = typer.Option(
        ..., "--rolls-left", help="Re-rolls left this turn: 2 after the first roll, then 1, 0."
    ),
    scored: str = typer.Option(
        "", "--scored", help="The filled boxes with their points, e.g. ones=3,fh=25."
    ),
    bonuses: int = typer.Option(
        0, "--bonuses", help="yahtzee ruleset: the 100-point bonuses already earned."
    ),
    ruleset: str = typer.Option("boatzee", "--ruleset", help="boatzee or yahtzee."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
) -> None:
    """Every choice ranked by its expected final total under optimal play (one column)."""
    rules = _ruleset(ruleset)
    faces = parse_faces(dice, count=5)
    card = scored_card(parse_scored(scored), rules, bonuses)
    if load(rules) is None:
        err_console.print("No solved table yet: solving it once (a few seconds).")
        with _solving(rules) as progress:
            solve_and_store(rules, 1, progress)
    choices = hint(card, faces, rolls_left, rules, for_game(1, rules))
    if as_json:
        print_json({"choices": [choice.as_json() for choice in choices]})
        return
    table = RichTable(
        title=f"{' '.join(map(str, faces))}, {rolls_left} re-roll{'s' if rolls_left != 1 else ''}"
        f" left, card total {total(card)}"
    )
    table.add_column("#", justify="right")
    table.add_column("choice")
    table.add_column("expected final", justify="right")
    for rank, choice in enumerate(choices, start=1):
        style = "bold green" if rank == 1 else ""
        table.add_row(str(rank), _choice_text(choice), f"{choice.expected_final:.2f}", style=style)
    table.caption = "expected final total: points on the card plus optimal play from here"
    console.print(table)


# -- the interactive screen --------------------------------------------------------------------

HELP = """\
[bold]How to move[/]
  [bold]1 3[/]           select or unselect dice by position (1 to 5)
  [bold]r[/]             re-roll the selected dice ([bold]r 1 3[/]: re-roll dice 1 and 3);
                a re-roll is final the moment it is made
  [bold]fh[/], [bold]sixes 2[/]   choose a box (and its column) to see what it would score
  [bold]c[/]             confirm the chosen box (this ends your turn)
  [bold]o[/]             start this move over: clears selection and choice, not dice
  [bold]?[/]             this help
Boxes: """ + ", ".join(f"{box} ({SHORT[box]})" for box in BOXES)


def _where(box: Box, column: int, columns: int) -> str:
    return TITLES[box] + (f" (column {column})" if columns > 1 else "")


def _verb(name: str, verb: str) -> str:
    return verb if name == "You" else verb + "s"


def _possessive(name: str) -> str:
    return "Your" if name == "You" else f"{name}'s"


class BoatzeeUI:
    """The terminal screen: dice by position, the scorecard with previews, box choice."""

    def render(self, console: Console, view: BoatzeeView, names: Sequence[str]) -> None:
        """The acting seat's scorecard with every open box's preview, then the dice."""
        seat = view.current if view.seat is None else view.seat
        console.print()
        console.print(
            f"[bold]{variant_title(view.options)}[/]: {names[seat]} to play, "
            f"turn {view.turns // len(view.cards) + 1} of {len(BOXES) * view.options.columns}"
        )
        card = view.cards[seat]
        console.print(self._card_table(view, seat, names[seat]))
        console.print("[dim](n) = what these dice would score in that open box[/]")
        line = f"[bold]Total: {view.totals[seat]}[/]"
        if view.options.ruleset == "yahtzee":
            bonus = EXTRA_BOATZEE_BONUS * card.extra_bonuses
            line += f" (Yahtzee bonuses: {card.extra_bonuses} x {EXTRA_BOATZEE_BONUS} = {bonus})"
        console.print(line)
        if len(view.cards) > 1:
            console.print(
                "Totals: " + ", ".join(f"{names[i]} {t}" for i, t in enumerate(view.totals))
            )
        self._show_dice(console, view, set())

    def _card_table(self, view: BoatzeeView, seat: int, name: str) -> RichTable:
        card = view.cards[seat]
        columns = card.columns
        shown = preview(view.dice, card, view.options.ruleset) if view.dice else None
        table = RichTable(title=f"{_possessive(name)} scorecard")
        table.add_column("box")
        for k in range(1, columns + 1):
            table.add_column(f"x{k}" if columns > 1 else "points", justify="right")
        for i, box in enumerate(BOXES):
            cells = []
            for k in range(1, columns + 1):
                value = card.boxes[k - 1][i]
                if value is not None:
                    cells.append(str(k * value))
                elif shown is not None and box in shown[k - 1]:
                    cells.append(f"[cyan]({shown[k - 1][box]})[/]")
                else:
                    cells.append("[dim]-[/]")
            table.add_row(TITLES[box], *cells, end_section=i == len(BOXES) - 1)
            if i == 5:
                table.add_row(
                    f"Upper toward {UPPER_BONUS_THRESHOLD}",
                    *(
                        f"{upper_total(card, k)}/{UPPER_BONUS_THRESHOLD}"
                        for k in range(1, columns + 1)
                    ),
                )
                table.add_row(
                    "Upper bonus",
                    *(str(upper_bonus(card, k)) for k in range(1, columns + 1)),
                    end_section=True,
                )
        table.add_row(
            "Column total",
            *(str(column_total(card, k)) for k in range(1, columns + 1)),
            end_section=True,
        )
        return table

    def _show_dice(self, console: Console, view: BoatzeeView, selected: set[int]) -> None:
        console.print("Position: " + "  ".join(str(p + 1) for p in range(len(view.dice))))
        console.print("Dice:     " + "  ".join(f"[bold]{d}[/]" for d in view.dice))
        if selected:
            marks = "  ".join("^" if p in selected else " " for p in range(len(view.dice)))
            console.print(f"Re-roll:  {marks.rstrip()}")
        left = view.rerolls_left
        console.print(
            f"{left} re-roll{'s' if left != 1 else ''} left"
            if left
            else "No re-rolls left: choose a box"
        )

    def choose(
        self, console: Console, view: BoatzeeView, legal: Sequence[Any], names: Sequence[str]
    ) -> Any:
        """Select dice, re-roll, choose a box and confirm; ``o`` starts the move over."""
        seat = view.current if view.seat is None else view.seat
        card = view.cards[seat]
        selected: set[int] = set()
        chosen: Score | None = None
        who = "Your" if names[seat] == "You" else f"{names[seat]}, your"
        while True:
            answer = Prompt.ask(f"[bold]{who} move[/] (? for help)", console=console)
            answer = answer.strip().lower()
            words = answer.replace(",", " ").split()
            if not words:
                continue
            if answer in ("?", "h", "help"):
                console.print(HELP)
            elif answer in ("o", "over", "start over"):
                selected.clear()
                chosen = None
                console.print("Move started over: nothing selected, no box chosen; the dice stay.")
                self._show_dice(console, view, selected)
            elif answer in ("c", "confirm", "y", "yes"):
                if chosen is None:
                    console.print("[red]Choose a box first[/] (for example: fh, or sixes 2).")
                else:
                    return chosen
            elif words[0] in ("r", "reroll", "re-roll"):
                positions = (
                    selected if len(words) == 1 else self._positions(console, view, words[1:])
                )
                if positions is None:
                    continue
                if view.rerolls_left == 0:
                    console.print("[red]No re-rolls left:[/] choose a box.")
                elif not positions:
                    console.print("[red]Select the dice to re-roll first[/] (for example: 1 3).")
                else:
                    return Reroll(tuple(sorted(positions)))
            elif all(w.isdigit() for w in words):
                toggled = self._positions(console, view, words)
                if toggled is None:
                    continue
                if view.rerolls_left == 0:
                    console.print("[red]No re-rolls left:[/] choose a box.")
                    continue
                selected ^= toggled
                self._show_dice(console, view, selected)
            else:
                picked = self._pick_box(console, view, card, answer, legal)
                if picked is not None:
                    chosen = picked

    def _positions(
        self, console: Console, view: BoatzeeView, words: Sequence[str]
    ) -> set[int] | None:
        digits = "".join(words)
        if not digits.isdigit():
            console.print(f"[red]Not dice positions:[/] {' '.join(words)} (use 1 to 5).")
            return None
        bad = sorted({int(c) for c in digits if not 1 <= int(c) <= len(view.dice)})
        if bad:
            console.print(f"[red]There is no die {bad[0]}:[/] positions are 1 to {len(view.dice)}.")
            return None
        return {int(c) - 1 for c in digits}

    def _pick_box(
        self, console: Console, view: BoatzeeView, card: Card, answer: str, legal: Sequence[Any]
    ) -> Score | None:
        try:
            box, column = parse_box_and_column(answer)
        except InvalidInput as exc:
            console.print(f"[red]Not understood:[/] {exc} (type ? for help).")
            return None
        ruleset = view.options.ruleset
        if column is None:
            open_in = [
                k for k in range(1, card.columns + 1) if card.boxes[k - 1][BOX_INDEX[box]] is None
            ]
            if len(open_in) > 1:
                console.print(
                    f"{TITLES[box]} is open in columns {', '.join(map(str, open_in))}: "
                    f"which one? (for example: {SHORT[box]} {open_in[-1]})"
                )
                return None
            column = open_in[0] if open_in else 1
        reason = why_not_allowed(card, view.dice, ruleset, box, column)
        if reason is not None or Score(box, column) not in legal:
            console.print(f"[red]Not allowed:[/] {reason or 'that box cannot be scored now'}.")
            return None
        points = preview(view.dice, card, ruleset)[column - 1][box]
        extra = gain(card, view.dice, ruleset, box, column) - points
        notes = []
        if extra_bonus_due(card, view.dice, ruleset):
            notes.append(f"+{EXTRA_BOATZEE_BONUS} Yahtzee bonus")
            extra -= EXTRA_BOATZEE_BONUS
        if extra:
            notes.append(f"+{extra} upper bonus")
        more = f" ({', '.join(notes)})" if notes else ""
        console.print(
            f"{_where(box, column, card.columns)} would score [bold]{points}[/]{more}. "
            "Type [bold]c[/] to confirm, another box to change, or [bold]o[/] to start over."
        )
        return Score(box, column)

    def narrate(
        self,
        console: Console,
        before: BoatzeeView,
        event: Event,
        after: BoatzeeView,
        names: Sequence[str],
    ) -> None:
        """Rolls, re-rolls and scores as they happen."""
        name = names[before.current]
        if isinstance(event, Resolved):
            dice = " ".join(map(str, after.dice))
            if before.rerolling:
                positions = ", ".join(str(p + 1) for p in before.rerolling)
                console.print(f"{name} {_verb(name, 're-roll')} dice {positions}: {dice}")
            else:
                console.print(f"{name} {_verb(name, 'roll')}: {dice}")
            return
        if isinstance(event, Acted) and isinstance(event.action, Score):
            action = event.action
            seat = event.seat
            old, new = before.cards[seat], after.cards[seat]
            value = new.boxes[action.column - 1][BOX_INDEX[action.box]]
            points = action.column * (value or 0)
            notes = []
            if new.extra_bonuses > old.extra_bonuses:
                notes.append(f"+{EXTRA_BOATZEE_BONUS} Yahtzee bonus")
            if upper_bonus(new, action.column) > upper_bonus(old, action.column):
                notes.append(f"+{upper_bonus(new, action.column)} upper bonus")
            more = f" ({', '.join(notes)})" if notes else ""
            where = _where(action.box, action.column, new.columns)
            console.print(
                f"{names[seat]} {_verb(names[seat], 'score')} {points} in {where}{more}; "
                f"total {after.totals[seat]}."
            )

    def show_result(
        self, console: Console, view: BoatzeeView, result: Result, names: Sequence[str]
    ) -> None:
        """Final totals and the winner(s); equal totals draw."""
        table = RichTable(title=f"{variant_title(view.options)}: final scores")
        table.add_column("seat")
        columns = view.options.columns
        if columns > 1:
            for k in range(1, columns + 1):
                table.add_column(f"x{k}", justify="right")
        table.add_column("total", justify="right")
        for seat, card in enumerate(view.cards):
            per_column = [str(column_total(card, k)) for k in range(1, columns + 1)]
            table.add_row(
                names[seat], *(per_column if columns > 1 else []), str(result.scores[seat])
            )
        console.print(table)
        best = result.scores[result.winners[0]]
        winners = [names[w] for w in result.winners]
        if len(view.cards) == 1:
            console.print(f"[bold]Final score: {best}[/]")
        elif len(winners) == 1:
            console.print(f"[bold green]{winners[0]} {_verb(winners[0], 'win')}[/] with {best}.")
        else:
            console.print(f"[bold yellow]Draw[/] between {' and '.join(winners)} with {best} each.")


register_ui("boatzee", BoatzeeUI())
