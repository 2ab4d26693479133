"""Boatzee commands: ``score boatzee``, ``solve boatzee`` and ``hint boatzee``."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from time import perf_counter as clock
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table as RichTable

from dicehall.cli.apps import Groups
from dicehall.cli.common import (
    OMIT_NONE,
    GameOptions,
    JsonTable,
    JsonText,
    Report,
    console,
    err_console,
    print_report,
    print_seat_hint,
    with_shortcuts,
)
from dicehall.cli.datadir import usable_data_dir
from dicehall.cli.narration import counted
from dicehall.cli.progress import progress_bar
from dicehall.engine.errors import InvalidInput
from dicehall.engine.notation import parse_faces
from dicehall.engine.options import parse_pairs
from dicehall.engine.storage import data_dir
from dicehall.games.boatzee.card import Card, Joker, Ruleset, total
from dicehall.games.boatzee.notation import parse_box
from dicehall.games.boatzee.rules import (
    GAME,
    ROLLS_PER_TURN,
    BoatzeeAction,
    BoatzeeOptions,
    BoatzeeView,
    variant_title,
)
from dicehall.games.boatzee.scoring import BOXES, TITLES, Box, all_scores, joker_score

if TYPE_CHECKING:
    # The solver stack (NumPy, Numba) loads when a command needs it, not for --help.
    from dicehall.games.boatzee.table_cache import Progress

Ruleset_ = Annotated[str, typer.Option("--ruleset", help="boatzee or yahtzee.")]
Joker_ = Annotated[
    str, typer.Option("--joker", help="yahtzee ruleset: the joker rule, forced or free.")
]

# -- score boatzee ------------------------------------------------------------------------------


@dataclass(frozen=True)
class ScoreReport(Report):
    """``score boatzee``: points for every box, and per column when there are several."""

    dice: tuple[int, ...]
    boxes: dict[Box, int]
    columns: tuple[dict[Box, int], ...] | None = field(default=None, metadata=OMIT_NONE)


def score(
    dice: Annotated[str, typer.Argument(help="Five dice, e.g. 3,3,3,5,5.")],
    columns: Annotated[
        int | None,
        typer.Option(
            "--columns", help="1, 2 or 3 (Boatzee, Double, Triple); the same as -o columns=N."
        ),
    ] = None,
    ruleset: Annotated[
        str | None,
        typer.Option("--ruleset", help="boatzee or yahtzee; the same as -o ruleset=NAME."),
    ] = None,
    joker: Annotated[
        bool,
        typer.Option("--joker", help="yahtzee ruleset: score a five of a kind as a joker."),
    ] = False,
    option: GameOptions = None,
    as_json: JsonTable = False,
) -> None:
    """Points for every box (per column when there are several), unmultiplied in column 1.

    The game's options come as ``-o name=value`` (as for ``play`` and ``sim``), or through
    the shortcuts ``--columns`` and ``--ruleset``.
    """
    shortcuts = {"columns": columns, "ruleset": ruleset}
    options = GAME.options(with_shortcuts(parse_pairs(option or []), shortcuts))
    columns = options.columns
    faces = parse_faces(dice, count=5)
    if joker and options.ruleset != "yahtzee":
        raise InvalidInput("--joker needs --ruleset yahtzee (Boatzee has no joker rule)")
    if joker and len(set(faces)) != 1:
        raise InvalidInput("--joker needs a five of a kind")
    # As a joker every Boatzee box is already filled, so that box is left out.
    base: dict[Box, int] = (
        {box: joker_score(box, faces) for box in BOXES if box != "boatzee"}
        if joker
        else all_scores(faces)
    )
    per_column = tuple(
        {box: k * points for box, points in base.items()} for k in range(1, columns + 1)
    )
    report = ScoreReport(faces, base, per_column if columns > 1 else None)
    if as_json:
        print_report(report)
        return
    table = RichTable(title=f"{' '.join(map(str, faces))} in {variant_title(options)}")
    table.add_column("box")
    for k in range(1, columns + 1):
        table.add_column(f"column {k} (x{k})" if columns > 1 else "points", justify="right")
    for box in report.boxes:
        table.add_row(TITLES[box], *(str(column[box]) for column in per_column))
    if joker:
        table.caption = "as a joker (every Boatzee box filled): straights and Full House in full"
    console.print(table)


# -- solve boatzee ------------------------------------------------------------------------------


def _rules(ruleset: str, joker: str) -> BoatzeeOptions:
    """One column with this ruleset and joker rule; bad names raise InvalidOptions."""
    return GAME.options({"ruleset": ruleset.strip().lower(), "joker": joker.strip().lower()})


@contextmanager
def _solving(rules: Ruleset, joker: Joker = "forced") -> Iterator[Progress]:
    """A progress bar on standard error while a table is solved; yields its callback."""
    from dicehall.games.boatzee.solver import compile_kernels

    with err_console.status("Preparing the solver (compiled once, then cached)"):
        compile_kernels()
    title = variant_title(BoatzeeOptions(ruleset=rules, joker=joker))
    with progress_bar(f"Solving {title}: states") as advance:
        yield advance


@dataclass(frozen=True)
class SolveReport(Report):
    """``solve boatzee``: the optimal expected score of one-column solitaire and its spread."""

    ruleset: Ruleset
    expected: float
    std: float
    #: The solve itself, in seconds.
    seconds: float
    #: The yahtzee ruleset's joker rule (absent in the boatzee ruleset).
    joker: Joker | None = field(default=None, metadata=OMIT_NONE)
    #: What the command took, as the user waited: loading and compiling the solver too.
    wall_seconds: float = 0.0
    #: With ``--columns 2`` or ``3``: the tables ``strong`` plays that form by, now ready.
    column_tables: list[str] | None = field(default=None, metadata=OMIT_NONE)
    #: With ``--final-scores``: the distributions ``winmax`` plays by, now ready.
    final_scores: str | None = field(default=None, metadata=OMIT_NONE)


def _column_tables(rules: Ruleset, joker: Joker, columns: int) -> list[str]:
    """Get the tables ``strong`` plays ``columns`` columns by ready (solved if missing)."""
    names = []
    if rules == "boatzee":
        from dicehall.games.boatzee.flex_tables import flex_table

        for k in range(1, columns + 1):
            with progress_bar(f"Column x{k} with turns to spare: turns") as advance:
                flex_table(k, advance)
            names.append(f"flex-x{k}")
        return names
    from dicehall.games.boatzee.table_cache import table

    for k in range(2, columns + 1):
        with progress_bar(f"The x{k} column's table: states") as advance:
            table(rules, k, advance, joker=joker)
        names.append(f"{rules}{'' if joker == 'forced' else '-' + joker}-x{k}")
    return names


def solve(
    ruleset: Ruleset_ = "boatzee",
    joker: Joker_ = "forced",
    columns: Annotated[
        int,
        typer.Option(
            "--columns",
            min=1,
            max=3,
            help="Also get the tables the strong bot plays Double (2) or Triple (3) by.",
        ),
    ] = 1,
    final_scores: Annotated[
        bool,
        typer.Option(
            "--final-scores",
            help="Also build the final-score distributions that winmax and two-seat hints "
            "use (boatzee ruleset).",
        ),
    ] = False,
    as_json: JsonText = False,
) -> None:
    """Solve one-column solitaire play exactly: the optimal expected score and its spread.

    The solved table is cached in the user data directory for hints and the optimal bot;
    with --columns 2 or 3, so are the tables strong plays Double or Triple by; with
    --final-scores, the distributions winmax plays by.
    """
    started = clock()
    from dicehall.games.boatzee.table_cache import solve_and_store

    options = _rules(ruleset, joker)
    rules = options.ruleset
    if final_scores and rules != "boatzee":
        raise InvalidInput("--final-scores: the distributions are for the boatzee ruleset")
    usable_data_dir()
    with _solving(rules, options.joker) as progress:
        table = solve_and_store(rules, 1, progress, joker=options.joker)
    extra = _column_tables(rules, options.joker, columns) if columns > 1 else None
    finals = None
    if final_scores:
        from dicehall.games.boatzee.final_scores import build_and_store

        with progress_bar("Final scores under optimal play: states") as advance:
            build_and_store(advance)
        finals = "finals-x1"
    shown_joker = options.joker if rules == "yahtzee" else None
    report = SolveReport(
        rules,
        table.expected,
        table.std,
        table.seconds,
        shown_joker,
        wall_seconds=clock() - started,
        column_tables=extra,
        final_scores=finals,
    )
    if as_json:
        print_report(report)
        return
    console.print(f"[bold]{variant_title(options)}[/], one player")
    console.print(f"Optimal expected score: [bold]{report.expected:.6f}[/]")
    console.print(f"Standard deviation:     {report.std:.4f}")
    console.print(
        f"Solved in {report.wall_seconds:.1f} s ({report.seconds:.2f} s solving; the rest "
        "loading and compiling the solver, cached after the first time)"
    )
    if extra:
        console.print(f"Tables for {columns} columns ready: {', '.join(extra)}")
    if finals:
        console.print(f"Final-score distributions ready: {finals}")
    console.print(f"Table cached in {data_dir() / 'boatzee'}", markup=False, soft_wrap=True)


# -- hint boatzee -------------------------------------------------------------------------------


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


def hint_position(
    card: Card,
    dice: Sequence[int],
    rolls_left: int,
    ruleset: Ruleset,
    joker: Joker = "forced",
    rival: Card | None = None,
) -> tuple[BoatzeeView, Sequence[BoatzeeAction]]:
    """The view and legal moves of a player with ``card`` (one column) and ``dice`` on the
    table, ``rolls_left`` re-rolls still allowed this turn: alone, or with ``rival`` in a
    two-seat game (first to play when it has filled as many boxes, else second)."""
    from dicehall.games.boatzee.hints import MAX_REROLLS

    if not 0 <= rolls_left <= MAX_REROLLS:
        raise InvalidInput(f"rolls left must be 0, 1 or 2, not {rolls_left}")
    filled = sum(value is not None for value in card.boxes[0])
    cards: tuple[Card, ...] = (card,)
    seat = 0
    if rival is not None:
        seat = int(sum(value is not None for value in rival.boxes[0]) > filled)
        cards = (rival, card) if seat else (card, rival)
    state = replace(
        GAME.start(len(cards), BoatzeeOptions(ruleset=ruleset, joker=joker)),
        cards=cards,
        current=seat,
        dice=tuple(dice),
        rolls=ROLLS_PER_TURN - rolls_left,
        turns=filled * len(cards) + seat,
    )
    return GAME.view(state, seat), GAME.legal(state, seat)


def hint_command(
    dice: Annotated[str, typer.Option("--dice", help="The five dice, e.g. 1,1,2,3,4.")],
    rolls_left: Annotated[
        int,
        typer.Option(
            "--rolls-left", help="Re-rolls left this turn: 2 after the first roll, then 1, 0."
        ),
    ],
    scored: Annotated[
        str,
        typer.Option("--scored", help="The filled boxes with their points, e.g. ones=3,fh=25."),
    ] = "",
    bonuses: Annotated[
        int,
        typer.Option("--bonuses", help="yahtzee ruleset: the 100-point bonuses already earned."),
    ] = 0,
    ruleset: Ruleset_ = "boatzee",
    joker: Joker_ = "forced",
    opponent: Annotated[
        str | None,
        typer.Option(
            "--opponent",
            help="Two seats: the opponent's filled boxes, as --scored ('' for none yet). "
            "Ranks by the chance to win (boatzee ruleset).",
        ),
    ] = None,
    as_json: JsonTable = False,
) -> None:
    """Every choice ranked by its expected final total under optimal play (one column).

    With --opponent: ranked by the chance to finish ahead of the opponent, each choice's
    expected final total beside it. With --json: the seat's hint exactly as the site gives
    it (the best five choices; with --opponent, in a two-seat game, with their chances).
    """
    from dicehall.games.boatzee.hints import hint, scored_card
    from dicehall.games.boatzee.table_cache import load, solve_and_store
    from dicehall.games.boatzee.valuation import for_game

    options = _rules(ruleset, joker)
    rules, jokers = options.ruleset, options.joker
    faces = parse_faces(dice, count=5)
    card = scored_card(parse_scored(scored), rules, bonuses)
    rival = None
    if opponent is not None:
        from dicehall.games.boatzee.winmax import check_duel

        if rules != "boatzee":
            raise InvalidInput("--opponent: win chances are for the boatzee ruleset")
        rival = scored_card(parse_scored(opponent), rules, full_ok=True)
        check_duel(card, rival)
    view, legal = hint_position(card, faces, rolls_left, rules, jokers, rival)
    usable_data_dir()
    if load(rules, 1, jokers) is None:
        err_console.print("No solved table yet: solving it once (a few seconds).")
        with _solving(rules, jokers) as progress:
            solve_and_store(rules, 1, progress, joker=jokers)
    if as_json:
        if rival is not None:
            from dicehall.cli.commands.boatzee_duel import ready_finals

            ready_finals()  # the hint reads the distributions only when they are cached
        print_seat_hint("boatzee", view, legal)
        return
    if rival is not None:
        from dicehall.cli.commands.boatzee_duel import print_duel_hint

        print_duel_hint(card, rival, faces, rolls_left)
        return
    from dicehall.cli.commands.boatzee_duel import choice_text

    choices = hint(card, faces, rolls_left, rules, for_game(1, rules, joker=jokers), jokers)
    table = RichTable(
        title=f"{' '.join(map(str, faces))}, {counted(rolls_left, 're-roll')}"
        f" left, card total {total(card)}"
    )
    table.add_column("#", justify="right")
    table.add_column("choice")
    table.add_column("expected final", justify="right")
    for rank, choice in enumerate(choices, start=1):
        style = "bold green" if rank == 1 else ""
        table.add_row(str(rank), choice_text(choice), f"{choice.expected_final:.2f}", style=style)
    table.caption = "expected final total: points on the card plus optimal play from here"
    console.print(table)
    from dicehall.games.boatzee.seat_hint import BASIS_EXACT

    console.print(f"[dim]{BASIS_EXACT[1]}[/]")  # the same sentence as the site's hint panel


def register(groups: Groups) -> None:
    """Add ``score boatzee``, ``solve boatzee`` and ``hint boatzee``."""
    groups.score.command("boatzee")(score)
    groups.solve.command("boatzee")(solve)
    groups.hint.command("boatzee")(hint_command)
