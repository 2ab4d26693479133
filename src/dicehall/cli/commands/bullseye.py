"""Bull's Eye commands: ``hint bullseye`` and ``odds bullseye``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from itertools import combinations
from typing import Annotated

import typer
from rich.table import Table

from dicehall.cli.apps import Groups
from dicehall.cli.common import Json, Report, console, print_report, print_seat_hint
from dicehall.cli.narration import counted
from dicehall.engine.errors import InvalidInput
from dicehall.games.bullseye.model import (
    BullseyeAction,
    BullseyeOptions,
    BullseyeView,
    Stop,
    ThrowOn,
)
from dicehall.games.bullseye.odds import target_distribution, target_mean
from dicehall.games.bullseye.rules import GAME
from dicehall.games.bullseye.scoring import DICE, THROWS, dice_for, lead_counted
from dicehall.games.bullseye.stopping import check_position, hint, turn_value

Throw = tuple[int, ...]

# -- hint bullseye ------------------------------------------------------------------------------


def _throws_adding_to(
    total: int, sizes: Sequence[int], parts: Sequence[int] = ()
) -> tuple[Throw, ...] | None:
    """Throws of ``sizes`` dice, each showing different faces (so each counts at once), that
    add up to ``total``: every die, or for the lead's throws (``parts``) the highest few."""
    if not sizes:
        return () if total == 0 else None
    size, counted_dice = sizes[0], (parts[0] if parts else sizes[0])
    for throw in combinations(range(6, 0, -1), size):
        rest = _throws_adding_to(total - sum(throw[:counted_dice]), sizes[1:], parts[1:])
        if rest is not None:
            return (throw, *rest)
    return None


@cache
def _lead_throws(target: int) -> tuple[Throw, ...]:
    """Three throws of the lead that set the Bull's Eye at ``target``."""
    parts = tuple(lead_counted(throw) for throw in range(THROWS))
    found = _throws_adding_to(target, (DICE,) * THROWS, parts)
    assert found is not None, target  # check_position allows reachable targets only
    return found


def hint_position(
    target: int, total: int, throws: int
) -> tuple[BullseyeView, Sequence[BullseyeAction]]:
    """The view and legal moves of the seat after the lead, who has ``total`` from ``throws``
    counted throws against a Bull's Eye of ``target``, played out by the rules (3 seats)."""
    check_position(target, total, throws)
    sizes = tuple(dice_for(taken, lead=False) for taken in range(throws))
    mine = _throws_adding_to(total, sizes)
    assert mine is not None  # check_position allows reachable totals only
    state = GAME.start(3, BullseyeOptions())
    for first in ((6, 5, 4), (3, 2, 1), (3, 2, 1)):  # seat 0 throws highest: it leads
        state = GAME.resolve(state, first)
    for number, throw in enumerate(_lead_throws(target), 1):
        state = GAME.resolve(state, throw)
        state = GAME.act(state, 0, ThrowOn() if number < THROWS else Stop())
    for number, throw in enumerate(mine):
        if number:
            state = GAME.act(state, 1, ThrowOn())
        state = GAME.resolve(state, throw)
    return GAME.view(state, 1), GAME.legal(state, 1)


def _throw_label(throws: int) -> str:
    dice = THROWS - throws
    return f"throw {counted(dice, 'die')}" if dice else "throw on"


def hint_command(
    target: Annotated[int, typer.Option("--target", help="The Bull's Eye to match (14 to 32).")],
    total: Annotated[int, typer.Option("--total", help="Your total so far.")] = 0,
    throws: Annotated[
        int | None,
        typer.Option("--throws", help="Throws you have taken (0 to 3); needed with --total."),
    ] = None,
    as_json: Json = False,
) -> None:
    """Stop or throw on: the expected points of each under best play afterwards.

    With --json: the seat's hint exactly as the site gives it (before the first throw there
    is nothing to decide).
    """
    if throws is None:
        if total != 0:
            raise InvalidInput("--total needs --throws: how many throws make up that total")
        throws = 0
    if as_json:
        print_seat_hint("bullseye", *hint_position(target, total, throws))
        return
    result = hint(target, total, throws)
    console.print(f"Bull's Eye {target}: total {total}, {counted(throws, 'throw')} taken")
    table = Table()
    table.add_column("choice")
    table.add_column("expected points", justify="right")
    table.add_column("")
    rows: list[tuple[str, Fraction | None, str]] = [
        ("stop", result.stop, "stop"),
        (_throw_label(throws), result.throw, "throw"),
    ]
    for label, points, key in rows:
        if points is None:
            table.add_row(label, "not allowed", "")
        else:
            table.add_row(label, f"{float(points):.3f}", "best" if key == result.best else "")
    console.print(table)
    from dicehall.games.bullseye.seat_hint import BASIS

    console.print(f"[dim]{BASIS}[/]")  # the same sentence as the site's hint panel


# -- odds bullseye ------------------------------------------------------------------------------


@dataclass(frozen=True)
class OddsReport(Report):
    """``odds bullseye``: the chance of each Bull's Eye the lead sets, and its mean."""

    target: dict[str, float]
    mean: float


def odds_command(as_json: Json = False) -> None:
    """The exact distribution of the Bull's Eye the lead sets."""
    dist = target_distribution()
    mean = target_mean()
    if as_json:
        print_report(OddsReport({str(t): float(p) for t, p in dist.items()}, float(mean)))
        return
    table = Table(title="The Bull's Eye: exact distribution")
    table.add_column("Bull's Eye", justify="right")
    table.add_column("chance", justify="right")
    table.add_column("exactly", justify="right")
    for t, p in dist.items():
        table.add_row(str(t), f"{float(p):.4%}", str(p))
    console.print(table)
    console.print(
        f"Mean Bull's Eye {float(mean):.3f}. A seat playing best scores "
        f"{float(turn_value()):.3f} points a round on average."
    )


def register(groups: Groups) -> None:
    """Add ``hint bullseye`` and ``odds bullseye``."""
    groups.hint.command("bullseye")(hint_command)
    groups.odds.command("bullseye")(odds_command)
