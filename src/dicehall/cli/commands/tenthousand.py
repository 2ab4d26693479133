"""Ten Thousand commands: ``score``, ``solve`` and ``hint tenthousand``."""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table as RichTable

from dicehall.cli.apps import Groups
from dicehall.cli.common import (
    GameOptions,
    JsonTable,
    Report,
    console,
    print_report,
    print_seat_hint,
)
from dicehall.cli.datadir import usable_data_dir
from dicehall.cli.narration import dice_to_roll, faces
from dicehall.cli.progress import progress_bar
from dicehall.engine.notation import parse_faces
from dicehall.engine.options import parse_pairs
from dicehall.games.tenthousand import GAME
from dicehall.games.tenthousand.rules import (
    DICE,
    TenThousandAction,
    TenThousandOptions,
    TenThousandView,
)
from dicehall.games.tenthousand.scoring import set_asides

if TYPE_CHECKING:
    # The solver stack (NumPy, SciPy, Numba) loads when a command needs it, not for --help.
    from dicehall.games.tenthousand.advice import Choice, Hint
    from dicehall.games.tenthousand.cache import Solution
    from dicehall.games.tenthousand.duel import Progress as SolveProgress

# -- score tenthousand --------------------------------------------------------------------------


@dataclass(frozen=True)
class SetAsideRow(Report):
    """One legal set-aside and its points."""

    keep: tuple[int, ...]
    points: int


@dataclass(frozen=True)
class ScoreReport(Report):
    """``score tenthousand``: the roll ascending and each legal set-aside, best first."""

    roll: tuple[int, ...]
    options: tuple[SetAsideRow, ...]


def score_report(roll: Sequence[int], four_and_pair: bool = False) -> ScoreReport:
    """Every legal set-aside of ``roll`` with its points."""
    dice = tuple(sorted(roll))
    rows = tuple(SetAsideRow(keep, points) for keep, points in set_asides(dice, four_and_pair))
    return ScoreReport(dice, rows)


def score(
    roll: Annotated[str, typer.Argument(help="The dice rolled, 1 to 6 of them, e.g. 1,2,2,2,4,5.")],
    as_json: JsonTable = False,
    option: GameOptions = None,
) -> None:
    """Every legal set-aside of a roll and its points, best first."""
    dice = parse_faces(roll, min_count=1, max_count=DICE, what="roll")
    options = GAME.options(parse_pairs(option or []))
    report = score_report(dice, options.four_and_pair_is_three_pairs)
    if as_json:
        print_report(report)
        return
    shown = faces(report.roll)
    if not report.options:
        console.print(f"Roll {shown}: no scoring dice. This roll zeroes out (the turn scores 0).")
        return
    table = RichTable(title=f"Roll {shown}: {len(report.options)} legal set-asides")
    table.add_column("#", justify="right")
    table.add_column("set aside")
    table.add_column("points", justify="right")
    table.add_column("then roll", justify="right")
    for number, row in enumerate(report.options, 1):
        left = len(dice) - len(row.keep)
        table.add_row(str(number), faces(row.keep), str(row.points), dice_to_roll(left))
    console.print(table)


# -- solve tenthousand --------------------------------------------------------------------------


@contextmanager
def solve_progress(description: str) -> Iterator[SolveProgress]:
    """A progress bar with the time left on standard error (terminals only) for a long solve."""
    with progress_bar(description) as advance:
        yield advance


@dataclass(frozen=True)
class SolveReport(Report):
    """``solve tenthousand``: the figures of the exact solution and how long it took."""

    max_expected_turn: float
    bank_thresholds: dict[str, int | None]
    bank_thresholds_before_entry: dict[str, int | None]
    expected_turns_to_target: float
    first_seat_win: float
    seconds: float
    solve_seconds: float
    solve_cpu_seconds: float
    cached: bool
    target: int
    entry_threshold: int
    four_and_pair_is_three_pairs: bool
    error_bound: float


def solve_report(solved: Solution, seconds: float) -> SolveReport:
    """The figures of a solution; ``seconds`` is how long getting it took."""
    from dicehall.games.tenthousand.strategy import turn_tables

    key = solved.key
    tables = turn_tables(key.entry_threshold, key.four_and_pair)
    dice = range(1, DICE + 1)
    return SolveReport(
        max_expected_turn=tables.expected_if_rolling(DICE, 0, True),
        bank_thresholds={str(n): tables.bank_threshold(n, True) for n in dice},
        bank_thresholds_before_entry={str(n): tables.bank_threshold(n, False) for n in dice},
        expected_turns_to_target=solved.solitaire.turns_to_target(0),
        first_seat_win=solved.duel.first_seat_win,
        seconds=seconds,
        solve_seconds=solved.seconds,
        solve_cpu_seconds=solved.cpu_seconds,
        cached=solved.cached,
        target=key.target,
        entry_threshold=key.entry_threshold,
        four_and_pair_is_three_pairs=key.four_and_pair,
        error_bound=key.epsilon,
    )


def solve(
    as_json: JsonTable = False,
    option: GameOptions = None,
    recompute: Annotated[
        bool,
        typer.Option(
            "--refresh", "--recompute", help="Solve again even when the tables are cached."
        ),
    ] = False,
) -> None:
    """Solve Ten Thousand exactly: best points per turn, fewest turns alone, best chance to win."""
    options = GAME.options(parse_pairs(option or []))
    start = time.perf_counter()
    from dicehall.games.tenthousand import cache

    usable_data_dir()
    key = cache.SolveKey.of(options)
    with solve_progress(f"Solving Ten Thousand (target {key.target:,})") as progress:
        solved = cache.solution(key, progress, recompute=recompute)
    report = solve_report(solved, time.perf_counter() - start)
    if as_json:
        print_report(report)
        return
    _print_solve(report)


def _points_or_never(points: int | None) -> str:
    return "never" if points is None else f"{points:,}"


def _print_solve(report: SolveReport) -> None:
    table = RichTable(title="Ten Thousand, solved exactly", title_justify="left", show_header=False)
    table.add_column("figure")
    table.add_column("value", justify="right")
    table.add_row("expected points of one turn, best play", f"{report.max_expected_turn:.2f}")
    table.add_row(
        f"fewest expected turns to {report.target:,} alone (entry {report.entry_threshold:,})",
        f"{report.expected_turns_to_target:.3f}",
    )
    table.add_row("first seat's chance to win, best play by both", f"{report.first_seat_win:.4%}")
    console.print(table)
    thresholds = RichTable(
        title="Most points per turn: bank once the turn total reaches", title_justify="left"
    )
    thresholds.add_column("dice left to roll", justify="right")
    thresholds.add_column("in the game", justify="right")
    thresholds.add_column("not yet in", justify="right")
    for n in range(1, DICE + 1):
        label = "6 (hot dice)" if n == DICE else str(n)
        entered = report.bank_thresholds[str(n)]
        before = report.bank_thresholds_before_entry[str(n)]
        thresholds.add_row(label, _points_or_never(entered), _points_or_never(before))
    console.print(thresholds)
    how = "read from the cache" if report.cached else "solved now"
    console.print(
        f"Tables {how} ({report.solve_seconds:.1f} s to solve, "
        f"{report.solve_cpu_seconds:.1f} s of CPU); this took {report.seconds:.2f} s. "
        f"Chances are exact to within {report.error_bound:g}."
    )


# -- hint tenthousand ---------------------------------------------------------------------------


def hint_position(
    roll: Sequence[int],
    turn_total: int,
    banked: int,
    opponent: int | None,
    options: TenThousandOptions,
) -> tuple[TenThousandView, Sequence[TenThousandAction]]:
    """Seat 0's view and legal actions just after rolling ``roll`` (None: playing alone).

    The position is built by the rules: a turn at ``turn_total`` with ``len(roll)`` dice in
    hand, then ``roll`` resolved (a roll that scores nothing ends the turn, as in a game).
    """
    from dicehall.games.tenthousand.advice import check_position

    dice = check_position(roll, turn_total, banked, options, opponent)
    seats = 1 if opponent is None else 2
    state = replace(
        GAME.start(seats, options),
        banked=(banked,) if opponent is None else (banked, opponent),
        in_hand=len(dice),
        turn_total=turn_total,
    )
    if opponent is not None and opponent >= options.target:
        state = replace(state, final_trigger=1, final_left=1)  # this is the last turn
    state = GAME.resolve(state, dice)
    return GAME.view(state, 0), GAME.legal(state, 0)


def hint(
    roll: Annotated[str, typer.Option("--roll", help="The dice just rolled, e.g. 1,2,2,2,4,5.")],
    turn: Annotated[int, typer.Option("--turn", help="The turn total before this roll.")] = 0,
    banked: Annotated[int, typer.Option("--banked", help="Your banked total.")] = 0,
    opponent: Annotated[int, typer.Option("--opponent", help="The opponent's banked total.")] = 0,
    solo: Annotated[
        bool,
        typer.Option("--solo", help="Rank by the points this turn is expected to bank instead."),
    ] = False,
    as_json: JsonTable = False,
    option: GameOptions = None,
) -> None:
    """Every choice after a roll (set aside, then bank or roll on), best first.

    With --json: the seat's hint exactly as the site gives it (the best set-asides by the
    points this turn is expected to bank).
    """
    dice = parse_faces(roll, min_count=1, max_count=DICE, what="roll")
    options = GAME.options(parse_pairs(option or []))
    if as_json:
        view, legal = hint_position(dice, turn, banked, None if solo else opponent, options)
        print_seat_hint("tenthousand", view, legal)
        return
    from dicehall.games.tenthousand import cache
    from dicehall.games.tenthousand.advice import check_position, duel_hint, solo_hint

    if solo:
        result = solo_hint(dice, turn, banked, options)
    else:
        check_position(dice, turn, banked, options, opponent)  # before a first solve
        usable_data_dir()
        prepare()
        solved = cache.solution(cache.SolveKey.of(options))
        result = duel_hint(dice, turn, banked, opponent, options, solved)
    _print_hint(result)
    if not solo and result.choices:
        _print_points_choice(result, solo_hint(dice, turn, banked, options))


def _print_points_choice(duel: Hint, points: Hint) -> None:
    """Beside the win-maximising ranking, the choice that maximises the turn's expected
    points, with its chance to win: where they differ, what playing for points costs."""
    best = points.choices[0]
    same = next(
        c
        for c in duel.choices
        if (c.keep, c.then, c.turn_total) == (best.keep, best.then, best.turn_total)
    )
    chosen = duel.choices[0]
    move = f"set aside {faces(best.keep)}, then {_then(best)}"
    if same == chosen:
        console.print(
            f"Playing for the most points this turn ({best.value:.1f} expected) makes the "
            f"same choice: {move}."
        )
        return
    console.print(
        f"Playing for the most points this turn would {move} ({best.value:.1f} points "
        f"expected): a {same.value:.2%} chance to win, against {chosen.value:.2%} above."
    )


def _then(choice: Choice) -> str:
    if choice.then == "bank":
        return f"bank {choice.turn_total:,}"
    return f"roll {dice_to_roll(choice.dice_to_roll % DICE)} at {choice.turn_total:,}"


def _print_hint(hint: Hint) -> None:
    where = f"turn total {hint.turn_total}, banked {hint.banked:,}"
    if hint.opponent is not None:
        where += f", opponent {hint.opponent:,}"
        if hint.last_turn:
            where += " (final round: your last turn)"
    if not hint.choices:
        console.print(f"Roll {faces(hint.roll)}: no scoring dice. This roll zeroes out.")
        return
    measure = "chance to win" if hint.measure == "win_probability" else "expected points"
    table = RichTable(title=f"Roll {faces(hint.roll)}; {where}", title_justify="left")
    table.add_column("#", justify="right")
    table.add_column("set aside")
    table.add_column("points", justify="right")
    table.add_column("then")
    table.add_column(measure, justify="right")
    for number, choice in enumerate(hint.choices, 1):
        then = _then(choice)
        value = (
            f"{choice.value:.2%}" if hint.measure == "win_probability" else f"{choice.value:.1f}"
        )
        table.add_row(str(number), faces(choice.keep), str(choice.points), then, value)
    console.print(table)
    console.print(f"[dim]{basis_text(hint.measure)}[/]")


def basis_text(measure: str) -> str:
    """What a hint's figures rest on, as the site's hint panel says it."""
    from dicehall.games.tenthousand.seat_hint import BASIS

    if measure == "win_probability":
        return "Exact: the chance to win under best play by both, from the solved two-seat game."
    return BASIS[1]  # --solo: the site's hint, the single-turn tables


def prepare() -> None:
    """Show a progress bar for every solve the tables' cache starts from now on in this
    process (bots and hints too: the cache module draws nothing itself)."""
    from dicehall.games.tenthousand import cache

    cache.show_progress_with(solve_progress)


def register(groups: Groups) -> None:
    """Add ``score``, ``solve`` and ``hint tenthousand``."""
    groups.score.command("tenthousand")(score)
    groups.solve.command("tenthousand")(solve)
    groups.hint.command("tenthousand")(hint)
