"""The Boss Dice screen: first rolls, the Boss's kept and hidden dice, the call and the keep."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from rich.console import Console

from dicehall.cli.narration import boxed_dice, does, faces_counted, number_word, whose
from dicehall.engine.errors import InvalidInput
from dicehall.engine.events import Acted, Event
from dicehall.engine.game import Result
from dicehall.engine.notation import parse_faces
from dicehall.games.boss.hands import (
    Dice,
    describe,
    faces_text,
    first_roll_rank,
    showdown_rank,
)
from dicehall.games.boss.rules import (
    BossAction,
    BossView,
    ComeUp,
    HandRecord,
    Keep,
    NoBoss,
    PickUp,
    Showdown,
)

_NONE_WORDS = {"none", "nothing", "-", ""}


def parse_keep(text: str) -> Dice:
    """A keep from text: faces like ``3,3``, or ``none`` for keeping nothing."""
    from dicehall.games.boss.odds import check_keep  # NumPy loads only here

    if text.strip().lower() in _NONE_WORDS:
        return ()
    return check_keep(parse_faces(text, max_count=5, what="keep"))


def shortfall(keep: Sequence[int], roll: Sequence[int]) -> str | None:
    """Why ``roll`` cannot give ``keep``, face by face ("two 4s (not three)"); None if it can."""
    wanted, have = Counter(keep), Counter(roll)
    short = [
        faces_counted(have[face], face) + (f" (not {number_word(n)})" if have[face] else "")
        for face, n in sorted(wanted.items())
        if n > have[face]
    ]
    if not short:
        return None
    return f"Your first roll {faces_text(roll)} has {' and '.join(short)}."


def hand_order(dice: Sequence[int]) -> Dice:
    """Dice the way players call a hand: biggest group first, high faces first (6 6 4 4 1)."""
    return tuple(sorted(dice, key=lambda d: (-list(dice).count(d), -d)))


def hand_text(dice: Sequence[int]) -> str:
    """A final hand in words: ``6 6 4 4 1 (two pair, 6s and 4s)``."""
    return f"{faces_text(hand_order(dice))} ({describe(showdown_rank(dice))})"


def _first_text(dice: Sequence[int]) -> str:
    return f"{boxed_dice(dice)} ({describe(first_roll_rank(dice))})"


def _shown(hand: Sequence[int]) -> str:
    return f"{boxed_dice(hand_order(hand))} ({describe(showdown_rank(hand))})"


def _score(view: BossView, names: Sequence[str]) -> str:
    return ", ".join(f"{names[s]} {view.horses[s]}" for s in (0, 1))


class BossScreen:
    """The Rich terminal screen of Boss Dice; it shows a seat its view and nothing more."""

    def render(self, console: Console, view: BossView, names: Sequence[str]) -> None:
        """Draw the horses, both first rolls, the Boss's kept dice and (his own) hidden dice."""
        console.print()
        console.print(
            f"[bold]Boss Dice[/]: first to {view.target} horses. Horses: {_score(view, names)}."
        )
        for seat, roll in enumerate(view.first_rolls):
            console.print(f"  {whose(names[seat])} first roll: {_first_text(roll)}")
        if view.boss is None:
            return
        boss = names[view.boss]
        kept = boxed_dice(hand_order(view.boss_kept))
        console.print(f"  {does(boss, 'is the Boss and keeps')} {kept}.")
        if view.concealed is not None:
            hand = view.boss_kept + view.concealed
            hidden = f"{boxed_dice(view.concealed)}, " if view.concealed else "none, "
            console.print(
                f"  Your hidden roll: {hidden}your hand {boxed_dice(hand_order(hand))} "
                f"({describe(showdown_rank(hand))})."
            )
        elif view.concealed_count:
            console.print(f"  {whose(boss)} other {view.concealed_count} dice are under the cup.")

    def choose(
        self, console: Console, view: BossView, legal: Sequence[BossAction], names: Sequence[str]
    ) -> BossAction:
        """Ask the Boss for his call, or the opponent for his keep; re-ask on bad input."""
        if view.phase == "call":
            return self._call(console, legal)
        return self._keep(console, view)

    def _call(self, console: Console, legal: Sequence[BossAction]) -> BossAction:
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

    def _keep(self, console: Console, view: BossView) -> BossAction:
        assert view.opponent is not None
        roll = view.first_rolls[view.opponent]
        question = f"Keep which dice of {faces_text(roll)}? (like 3,3; none; all) "
        while True:
            text = console.input(question, markup=False).strip().lower()
            if not text:
                # An empty Enter is not "nothing": keeping nothing must be said.
                console.print("[red]Type the dice to keep (like 3,3), none, or all.[/]")
                continue
            if text == "all":
                text = ",".join(str(d) for d in roll)
            try:
                dice = parse_keep(text)
            except InvalidInput as exc:
                console.print(f"[red]{exc}[/]")
                continue
            short = shortfall(dice, roll)
            if short is not None:
                console.print(f"[red]{short}[/]", markup=True)
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
                console.print(f'{does(name, "calls")} [bold]"Come up!"[/]')
            elif isinstance(event.action, PickUp):
                console.print(
                    f'{does(name, "says")} [bold]"Pick \'em up."[/] The hand starts over.'
                )
            elif isinstance(event.action, Keep):
                kept = boxed_dice(event.action.dice) if event.action.dice else "nothing"
                count = 5 - len(event.action.dice)
                rolling = f"rolling {count}" if count else "rolling none"
                console.print(f"{does(name, 'keeps')} {kept}, {rolling}.")
        elif len(after.first_rolls) > len(before.first_rolls):
            seat = len(after.first_rolls) - 1
            console.print(f"{does(names[seat], 'rolls')} {_first_text(after.first_rolls[seat])}.")
        if after.boss is not None and before.boss is None:
            boss = does(names[after.boss], "is")
            console.print(f"{boss} the Boss, keeping {boxed_dice(hand_order(after.boss_kept))}.")
        if before.phase == "boss_roll" and after.phase == "call":
            boss = names[after.boss] if after.boss is not None else "The Boss"
            if after.concealed is not None:
                console.print(f"You roll {boxed_dice(after.concealed)} under the cup.")
            else:
                console.print(f"{does(boss, 'rolls')} {after.concealed_count} dice under the cup.")
        for record in after.history[len(before.history) :]:
            self._record(console, record, after, names)

    def _record(
        self, console: Console, record: HandRecord, after: BossView, names: Sequence[str]
    ) -> None:
        if isinstance(record, NoBoss):
            second = record.first_rolls[1]
            console.print(f"{does(names[1], 'rolls')} {_first_text(second)}.")
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
                    f"[bold green]{does(names[record.winner], 'takes')} a horse.[/] "
                    f"Horses: {_score(after, names)}."
                )
        # A pick-up was narrated as the call itself; the concealed dice stay unseen.

    def show_result(
        self, console: Console, view: BossView, result: Result, names: Sequence[str]
    ) -> None:
        """Show who won the match, the horses and the hands played."""
        winner = does(names[result.winners[0]], "wins")
        console.print(
            f"[bold green]{winner} the match[/], horses {_score(view, names)}, "
            f"after {result.turns} hands (showdowns and pick-ups)."
        )
