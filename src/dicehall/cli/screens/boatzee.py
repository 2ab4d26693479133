"""The Boatzee screen: dice by position, the scorecard with previews, choosing a box."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich import box as boxes
from rich.console import Console
from rich.prompt import Prompt
from rich.table import Table as RichTable

from dicehall.cli.narration import counted, does, is_you, whose
from dicehall.engine.errors import InvalidInput
from dicehall.engine.events import Acted, Event, Resolved
from dicehall.engine.game import Result
from dicehall.games.boatzee.card import (
    EXTRA_BOATZEE_BONUS,
    UPPER_BONUS_THRESHOLD,
    Card,
    column_total,
    extra_bonus_due,
    gain,
    preview,
    upper_bonus,
    upper_total,
    why_not_allowed,
)
from dicehall.games.boatzee.notation import SHORT, parse_box_and_column
from dicehall.games.boatzee.rules import BoatzeeView, Reroll, Score, variant_title
from dicehall.games.boatzee.scoring import BOX_INDEX, BOXES, TITLES, UPPER, Box

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


#: Lines the full layout takes (scorecard, dice, prompt), and those each other seat's moves
#: take (a roll, two re-rolls, a score): below that height the scorecard is drawn compact.
FULL_LAYOUT_LINES = 30
LINES_PER_OTHER_SEAT = 4


def is_small(console: Console, seats: int) -> bool:
    """Whether a terminal is too short for the full scorecard and the others' moves above it
    (80x24, say). Output that is not a terminal has no height to fit and gets the full card."""
    need = FULL_LAYOUT_LINES + LINES_PER_OTHER_SEAT * (seats - 1)
    return console.is_terminal and console.height < need


def _where(box: Box, column: int, columns: int) -> str:
    return TITLES[box] + (f" (column {column})" if columns > 1 else "")


class BoatzeeScreen:
    """The terminal screen: dice by position, the scorecard with previews, box choice."""

    def render(self, console: Console, view: BoatzeeView, names: Sequence[str]) -> None:
        """The acting seat's scorecard with every open box's preview, then the dice."""
        seat = view.current if view.seat is None else view.seat
        compact = is_small(console, len(view.cards))
        if not compact:
            console.print()
        console.print(
            f"[bold]{variant_title(view.options)}[/]: {names[seat]} to play, "
            f"turn {view.turns // len(view.cards) + 1} of {len(BOXES) * view.options.columns}"
        )
        card = view.cards[seat]
        if compact:
            console.print(self._compact_card(view, seat, names[seat]))
        else:
            console.print(self._card_table(view, seat, names[seat]))
            console.print("[dim](n) = what these dice would score in that open box[/]")
        line = f"[bold]Total: {view.totals[seat]}[/]"
        if view.options.ruleset == "yahtzee":
            bonus = EXTRA_BOATZEE_BONUS * card.extra_bonuses
            line += f" (Yahtzee bonuses: {card.extra_bonuses} x {EXTRA_BOATZEE_BONUS} = {bonus})"
        totals = "Totals: " + ", ".join(f"{names[i]} {t}" for i, t in enumerate(view.totals))
        if len(view.cards) > 1 and compact:
            line += f"   {totals}"
        console.print(line)
        if len(view.cards) > 1 and not compact:
            console.print(totals)
        self._show_dice(console, view, set())

    def _cell(self, view: BoatzeeView, seat: int, box: int, column: int) -> str:
        """One box of one column: its points, the dice's preview in an open box, or -."""
        card = view.cards[seat]
        value = card.boxes[column - 1][box]
        if value is not None:
            return str(column * value)
        rules = view.options
        shown = preview(view.dice, card, rules.ruleset, rules.joker) if view.dice else None
        if shown is not None and BOXES[box] in shown[column - 1]:
            return f"[cyan]({shown[column - 1][BOXES[box]]})[/]"
        return "[dim]-[/]"

    def _compact_card(self, view: BoatzeeView, seat: int, name: str) -> RichTable:
        """The scorecard in half the height: the upper section beside the lower one."""
        card = view.cards[seat]
        columns = range(1, card.columns + 1)
        table = RichTable(
            title=f"{whose(name)} scorecard [dim]((n): these dice)[/]",
            title_justify="left",
            box=boxes.SIMPLE_HEAD,
            show_edge=False,
            pad_edge=False,
            padding=(0, 1),
        )
        for half in ("upper", "lower"):
            table.add_column(half)
            for k in columns:
                table.add_column(f"x{k}" if card.columns > 1 else "", justify="right")
        lower = [i for i in range(len(BOXES)) if i not in UPPER]
        for row, low in enumerate(lower):
            if row < len(UPPER):
                left = [TITLES[BOXES[row]], *(self._cell(view, seat, row, k) for k in columns)]
            else:
                left = [
                    f"bonus {UPPER_BONUS_THRESHOLD}",
                    *(
                        str(upper_bonus(card, k))
                        if upper_bonus(card, k)
                        else f"{upper_total(card, k)}/{UPPER_BONUS_THRESHOLD}"
                        for k in columns
                    ),
                ]
            right = [TITLES[BOXES[low]], *(self._cell(view, seat, low, k) for k in columns)]
            table.add_row(*left, *right)
        table.add_row(
            "", *("" for _ in columns), "total", *(str(column_total(card, k)) for k in columns)
        )
        return table

    def _card_table(self, view: BoatzeeView, seat: int, name: str) -> RichTable:
        card = view.cards[seat]
        columns = card.columns
        rules = view.options
        shown = preview(view.dice, card, rules.ruleset, rules.joker) if view.dice else None
        table = RichTable(title=f"{whose(name)} scorecard")
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
            f"{counted(left, 're-roll')} left" if left else "No re-rolls left: choose a box"
        )

    def choose(
        self, console: Console, view: BoatzeeView, legal: Sequence[Any], names: Sequence[str]
    ) -> Any:
        """Select dice, re-roll, choose a box and confirm; ``o`` starts the move over."""
        seat = view.current if view.seat is None else view.seat
        card = view.cards[seat]
        selected: set[int] = set()
        chosen: Score | None = None
        who = "Your" if is_you(names[seat]) else f"{names[seat]}, your"
        while True:
            answer = Prompt.ask(f"[bold]{who} move[/] (? for help)", console=console)
            answer = answer.strip().lower()
            words = answer.replace(",", " ").split()
            if not words:
                console.print("[red]Type a move[/] (? for help).")
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
        twice = sorted({c for c in digits if digits.count(c) > 1})
        if twice:
            # "r 1 1" is a slip, not a re-roll of die 1: a re-roll is final, so ask again.
            console.print(
                f"[red]Die {twice[0]} is named twice:[/] name each die once (for example: 1 3)."
            )
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
        joker = view.options.joker
        reason = why_not_allowed(card, view.dice, ruleset, box, column, joker)
        if reason is not None or Score(box, column) not in legal:
            console.print(f"[red]Not allowed:[/] {reason or 'that box cannot be scored now'}.")
            return None
        points = preview(view.dice, card, ruleset, joker)[column - 1][box]
        extra = gain(card, view.dice, ruleset, box, column, joker) - points
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
                console.print(f"{does(name, 're-rolls')} dice {positions}: {dice}")
            else:
                console.print(f"{does(name, 'rolls')}: {dice}")
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
                f"{does(names[seat], 'scores')} {points} in {where}{more}; "
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
            console.print(f"[bold green]{does(winners[0], 'wins')}[/] with {best}.")
        else:
            console.print(f"[bold yellow]Draw[/] between {' and '.join(winners)} with {best} each.")
