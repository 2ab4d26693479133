"""Bull's Eye on the command line: ``hint``, ``odds`` and the terminal game."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any, Optional, TypeVar

import typer
from rich.console import Console
from rich.table import Table

from dicehall.cli.apps import hint_app, odds_app
from dicehall.cli.common import console, print_json
from dicehall.cli.terminal import register_ui
from dicehall.engine.errors import InvalidInput
from dicehall.engine.events import Acted, Event
from dicehall.engine.game import Result
from dicehall.games.bullseye.model import (
    BullseyeAction,
    BullseyeView,
    RoundSummary,
    RoundView,
    Stop,
    ThrowOn,
)
from dicehall.games.bullseye.odds import target_distribution, target_mean
from dicehall.games.bullseye.rules import throwing_order
from dicehall.games.bullseye.scoring import THROWS, round_score
from dicehall.games.bullseye.stopping import Hint, hint, turn_value

T = TypeVar("T")


# -- hint and odds ---------------------------------------------------------------------------


def hint_json(result: Hint) -> dict[str, Any]:
    """The JSON shape of ``hint bullseye --json``."""
    return {
        "stop": None if result.stop is None else float(result.stop),
        "throw": None if result.throw is None else float(result.throw),
        "best": result.best,
    }


def _throw_label(throws: int) -> str:
    dice = THROWS - throws
    return f"throw {dice} {'die' if dice == 1 else 'dice'}" if dice else "throw on"


@hint_app.command("bullseye")
def hint_command(
    target: int = typer.Option(..., "--target", help="The Bull's Eye to match (14 to 32)."),
    total: int = typer.Option(0, "--total", help="Your total so far."),
    throws: Optional[int] = typer.Option(  # noqa: UP045 - Typer needs Optional here
        None, "--throws", help="Throws you have taken (0 to 3); needed with --total."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Stop or throw on: the expected points of each under best play afterwards."""
    if throws is None:
        if total != 0:
            raise InvalidInput("--total needs --throws: how many throws make up that total")
        throws = 0
    result = hint(target, total, throws)
    if as_json:
        print_json(hint_json(result))
        return
    taken = f"{throws} throw{'s' * (throws != 1)} taken"
    console.print(f"Bull's Eye {target}: total {total}, {taken}")
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


@odds_app.command("bullseye")
def odds_command(
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """The exact distribution of the Bull's Eye the lead sets."""
    dist = target_distribution()
    mean = target_mean()
    if as_json:
        print_json({"target": {str(t): float(p) for t, p in dist.items()}, "mean": float(mean)})
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


# -- the terminal game -----------------------------------------------------------------------


def _dice(dice: Sequence[int]) -> str:
    return " ".join(str(d) for d in dice) if dice else "-"


def _throws(counted: Sequence[Sequence[int]]) -> str:
    return " | ".join(_dice(t) for t in counted) or "-"


def _chips(n: int) -> str:
    return f"{n} chip" if n == 1 else f"{n} chips"


def _verb(name: str, verb: str) -> str:
    """``verb`` agreeing with ``name``: "You throw", "alice throws"."""
    return verb[:-1] if name == "You" else verb


def _ask(console: Console, prompt: str, parse: Callable[[str], T]) -> T:
    """Ask until ``parse`` accepts the answer; EOF and Ctrl-C propagate."""
    while True:
        answer = console.input(prompt)
        try:
            return parse(answer.strip().lower())
        except ValueError as exc:
            console.print(f"[red]{exc}[/]")


def _bet_parser(limit: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        if text == "":
            return 0
        if not text.isdigit() or int(text) > limit:
            raise ValueError(f"Type a whole number of chips from 0 to {limit}.")
        return int(text)

    return parse


def _stop_or_throw(text: str) -> bool:
    if text in ("s", "stop"):
        return False
    if text in ("t", "throw"):
        return True
    raise ValueError("Type s to stop or t to throw on.")


class BullseyeUI:
    """The Bull's Eye screen: the round table, prompts for bets and stop or throw."""

    def render(self, console: Console, view: BullseyeView, names: Sequence[str]) -> None:
        """Draw the round as ``view``'s seat sees it (nothing is hidden in Bull's Eye)."""
        rnd = view.round
        if rnd is None:
            return
        limit = f" of {view.rounds_limit}" if view.rounds_limit else ""
        target = f"{rnd.target}" + ("" if rnd.target_set else " so far")
        table = Table(
            title=f"Round {rnd.number}{limit} (lead: {names[rnd.lead]}); Bull's Eye {target}"
        )
        for column in ("seat", "throws", "total", "score", "bet", "points", "bank"):
            table.add_column(column, justify="left" if column in ("seat", "throws") else "right")
        for seat in rnd.order:
            marker = " (lead)" if seat == rnd.lead else ""
            marker += " <" if seat == rnd.thrower else ""
            total, score = rnd.totals[seat], rnd.scores[seat]
            table.add_row(
                names[seat] + marker,
                _throws(rnd.counted[seat]),
                "" if total is None else str(total),
                "" if score is None else str(score),
                str(rnd.bets[seat]),
                str(view.points[seat]),
                str(view.banks[seat]),
            )
        table.caption = f"pot: {_chips(view.pot)}"
        console.print(table)

    def choose(
        self,
        console: Console,
        view: BullseyeView,
        legal: Sequence[BullseyeAction],
        names: Sequence[str],
    ) -> BullseyeAction:
        """Ask for a bet (when one is possible), then stop or throw on (when both are)."""
        rnd = view.round
        if rnd is None or view.seat is None:
            raise ValueError("no move to choose outside a round")
        seat = view.seat
        if seat != rnd.lead:
            total = rnd.totals[seat] or 0
            console.print(
                f"Your total is [bold]{total}[/] against the Bull's Eye [bold]{rnd.target}[/]"
                f" (stopping now scores {round_score(total, rnd.target)})."
            )
        top_bet = max(a.bet for a in legal)
        bet = 0
        if top_bet > 0:
            bet = _ask(
                console,
                f"Bet how many chips into the pot? (0 to {top_bet}, Enter for none): ",
                _bet_parser(top_bet),
            )
        may_throw = any(isinstance(a, ThrowOn) for a in legal)
        may_stop = any(isinstance(a, Stop) for a in legal)
        if may_throw and may_stop:
            dice = 3 - len(rnd.counted[seat])
            throw_on = _ask(
                console,
                f"Stop (s) or throw {dice} {'die' if dice == 1 else 'dice'} (t)? ",
                _stop_or_throw,
            )
        else:
            throw_on = may_throw
            if seat == rnd.lead:
                console.print(
                    "You throw again: the lead takes all three throws."
                    if throw_on
                    else f"Your third throw is done: the Bull's Eye is {rnd.target}."
                )
            else:
                console.print("That was your third throw.")
        return ThrowOn(bet) if throw_on else Stop(bet)

    def narrate(
        self,
        console: Console,
        before: BullseyeView,
        event: Event,
        after: BullseyeView,
        names: Sequence[str],
    ) -> None:
        """Say what happened: throws, re-rolls, counted throws, bets, stops, round ends."""
        if isinstance(event, Acted):
            self._narrate_action(console, before, event, after, names)
        elif before.lead_choice is not None:
            faces = [int(f) for f in event.outcome]
            self._narrate_lead_throw(console, before, faces, after, names)
        elif before.round is not None and after.round is not None:
            self._narrate_throw(console, before.round, after.round, names)

    def show_result(
        self, console: Console, view: BullseyeView, result: Result, names: Sequence[str]
    ) -> None:
        """The final points and banks, and who won."""
        rounds = f"{result.turns} round{'s' * (result.turns != 1)}"
        console.print(f"[bold]Final standing after {rounds}[/]")
        table = Table()
        for column in ("seat", "points", "bank"):
            table.add_column(column, justify="left" if column == "seat" else "right")
        for seat, name in enumerate(names):
            table.add_row(name, str(view.points[seat]), str(view.banks[seat]))
        if view.pot:
            table.caption = f"{_chips(view.pot)} left in the pot"
        console.print(table)
        winners = " and ".join(names[w] for w in result.winners)
        verb = "share the win" if len(result.winners) > 1 else "wins"
        console.print(f"[bold green]{winners} {verb}[/] with {max(view.points)} points.")

    # -- narration helpers -------------------------------------------------------------------

    def _narrate_lead_throw(
        self,
        console: Console,
        before: BullseyeView,
        faces: Sequence[int],
        after: BullseyeView,
        names: Sequence[str],
    ) -> None:
        choice = before.lead_choice
        assert choice is not None
        seat = choice.contenders[len(choice.throws)]
        name = names[seat]
        console.print(f"{name} {_verb(name, 'throws')} for the lead: {_dice(faces)} = {sum(faces)}")
        if after.lead_choice is not None and not after.lead_choice.throws:
            tied = ", ".join(names[s] for s in after.lead_choice.contenders)
            console.print(f"[yellow]Tie for the highest throw: {tied} throw again.[/]")
        elif after.round is not None:
            lead = names[after.round.lead]
            console.print(f"[bold]{lead} {_verb(lead, 'leads')} the first round.[/]")

    def _narrate_throw(
        self, console: Console, before: RoundView, after: RoundView, names: Sequence[str]
    ) -> None:
        name = names[before.thrower]
        if before.dice:
            moved = _dice([after.dice[p] for p in before.rerolling])
            face = before.dice[before.rerolling[0]]
            console.print(
                f"{name} {_verb(name, 're-rolls')} the {face}s: {moved}, making {_dice(after.dice)}"
            )
        else:
            console.print(f"{name} {_verb(name, 'throws')} {_dice(after.dice)}")
        if after.rerolling:
            face = after.dice[after.rerolling[0]]
            what = "three" if len(after.rerolling) == 3 else "a pair of"
            console.print(f"  {what} {face}s: the matching rule re-rolls them")
            return
        if before.thrower == before.lead:
            console.print(f"  counts: the Bull's Eye is {after.target} so far")
        else:
            console.print(f"  counts: total {after.totals[before.thrower]}")

    def _narrate_action(
        self,
        console: Console,
        before: BullseyeView,
        event: Acted,
        after: BullseyeView,
        names: Sequence[str],
    ) -> None:
        action = event.action
        name = names[event.seat]
        rnd = before.round
        assert rnd is not None and isinstance(action, Stop | ThrowOn)
        if action.bet:
            pot = before.pot + action.bet
            console.print(f"{name} {_verb(name, 'bets')} {_chips(action.bet)} (pot {pot})")
        if isinstance(action, ThrowOn):
            if event.seat != rnd.lead:
                dice = THROWS - len(rnd.counted[event.seat])
                noun = "die" if dice == 1 else "dice"
                console.print(f"{name} {_verb(name, 'throws')} on with {dice} {noun}")
        elif event.seat == rnd.lead:
            console.print(f"[bold]The Bull's Eye is {rnd.target}.[/]")
        else:
            total = rnd.totals[event.seat]
            console.print(f"{name} {_verb(name, 'stops')} on {total}")
        if len(after.history) > len(before.history):
            self._narrate_round_end(console, after.history[-1], names)

    def _narrate_round_end(
        self, console: Console, summary: RoundSummary, names: Sequence[str]
    ) -> None:
        console.print(f"[bold]Round {summary.number} over[/] (Bull's Eye {summary.target}):")
        for seat in throwing_order(summary.lead, len(summary.scores))[1:]:
            console.print(f"  {names[seat]}: {summary.totals[seat]} scores {summary.scores[seat]}")
        takers = [s for s, w in enumerate(summary.won) if w]
        if takers:
            who = " and ".join(f"{names[s]} ({summary.won[s]})" for s in takers)
            console.print(f"  the pot of {_chips(summary.pot)} goes to {who}")
        if summary.carried:
            console.print(f"  {_chips(summary.carried)} carried over in the pot")


register_ui("bullseye", BullseyeUI())
