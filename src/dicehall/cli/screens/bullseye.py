"""The Bull's Eye screen: the round's table, bets, and stop or throw on."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from rich.console import Console
from rich.table import Table

from dicehall.cli.narration import agree, counted, does, together
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
from dicehall.games.bullseye.rules import throwing_order
from dicehall.games.bullseye.scoring import THROWS, lead_counted, round_score

T = TypeVar("T")


def _dice(dice: Sequence[int]) -> str:
    return " ".join(str(d) for d in dice) if dice else "-"


def _throws(counted: Sequence[Sequence[int]]) -> str:
    return " | ".join(_dice(t) for t in counted) or "-"


def lead_split(throw: int, dice: Sequence[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The lead's ``throw`` (0, 1 or 2) split into the dice that count (the highest: three,
    two, then one) and those that do not, each high to low."""
    ordered = tuple(sorted(dice, reverse=True))
    n = lead_counted(throw)
    return ordered[:n], ordered[n:]


def lead_throws(counted: Sequence[Sequence[int]]) -> str:
    """The lead's counted throws, the dice that do not count in brackets: 4 1 5 | 4 2 (1)."""
    shown = []
    for throw, dice in enumerate(counted):
        kept, dropped = lead_split(throw, dice)
        shown.append(_dice(kept) + (f" ({_dice(dropped)})" if dropped else ""))
    return " | ".join(shown) or "-"


def lead_counts(throw: int, dice: Sequence[int]) -> str:
    """Which dice of the lead's ``throw`` count, in words: "the two highest, 4 and 2 (not
    1), +6"."""
    kept, dropped = lead_split(throw, dice)
    if not dropped:
        return f"all three dice, +{sum(kept)}"
    how = "the highest" if len(kept) == 1 else "the two highest"
    which = " and ".join(str(d) for d in kept)
    return f"{how}, {which} (not {' '.join(map(str, dropped))}), +{sum(kept)}"


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


class BullseyeScreen:
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
            lead = seat == rnd.lead
            marker = " (lead)" if lead else ""
            marker += " <" if seat == rnd.thrower else ""
            total, score = rnd.totals[seat], rnd.scores[seat]
            table.add_row(
                names[seat] + marker,
                lead_throws(rnd.counted[seat]) if lead else _throws(rnd.counted[seat]),
                "" if total is None else str(total),
                "" if score is None else str(score),
                "-" if lead else str(rnd.bets[seat]),  # the lead does not bet
                str(view.points[seat]),
                str(view.banks[seat]),
            )
        table.caption = (
            f"pot: {counted(view.pot, 'chip')}; the lead's dice in brackets do not count"
        )
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
                f"Stop (s) or throw {counted(dice, 'die')} (t)? ",
                _stop_or_throw,
            )
        else:
            throw_on = may_throw
            if seat == rnd.lead:
                console.print(
                    "You throw again: the lead takes all three throws (and does not bet: "
                    "the lead cannot take the pot)."
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
        console.print(f"[bold]Final standing after {counted(result.turns, 'round')}[/]")
        table = Table()
        for column in ("seat", "points", "bank"):
            table.add_column(column, justify="left" if column == "seat" else "right")
        for seat, name in enumerate(names):
            table.add_row(name, str(view.points[seat]), str(view.banks[seat]))
        if view.pot:
            table.caption = f"{counted(view.pot, 'chip')} left in the pot"
        console.print(table)
        winners = together(names[w] for w in result.winners)
        verb = "share the win" if len(result.winners) > 1 else agree(winners, "wins")
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
        console.print(f"{does(name, 'throws')} for the lead: {_dice(faces)} = {sum(faces)}")
        if after.lead_choice is not None and not after.lead_choice.throws:
            tied = ", ".join(names[s] for s in after.lead_choice.contenders)
            console.print(f"[yellow]Tie for the highest throw: {tied} throw again.[/]")
        elif after.round is not None:
            lead = names[after.round.lead]
            console.print(f"[bold]{does(lead, 'leads')} the first round.[/]")

    def _narrate_throw(
        self, console: Console, before: RoundView, after: RoundView, names: Sequence[str]
    ) -> None:
        name = names[before.thrower]
        if before.dice:
            moved = _dice([after.dice[p] for p in before.rerolling])
            face = before.dice[before.rerolling[0]]
            console.print(
                f"{does(name, 're-rolls')} the {face}s: {moved}, making {_dice(after.dice)}"
            )
        else:
            console.print(f"{does(name, 'throws')} {_dice(after.dice)}")
        if after.rerolling:
            face = after.dice[after.rerolling[0]]
            what = "three" if len(after.rerolling) == 3 else "a pair of"
            console.print(f"  {what} {face}s: the matching rule re-rolls them")
            return
        if before.thrower == before.lead:
            throw = len(before.counted[before.lead])
            sofar = "" if after.target_set else " so far"
            console.print(
                f"  counts: {lead_counts(throw, after.dice)}; the Bull's Eye is "
                f"{after.target}{sofar}"
            )
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
            console.print(f"{does(name, 'bets')} {counted(action.bet, 'chip')} (pot {pot})")
        if isinstance(action, ThrowOn):
            if event.seat != rnd.lead:
                dice = THROWS - len(rnd.counted[event.seat])
                console.print(f"{does(name, 'throws')} on with {counted(dice, 'die')}")
        elif event.seat == rnd.lead:
            console.print(f"[bold]The Bull's Eye is {rnd.target}.[/]")
        else:
            total = rnd.totals[event.seat]
            console.print(f"{does(name, 'stops')} on {total}")
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
            console.print(f"  the pot of {counted(summary.pot, 'chip')} goes to {who}")
        if summary.carried:
            console.print(f"  {counted(summary.carried, 'chip')} carried over in the pot")
