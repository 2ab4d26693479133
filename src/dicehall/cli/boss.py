"""Boss Dice on the command line: ``odds boss``, ``hint boss``, ``solve boss`` and the terminal
game screen."""

from __future__ import annotations

import time
from collections.abc import Sequence
from fractions import Fraction
from typing import Any, Optional

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn
from rich.table import Table as RichTable

from dicehall.cli.apps import hint_app, odds_app, solve_app
from dicehall.cli.common import console, print_json
from dicehall.cli.terminal import register_ui
from dicehall.engine.errors import InvalidInput
from dicehall.engine.events import Acted, Event
from dicehall.engine.game import Result
from dicehall.engine.notation import parse_faces
from dicehall.games.boss.equilibrium import Equilibrium, EquilibriumReport
from dicehall.games.boss.equilibrium_store import cache_path, load_or_solve
from dicehall.games.boss.hands import (
    Dice,
    describe,
    faces_text,
    first_roll_rank,
    missing_from,
    showdown_rank,
)
from dicehall.games.boss.odds import (
    HandOdds,
    Objective,
    RankedKeep,
    call_odds,
    check_boss_kept,
    check_hand,
    check_keep,
    check_position,
    format_odds,
    keep_odds,
    keep_odds_vs_kept,
    rank_keeps,
)
from dicehall.games.boss.rules import (
    BossAction,
    BossView,
    ComeUp,
    HandRecord,
    Keep,
    NoBoss,
    PickedUp,
    PickUp,
    Showdown,
)

Text = Optional[str]  # noqa: UP045 - Typer needs Optional here
_NONE_WORDS = {"none", "nothing", "-", ""}


def parse_keep(text: str) -> Dice:
    """A keep from text: faces like ``3,3``, or ``none`` for keeping nothing."""
    if text.strip().lower() in _NONE_WORDS:
        return ()
    return check_keep(parse_faces(text, max_count=5, what="keep"))


def _pct(p: Fraction) -> str:
    return f"{float(p):.2%}"


def _against(odds: HandOdds) -> str:
    return format_odds(odds.odds_against)


def hand_order(dice: Sequence[int]) -> Dice:
    """Dice the way players call a hand: biggest group first, high faces first (6 6 4 4 1)."""
    return tuple(sorted(dice, key=lambda d: (-list(dice).count(d), -d)))


def _hand_text(dice: Sequence[int]) -> str:
    return f"{faces_text(hand_order(dice))} ({describe(showdown_rank(dice))})"


# -- odds boss ---------------------------------------------------------------------------------


def odds_report(keep: Dice, boss_hand: Dice | None, boss_kept: Dice | None) -> tuple[HandOdds, str]:
    """The opponent's odds with ``keep`` and a sentence saying against what."""
    rolled = 5 - len(keep)
    kept_text = f"keeps {faces_text(keep)}" if keep else "keeps nothing"
    if boss_hand is not None:
        against = f"the Boss's {_hand_text(boss_hand)}"
        return keep_odds(keep, boss_hand), f"Opponent {kept_text} and rolls {rolled} vs {against}"
    assert boss_kept is not None
    hidden = 5 - len(boss_kept)
    against = f"the Boss's kept {faces_text(boss_kept)} and {hidden} concealed dice"
    return (
        keep_odds_vs_kept(keep, boss_kept),
        f"Opponent {kept_text} and rolls {rolled} vs {against}",
    )


@odds_app.command("boss")
def odds(
    keep: str = typer.Option(..., "--keep", help="The opponent's keep, e.g. 3,3 (none: roll 5)."),
    boss: Text = typer.Option(None, "--boss", help="The Boss's whole hand, e.g. 6,6,4,4,1."),
    boss_kept: Text = typer.Option(
        None, "--boss-kept", help="Or only the Boss's kept dice (his concealed roll unknown)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text."),
) -> None:
    """The opponent's exact win, push and lose chances with a keep, and the odds against him."""
    if (boss is None) == (boss_kept is None):
        raise InvalidInput("give either --boss (the Boss's hand) or --boss-kept, not both")
    kept_dice = parse_keep(keep)
    hand = None if boss is None else check_hand(parse_faces(boss, what="--boss"))
    kept = (
        None if boss_kept is None else check_boss_kept(parse_faces(boss_kept, what="--boss-kept"))
    )
    result, sentence = odds_report(kept_dice, hand, kept)
    if as_json:
        print_json(result.as_json())
        return
    console.print(f"{sentence}:")
    for label, p in (("win", result.win), ("push", result.push), ("lose", result.lose)):
        console.print(f"  {label:<5} {p!s:>12}  {_pct(p):>7}")
    console.print(f"Odds against the opponent: [bold]{_against(result)}[/]")


# -- hint boss ---------------------------------------------------------------------------------


def _keep_json(ranked: RankedKeep) -> dict[str, Any]:
    return {
        "keep": list(ranked.keep),
        "rolls": ranked.rolled,
        **ranked.odds.as_json(),
        "equity": float(ranked.odds.equity),
    }


def keeps_report(
    roll: Dice, boss_kept: Dice | None, boss_hand: Dice | None, by: Objective
) -> dict[str, Any]:
    """The JSON shape of ``hint boss``: every legal keep, best first."""
    ranked = rank_keeps(roll, boss_kept=boss_kept, boss_hand=boss_hand, by=by)
    return {
        "roll": sorted(roll),
        "boss_kept": None if boss_kept is None else sorted(boss_kept),
        "boss": None if boss_hand is None else sorted(boss_hand),
        "by": by,
        "keeps": [_keep_json(r) for r in ranked],
    }


def call_report(boss_hand: Dice, boss_kept: Dice, roll: Dice) -> dict[str, Any]:
    """The JSON shape of ``hint boss --call``: the Boss's come-up odds against the best reply."""
    decision = call_odds(boss_hand, boss_kept, roll)
    come_up = decision.come_up
    return {
        "boss": sorted(boss_hand),
        "boss_kept": sorted(boss_kept),
        "roll": sorted(roll),
        "come_up": {
            "win": float(come_up.win),
            "push": float(come_up.push),
            "lose": float(come_up.lose),
            "equity": float(come_up.equity),
        },
        "pick_up": float(decision.pick_up),
        "reply": _keep_json(decision.reply),
        "call": "come up" if decision.should_come_up else "pick 'em up",
    }


@hint_app.command("boss")
def hint(
    roll: str = typer.Option(..., "--roll", help="The opponent's first roll, e.g. 3,3,6,2,1."),
    boss_kept: Text = typer.Option(None, "--boss-kept", help="The Boss's kept dice, e.g. 6,6."),
    boss: Text = typer.Option(None, "--boss", help="The Boss's whole hand, if known."),
    by: str = typer.Option("equity", "--by", help="Rank by equity (push = 1/2) or win."),
    call: bool = typer.Option(
        False, "--call", help="The Boss's decision instead (needs --boss and --boss-kept)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
) -> None:
    """Rank the opponent's legal keeps, or (--call) advise the Boss: come up or pick 'em up."""
    first = parse_faces(roll, count=5, what="--roll")
    kept = None if boss_kept is None else parse_faces(boss_kept, what="--boss-kept")
    hand = None if boss is None else parse_faces(boss, what="--boss")
    if call:
        if kept is None or hand is None:
            raise InvalidInput("--call needs the Boss's hand (--boss) and kept dice (--boss-kept)")
        _print_call(call_report(hand, kept, first), as_json)
        return
    if by not in ("equity", "win"):
        raise InvalidInput(f"--by must be equity or win, not {by!r}")
    if kept is None and hand is None:
        raise InvalidInput("give the Boss's kept dice (--boss-kept) or his hand (--boss)")
    report = keeps_report(first, kept, hand, "win" if by == "win" else "equity")
    if as_json:
        print_json(report)
        return
    against = (
        f"the Boss's {_hand_text(report['boss'])}"
        if hand is not None
        else f"the Boss's kept {faces_text(report['boss_kept'])}, concealed dice unknown"
    )
    table = RichTable(
        title=f"Roll {faces_text(report['roll'])} vs {against} (ranked by {by})",
        title_justify="left",
    )
    for column in ("#", "keep", "roll", "win", "push", "lose", "equity", "odds against"):
        table.add_column(column, justify="left" if column == "keep" else "right")
    for number, item in enumerate(report["keeps"], 1):
        against_text = (
            "no chance"
            if item["odds_against"] is None
            else format_odds(Fraction(item["odds_against"]))
        )
        table.add_row(
            str(number),
            faces_text(item["keep"]) or "nothing",
            str(item["rolls"]),
            f"{item['win']:.2%}",
            f"{item['push']:.2%}",
            f"{item['lose']:.2%}",
            f"{item['equity']:.4f}",
            against_text,
        )
    console.print(table)


def _print_call(report: dict[str, Any], as_json: bool) -> None:
    if as_json:
        print_json(report)
        return
    up, reply = report["come_up"], report["reply"]
    console.print(
        f"Boss {_hand_text(report['boss'])}, kept {faces_text(report['boss_kept'])}; "
        f"opponent's first roll {faces_text(report['roll'])}."
    )
    console.print(
        f"The opponent's best answer: keep {faces_text(reply['keep']) or 'nothing'} "
        f"and roll {reply['rolls']}."
    )
    console.print(
        f"Come up: the Boss wins {up['win']:.2%}, pushes {up['push']:.2%}, loses "
        f"{up['lose']:.2%}; worth {up['equity']:.4f} of a hand."
    )
    console.print(f"Pick 'em up: a fresh hand, worth exactly {report['pick_up']:.1f}.")
    console.print(f"Call: [bold]{report['call']}[/].")


# -- solve boss --------------------------------------------------------------------------------


def _solved(refresh: bool, show_progress: bool) -> tuple[Equilibrium, bool, float]:
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


def solve_report(solved: Equilibrium, cached: bool, seconds: float) -> dict[str, Any]:
    """The JSON shape of ``solve boss``: the equilibrium's figures."""
    report: EquilibriumReport = solved.report()
    ending, gain = report.outcome, report.exploitability
    return {
        "boss_value": report.boss_value,
        "fresh_hand_value": report.fresh,
        "come_up": ending.come_up,
        "boss_win": ending.win,
        "push": ending.push,
        "boss_lose": ending.lose,
        "pick_up": ending.pick_up,
        "exploitability": gain.horse,
        "exploitability_hand": {"boss": gain.boss, "opponent": gain.opponent},
        "public_states": report.public_states,
        "boss_chance": report.boss_chance,
        "cached": cached,
        "seconds": seconds,
        "path": str(cache_path(solved.game)),
    }


def position_report(
    solved: Equilibrium, roll: Dice, kept: Dice, hand: Dice | None
) -> dict[str, Any]:
    """The JSON shape of ``solve boss --roll --boss-kept``: both sides' equilibrium play."""
    game = solved.game
    calls = [
        {
            "hand": describe(game.classes[cls]),
            "chance": chance,
            "come_up": come_up,
        }
        for cls, chance, come_up in solved.calls(kept, roll)
    ]
    return {
        "roll": sorted(roll),
        "boss_kept": sorted(kept),
        "keeps": [{"keep": list(k), "chance": p} for k, p in solved.keep_chances(roll, kept)],
        "calls": calls,
        "boss": None if hand is None else sorted(hand),
        "come_up": None if hand is None else solved.come_up_chance(hand, kept, roll),
    }


@solve_app.command("boss")
def solve(
    roll: Text = typer.Option(
        None, "--roll", help="Show the equilibrium at a position: the opponent's first roll."
    ),
    boss_kept: Text = typer.Option(None, "--boss-kept", help="With --roll: the Boss's kept dice."),
    boss: Text = typer.Option(None, "--boss", help="With --roll: the Boss's whole hand."),
    refresh: bool = typer.Option(False, "--refresh", help="Solve again, ignoring the cache."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text."),
) -> None:
    """A Nash equilibrium of one hand: the value of being Boss and the exploitability, or
    (--roll, --boss-kept) both sides' equilibrium play at a position."""
    position = None
    if roll is not None or boss_kept is not None or boss is not None:
        if roll is None or boss_kept is None:
            raise InvalidInput("a position needs --roll and --boss-kept (and optionally --boss)")
        position = check_position(
            parse_faces(roll, count=5, what="--roll"),
            parse_faces(boss_kept, what="--boss-kept"),
            None if boss is None else parse_faces(boss, what="--boss"),
        )
    solved, cached, seconds = _solved(refresh, not as_json)
    if position is not None:
        first, kept, hand = position
        assert first is not None and kept is not None
        _print_position(position_report(solved, first, kept, hand), as_json)
        return
    report = solve_report(solved, cached, seconds)
    if as_json:
        print_json(report)
        return
    _print_solution(report)


def _print_solution(report: dict[str, Any]) -> None:
    hand = report["exploitability_hand"]
    console.print(
        f"[bold]Boss Dice[/]: a Nash equilibrium of one hand, {report['public_states']:,} "
        "public states (LP by HiGHS); a push or pick 'em up is worth a fresh hand, "
        f"{report['fresh_hand_value']:.1f}."
    )
    console.print(
        f"  Value of being Boss: [bold]{report['boss_value']:.6f}[/] "
        "(his chance of winning the horse from his call on)."
    )
    console.print(
        f"  The Boss comes up in {report['come_up']:.2%} of hands: he wins "
        f"{report['boss_win']:.2%}, pushes {report['push']:.2%}, loses "
        f"{report['boss_lose']:.2%}; he picks 'em up in {report['pick_up']:.2%}."
    )
    console.print(
        f"  Exploitability: {report['exploitability']:.2e} over a horse "
        f"(one hand: Boss {hand['boss']:.2e}, opponent {hand['opponent']:.2e})."
    )
    console.print(f"  A first roll makes a Boss {report['boss_chance']:.2%} of the time.")
    where = "loaded from" if report["cached"] else "solved and saved to"
    path_line = f"  {report['seconds']:.1f} s, {where} {report['path']}"
    console.print(path_line, markup=False, soft_wrap=True)


def _print_position(report: dict[str, Any], as_json: bool) -> None:
    if as_json:
        print_json(report)
        return
    console.print(
        f"Equilibrium play: the Boss keeps {faces_text(report['boss_kept'])}; the opponent's "
        f"first roll is {faces_text(report['roll'])}."
    )
    keeps = ", ".join(
        f"{faces_text(k['keep']) or 'nothing'} ({k['chance']:.0%})" for k in report["keeps"]
    )
    console.print(f'After "come up" the opponent keeps: {keeps}.')
    table = RichTable(title="The Boss's call by his final hand", title_justify="left")
    for column in ("Boss's hand", "chance", "come up"):
        table.add_column(column, justify="left" if column == "Boss's hand" else "right")
    for call in report["calls"]:
        table.add_row(call["hand"], f"{call['chance']:.2%}", f"{call['come_up']:.0%}")
    console.print(table)
    if report["boss"] is not None:
        console.print(
            f"With {_hand_text(report['boss'])} the Boss comes up "
            f"[bold]{report['come_up']:.0%}[/] of the time."
        )


# -- the terminal game -------------------------------------------------------------------------


def _dice(dice: Sequence[int]) -> str:
    return " ".join(f"[bold]\\[{d}][/]" for d in dice)


def _first_text(dice: Sequence[int]) -> str:
    return f"{_dice(dice)} ({describe(first_roll_rank(dice))})"


def _shown(hand: Sequence[int]) -> str:
    return f"{_dice(hand_order(hand))} ({describe(showdown_rank(hand))})"


def _score(view: BossView, names: Sequence[str]) -> str:
    return ", ".join(f"{names[s]} {view.horses[s]}" for s in (0, 1))


def _does(name: str, third: str, second: str) -> str:
    """``odds bot rolls`` but ``You roll``."""
    return f"{name} {second if name == 'You' else third}"


def _whose(name: str) -> str:
    return "Your" if name == "You" else f"{name}'s"


class BossUI:
    """The Rich terminal screen of Boss Dice; it shows a seat its view and nothing more."""

    def render(self, console: Console, view: BossView, names: Sequence[str]) -> None:
        """Draw the horses, both first rolls, the Boss's kept dice and (his own) hidden dice."""
        console.print()
        console.print(
            f"[bold]Boss Dice[/]: first to {view.target} horses. Horses: {_score(view, names)}."
        )
        for seat, roll in enumerate(view.first_rolls):
            console.print(f"  {_whose(names[seat])} first roll: {_first_text(roll)}")
        if view.boss is None:
            return
        boss = names[view.boss]
        kept = _dice(hand_order(view.boss_kept))
        console.print(f"  {_does(boss, 'is the Boss and keeps', 'are the Boss and keep')} {kept}.")
        if view.concealed is not None:
            hand = view.boss_kept + view.concealed
            hidden = f"{_dice(view.concealed)}, " if view.concealed else "none, "
            console.print(
                f"  Your hidden roll: {hidden}your hand {_dice(hand_order(hand))} "
                f"({describe(showdown_rank(hand))})."
            )
        elif view.concealed_count:
            console.print(f"  {_whose(boss)} other {view.concealed_count} dice are under the cup.")

    def choose(
        self, console: Console, view: BossView, legal: Sequence[BossAction], names: Sequence[str]
    ) -> BossAction:
        """Ask the Boss for his call, or the opponent for his keep; re-ask on bad input."""
        if view.phase == "call":
            return self._call(console, view, legal)
        return self._keep(console, view, legal)

    def _call(self, console: Console, view: BossView, legal: Sequence[BossAction]) -> BossAction:
        can_pick = PickUp() in legal
        if not can_pick:
            console.print("You have picked 'em up as often as this game allows this hand.")
        question = "[u] come up or [p] pick 'em up? " if can_pick else "[u] come up? "
        while True:
            text = console.input(question, markup=False).strip().lower()
            if text in ("u", "up", "come up", "c"):
                return ComeUp()
            if text in ("p", "pick", "pick up", "pick 'em up"):
                if can_pick:
                    return PickUp()
                console.print("[red]Not allowed:[/] no more pick-ups this hand; you must come up.")
                continue
            console.print("[red]Type u to call 'come up' or p to pick 'em up.[/]")

    def _keep(self, console: Console, view: BossView, legal: Sequence[BossAction]) -> BossAction:
        assert view.opponent is not None
        roll = view.first_rolls[view.opponent]
        question = f"Keep which dice of {faces_text(roll)}? (like 3,3; none; all) "
        while True:
            text = console.input(question, markup=False).strip().lower()
            if text == "all":
                text = ",".join(str(d) for d in roll)
            try:
                dice = parse_keep(text)
            except InvalidInput as exc:
                console.print(f"[red]{exc}[/]")
                continue
            short = missing_from(dice, roll)
            if short:
                console.print(f"[red]Your first roll has no {faces_text(short)} to keep.[/]")
                continue
            return Keep(dice)

    def narrate(
        self,
        console: Console,
        before: BossView,
        event: Event,
        after: BossView,
        names: Sequence[str],
    ) -> None:
        """Say what happened, from the watcher's views only (never the event's hidden dice)."""
        if isinstance(event, Acted):
            name = names[event.seat]
            if isinstance(event.action, ComeUp):
                console.print(f'{_does(name, "calls", "call")} [bold]"Come up!"[/]')
            elif isinstance(event.action, PickUp):
                said = _does(name, "says", "say")
                console.print(f'{said} [bold]"Pick \'em up."[/] The hand starts over.')
            elif isinstance(event.action, Keep):
                kept = _dice(event.action.dice) if event.action.dice else "nothing"
                count = 5 - len(event.action.dice)
                rolling = f"rolling {count}" if count else "rolling none"
                console.print(f"{_does(name, 'keeps', 'keep')} {kept}, {rolling}.")
        elif len(after.first_rolls) > len(before.first_rolls):
            seat = len(after.first_rolls) - 1
            roller = _does(names[seat], "rolls", "roll")
            console.print(f"{roller} {_first_text(after.first_rolls[seat])}.")
        if after.boss is not None and before.boss is None:
            boss = _does(names[after.boss], "is", "are")
            console.print(f"{boss} the Boss, keeping {_dice(hand_order(after.boss_kept))}.")
        if before.phase == "boss_roll" and after.phase == "call":
            boss = names[after.boss] if after.boss is not None else "The Boss"
            if after.concealed is not None:
                console.print(f"You roll {_dice(after.concealed)} under the cup.")
            else:
                console.print(f"{boss} rolls {after.concealed_count} dice under the cup.")
        for record in after.history[len(before.history) :]:
            self._record(console, record, after, names)

    def _record(
        self, console: Console, record: HandRecord, after: BossView, names: Sequence[str]
    ) -> None:
        if isinstance(record, NoBoss):
            second = record.first_rolls[1]
            console.print(f"{_does(names[1], 'rolls', 'roll')} {_first_text(second)}.")
            console.print("No Boss (no pair for either, or equal first rolls): both roll again.")
        elif isinstance(record, Showdown):
            boss, opponent = record.boss, 1 - record.boss
            console.print(
                f"[bold]Showdown:[/] {names[boss]} {_shown(record.boss_hand)} "
                f"vs {names[opponent]} {_shown(record.opponent_hand)}."
            )
            if record.winner is None:
                console.print("Push: equal hands, no horse. The hand is replayed.")
            else:
                console.print(
                    f"[bold green]{_does(names[record.winner], 'takes', 'take')} a horse.[/] "
                    f"Horses: {_score(after, names)}."
                )
        elif isinstance(record, PickedUp):
            pass  # the call itself was narrated; the concealed dice stay unseen

    def show_result(
        self, console: Console, view: BossView, result: Result, names: Sequence[str]
    ) -> None:
        """Show who won the match, the horses and the hands played."""
        winner = _does(names[result.winners[0]], "wins", "win")
        console.print(
            f"[bold green]{winner} the match[/], horses {_score(view, names)}, "
            f"after {result.turns} hands (showdowns and pick-ups)."
        )


register_ui("boss", BossUI())
