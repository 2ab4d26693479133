"""Boss Dice: ``solve boss``, the Nash equilibrium of a hand, overall or at a position."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn
from rich.table import Table as RichTable

from dicehall.cli.common import JsonText, Report, console, print_report
from dicehall.cli.datadir import saved, usable_data_dir
from dicehall.cli.screens.boss import hand_text
from dicehall.engine.errors import InvalidInput
from dicehall.engine.notation import parse_faces
from dicehall.games.boss.hands import Dice, describe, faces_text

if TYPE_CHECKING:
    # The solver stack (NumPy, SciPy) loads when the command runs, not for --help.
    from dicehall.games.boss.equilibrium import Equilibrium


def _solved(refresh: bool, show_progress: bool) -> tuple[Equilibrium, bool, float]:
    from dicehall.games.boss.equilibrium_store import load_or_solve

    start = time.perf_counter()
    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        disable=not show_progress,
        transient=True,
    ) as bar:
        task = bar.add_task("Solving the public states of a hand", total=None)

        def advance(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        solved, cached = load_or_solve(refresh=refresh, progress=advance)
    return solved, cached, time.perf_counter() - start


@dataclass(frozen=True)
class SideGain(Report):
    """What a best response gains in one hand, against each side."""

    boss: float
    opponent: float


@dataclass(frozen=True)
class SolveReport(Report):
    """``solve boss``: the figures of the equilibrium and where it is kept."""

    boss_value: float
    fresh_hand_value: float
    come_up: float
    boss_win: float
    push: float
    boss_lose: float
    pick_up: float
    exploitability: float
    exploitability_hand: SideGain
    public_states: int
    boss_chance: float
    cached: bool
    seconds: float
    path: str


def _cache_path(solved: Equilibrium) -> Path:
    from dicehall.games.boss.equilibrium_store import cache_path

    return cache_path(solved.game)


def solve_report(solved: Equilibrium, cached: bool, seconds: float) -> SolveReport:
    """The equilibrium's figures."""
    report = solved.report()
    ending, gain = report.outcome, report.exploitability
    return SolveReport(
        boss_value=report.boss_value,
        fresh_hand_value=report.fresh,
        come_up=ending.come_up,
        boss_win=ending.win,
        push=ending.push,
        boss_lose=ending.lose,
        pick_up=ending.pick_up,
        exploitability=gain.horse,
        exploitability_hand=SideGain(gain.boss, gain.opponent),
        public_states=report.public_states,
        boss_chance=report.boss_chance,
        cached=cached,
        seconds=seconds,
        path=str(_cache_path(solved)),
    )


@dataclass(frozen=True)
class KeepChance(Report):
    """One keep the opponent makes in equilibrium, and how often."""

    keep: Dice
    chance: float


@dataclass(frozen=True)
class CallChance(Report):
    """A final hand of the Boss (by its class), its chance, and how often he comes up."""

    hand: str
    chance: float
    come_up: float


@dataclass(frozen=True)
class PositionReport(Report):
    """``solve boss --roll --boss-kept``: both sides' equilibrium play at a position."""

    roll: Dice
    boss_kept: Dice
    keeps: tuple[KeepChance, ...]
    calls: tuple[CallChance, ...]
    boss: Dice | None
    come_up: float | None


def position_report(
    solved: Equilibrium, roll: Dice, kept: Dice, hand: Dice | None
) -> PositionReport:
    """The opponent's equilibrium keeps and the Boss's calls at a position."""
    game = solved.game
    return PositionReport(
        roll=tuple(sorted(roll)),
        boss_kept=tuple(sorted(kept)),
        keeps=tuple(KeepChance(k, p) for k, p in solved.keep_chances(roll, kept)),
        calls=tuple(
            CallChance(describe(game.classes[cls]), chance, come_up)
            for cls, chance, come_up in solved.calls(kept, roll)
        ),
        boss=None if hand is None else tuple(sorted(hand)),
        come_up=None if hand is None else solved.come_up_chance(hand, kept, roll),
    )


def solve(
    roll: Annotated[
        str | None,
        typer.Option(
            "--roll", help="Show the equilibrium at a position: the opponent's first roll."
        ),
    ] = None,
    boss_kept: Annotated[
        str | None, typer.Option("--boss-kept", help="With --roll: the Boss's kept dice.")
    ] = None,
    boss: Annotated[
        str | None, typer.Option("--boss", help="With --roll: the Boss's whole hand.")
    ] = None,
    refresh: Annotated[
        bool,
        typer.Option("--refresh", "--recompute", help="Solve again even when it is cached."),
    ] = False,
    as_json: JsonText = False,
) -> None:
    """A Nash equilibrium of one hand: the value of being Boss and the exploitability, or
    (--roll, --boss-kept) both sides' equilibrium play at a position."""
    position = None
    if roll is not None or boss_kept is not None or boss is not None:
        if roll is None or boss_kept is None:
            raise InvalidInput("a position needs --roll and --boss-kept (and optionally --boss)")
        from dicehall.games.boss.odds import check_position

        position = check_position(
            parse_faces(roll, count=5, what="--roll"),
            parse_faces(boss_kept, what="--boss-kept"),
            None if boss is None else parse_faces(boss, what="--boss"),
        )
    usable_data_dir()
    solved, cached, seconds = _solved(refresh, not as_json)
    if position is not None:
        first, kept, hand = position
        assert first is not None and kept is not None
        report = position_report(solved, first, kept, hand)
        if as_json:
            print_report(report)
        else:
            _print_position(report)
        return
    figures = solve_report(solved, cached, seconds)
    if as_json:
        print_report(figures)
    else:
        _print_solution(figures)


def _print_solution(report: SolveReport) -> None:
    hand = report.exploitability_hand
    console.print(
        f"[bold]Boss Dice[/]: a Nash equilibrium of one hand, {report.public_states:,} "
        "public states (LP by HiGHS); a push or pick 'em up is worth a fresh hand, "
        f"{report.fresh_hand_value:.1f}."
    )
    console.print(
        f"  Value of being Boss: [bold]{report.boss_value:.6f}[/] "
        "(his chance of winning the horse from his call on)."
    )
    console.print(
        f"  The Boss comes up in {report.come_up:.2%} of hands: he wins "
        f"{report.boss_win:.2%}, pushes {report.push:.2%}, loses "
        f"{report.boss_lose:.2%}; he picks 'em up in {report.pick_up:.2%}."
    )
    console.print(
        f"  Exploitability: {report.exploitability:.2e} over a horse "
        f"(one hand: Boss {hand.boss:.2e}, opponent {hand.opponent:.2e})."
    )
    console.print(f"  A first roll makes a Boss {report.boss_chance:.2%} of the time.")
    if report.cached:
        where = "loaded from"
    elif saved(Path(report.path)):
        where = "solved and saved to"
    else:
        where = "solved, but it could not be saved to"
    path_line = f"  {report.seconds:.1f} s, {where} {report.path}"
    console.print(path_line, markup=False, soft_wrap=True)


def _print_position(report: PositionReport) -> None:
    console.print(
        f"Equilibrium play: the Boss keeps {faces_text(report.boss_kept)}; the opponent's "
        f"first roll is {faces_text(report.roll)}."
    )
    keeps = ", ".join(f"{faces_text(k.keep) or 'nothing'} ({k.chance:.0%})" for k in report.keeps)
    console.print(f'After "come up" the opponent keeps: {keeps}.')
    table = RichTable(title="The Boss's call by his final hand", title_justify="left")
    for column in ("Boss's hand", "chance", "come up"):
        table.add_column(column, justify="left" if column == "Boss's hand" else "right")
    for call in report.calls:
        table.add_row(call.hand, f"{call.chance:.2%}", f"{call.come_up:.0%}")
    console.print(table)
    if report.boss is not None and report.come_up is not None:
        console.print(
            f"With {hand_text(report.boss)} the Boss comes up "
            f"[bold]{report.come_up:.0%}[/] of the time."
        )
