"""Hold'em Dice commands: ``odds holdem``, ``score holdem`` and ``hint holdem``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Annotated, Any

import typer
from rich.table import Table as RichTable

from dicehall.cli.apps import Groups
from dicehall.cli.commands.holdem_odds import odds_in_chunks
from dicehall.cli.common import (
    Json,
    JsonText,
    Report,
    console,
    err_console,
    print_json,
    print_report,
    seat_hint,
)
from dicehall.cli.narration import coloured_dice, counted
from dicehall.cli.progress import progress_bar
from dicehall.engine.errors import InvalidInput
from dicehall.games.holdem import GAME
from dicehall.games.holdem.dice import check_bag, parse_dice
from dicehall.games.holdem.model import ANTE, HoldemAction, HoldemOptions, HoldemView, Street
from dicehall.games.holdem.pots import UNIT
from dicehall.games.holdem.ranking import CATEGORIES, CATEGORY_TITLES, best_hand

Pocket = Annotated[str | None, typer.Option("--pocket", help="Your two pocket dice, e.g. 6r,6k.")]
Board = Annotated[str | None, typer.Option("--board", help="Community dice so far, e.g. 6w,2y,3r.")]
Opponents = Annotated[int, typer.Option("--opponents", help="Unknown hands against you (1-5).")]


def _check_opponents(opponents: int) -> None:
    if not 1 <= opponents <= 5:
        raise InvalidInput(f"--opponents: expected 1 to 5, got {opponents}")


# -- odds holdem --------------------------------------------------------------------------------


def odds(
    pocket: Pocket = None,
    board: Board = None,
    opponents: Opponents = 1,
    samples: Annotated[
        int,
        typer.Option("--samples", help="Monte Carlo deals when exact counting is too long."),
    ] = 200_000,
    seed: Annotated[
        int, typer.Option("--seed", help="Seed for Monte Carlo (same seed, same answer).")
    ] = 0,
    as_json: Json = False,
) -> None:
    """Your final-hand distribution and, with a pocket, win and tie chances."""
    mine = parse_dice(pocket or "", what="--pocket", min_count=2, max_count=2) if pocket else ()
    shared = parse_dice(board or "", what="--board", max_count=5) if board else ()
    check_bag([*mine, *shared], "--pocket and --board")
    _check_opponents(opponents)
    if not 1 <= samples <= 100_000_000:
        raise InvalidInput(f"--samples: expected 1 to 100,000,000, got {samples}")
    try:
        with progress_bar("Dealing", show=not as_json) as advance:
            result = odds_in_chunks(mine, shared, opponents, samples, seed, advance)
    except KeyboardInterrupt:
        err_console.print("Stopped (Ctrl-C): no answer, as not every deal asked for was made.")
        raise SystemExit(130) from None
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
    against = f"against {counted(opponents, 'unknown hand')}"
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


# -- score holdem -------------------------------------------------------------------------------


@dataclass(frozen=True)
class ScoreReport(Report):
    """``score holdem``: the best five of the dice and the keys that rank it."""

    dice: tuple[str, ...]
    best: tuple[str, ...]
    category: str
    faces: tuple[int, ...]
    colour: int


def score(
    dice: Annotated[str, typer.Argument(help="Five to seven dice, e.g. 6r,6k,6w,2y,2r,1k,4w.")],
    as_json: Json = False,
) -> None:
    """The best five of five to seven dice, with the three keys that rank it."""
    hand = parse_dice(dice, what="dice", min_count=5, max_count=7)
    check_bag(hand)
    best = best_hand(hand)
    report = ScoreReport(hand, best.five, best.rank.name, best.rank.faces, best.rank.colour)
    if as_json:
        print_report(report)
        return
    console.print(f"Best five: {coloured_dice(report.best)}")
    console.print(
        f"[bold]{best.rank.title}[/]; faces {','.join(map(str, report.faces))}; "
        f"{report.colour} dice of one colour"
    )


# -- hint holdem --------------------------------------------------------------------------------

_STREETS: dict[int, Street] = {0: "open", 3: "flop", 4: "turn", 5: "river"}


def hint_position(
    pocket: Sequence[str],
    board: Sequence[str],
    opponents: int,
    to_call: int,
    pot: int,
    hand: int,
    options: HoldemOptions | None = None,
) -> tuple[HoldemView, Sequence[HoldemAction]]:
    """Seat 0's view and legal actions while it bets: its pocket, the board, ``opponents``
    seats still in, ``to_call`` to match and ``pot`` in the pots; ``hand`` is the hand's
    number (it seeds the hint's Monte Carlo sample, as in a game)."""
    options = options or HoldemOptions()
    seats = opponents + 1
    start = GAME.start(seats, options)
    rest = (0,) * (seats - 2)
    state = replace(
        start,
        hand=hand,
        stage="betting",
        street=_STREETS[len(board)],
        dealing=None,
        to_act=0,
        pockets=(tuple(pocket), *(((),) * opponents)),
        board=tuple(board),
        contributions=(pot - to_call, to_call, *rest),
        round_bets=(0, to_call, *rest),
    )
    return GAME.view(state, 0), GAME.legal(state, 0)


def _chips(value: int, what: str) -> int:
    if value < 0 or value % UNIT:
        raise InvalidInput(f"{what}: chips come in tens, not {value}")
    return value


def hint(
    pocket: Annotated[str, typer.Option("--pocket", help="Your two pocket dice, e.g. 6r,6k.")],
    board: Board = None,
    opponents: Annotated[
        int, typer.Option("--opponents", help="Seats still in the hand against you (1-5).")
    ] = 1,
    to_call: Annotated[int, typer.Option("--to-call", help="Chips you must add to stay in.")] = 0,
    pot: Annotated[
        int | None,
        typer.Option("--pot", help="Chips in the pots, with the bet to call (default: antes)."),
    ] = None,
    hand: Annotated[
        int,
        typer.Option("--hand", help="The hand's number: it seeds the Monte Carlo sample."),
    ] = 1,
    as_json: JsonText = False,
) -> None:
    """Your chances to win and tie, and your pot share, against the seats still in.

    With --json: the seat's hint exactly as the site gives it.
    """
    mine = parse_dice(pocket, what="--pocket", min_count=2, max_count=2)
    shared = parse_dice(board or "", what="--board", max_count=5) if board else ()
    if len(shared) not in _STREETS:
        raise InvalidInput(f"--board: a board has 0, 3, 4 or 5 dice, not {len(shared)}")
    check_bag([*mine, *shared], "--pocket and --board")
    _check_opponents(opponents)
    _chips(to_call, "--to-call")
    chips = _chips(ANTE * (opponents + 1) if pot is None else pot, "--pot")
    if chips < to_call:
        raise InvalidInput(f"--pot: the pots hold the bet to call ({to_call}), so at least that")
    if hand < 1:
        raise InvalidInput(f"--hand: hands are numbered from 1, not {hand}")
    view, legal = hint_position(mine, shared, opponents, to_call, chips, hand)
    found = seat_hint("holdem", view, legal)
    if as_json:
        print_json(found)
        return
    _print_hint(found, view, opponents)


def _print_hint(found: dict[str, Any], view: HoldemView, opponents: int) -> None:
    console.print(
        f"Pocket {coloured_dice(view.pocket)}; board {coloured_dice(view.board)}; "
        f"against {counted(opponents, 'seat')} still in."
    )
    console.print(
        f"Win {found['win']:.2%}   tie {found['tie']:.2%}   pot share {found['share']:.2%}"
    )
    pot, to_call = found["pot"], found["to_call"]
    if to_call:
        needed = to_call / (pot + to_call)
        verdict = "calling pays" if found["share"] > needed else "calling does not pay"
        console.print(
            f"To call {to_call} into a pot of {pot}: a call needs a pot share of "
            f"{needed:.2%}; {verdict} on equity alone."
        )
    console.print(f"[dim]{found['basis_text']}[/]")


def register(groups: Groups) -> None:
    """Add ``odds holdem``, ``score holdem`` and ``hint holdem``."""
    groups.odds.command("holdem")(odds)
    groups.score.command("holdem")(score)
    groups.hint.command("holdem")(hint)
