"""``hint boatzee --opponent``: a two-seat turn ranked by the chance to win.

Beside each choice's chance to finish ahead of the opponent (each side playing for points
after it, the opponent as ``optimal``; see :mod:`dicehall.games.boatzee.winmax`) the table
shows its expected final total, and a closing line says what playing for points would
choose and what it would cost.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.table import Table as RichTable

from dicehall.cli.common import console, err_console
from dicehall.cli.narration import counted
from dicehall.cli.progress import progress_bar
from dicehall.games.boatzee.card import Card, total
from dicehall.games.boatzee.scoring import TITLES

if TYPE_CHECKING:
    from dicehall.games.boatzee.final_scores import FinalScores
    from dicehall.games.boatzee.hints import Choice
    from dicehall.games.boatzee.winmax import DuelChoice


def ready_finals() -> FinalScores:
    """The final-score distributions, built first (with a progress bar) when not cached."""
    from dicehall.games.boatzee.final_scores import build_and_store, load

    found = load()
    if found is None:
        err_console.print("No final-score table yet: building it once (about 20 s).")
        with progress_bar("Final scores under optimal play: states") as advance:
            found = build_and_store(advance)
    return found


def choice_text(choice: Choice | DuelChoice) -> str:
    """``keep 6 6, re-roll 3 dice`` or ``score Chance (22)`` (a hint's or a duel's choice)."""
    if choice.keep is not None:
        held = " ".join(map(str, choice.keep)) if choice.keep else "nothing"
        return f"keep {held}, re-roll {counted(5 - len(choice.keep), 'die')}"
    assert choice.box is not None
    return f"score {TITLES[choice.box]} ({choice.points})"


def print_duel_hint(card: Card, rival: Card, dice: Sequence[int], rolls_left: int) -> None:
    """Rank the turn's choices by the chance to win against ``rival`` and print them."""
    from dicehall.games.boatzee.valuation import for_game
    from dicehall.games.boatzee.winmax import check_duel, duel_hint

    check_duel(card, rival)  # before any table is built
    finals = ready_finals()
    choices = duel_hint(card, rival, dice, rolls_left, finals, for_game(1, "boatzee"))
    table = RichTable(
        title=f"{' '.join(map(str, dice))}, {counted(rolls_left, 're-roll')} left, card total "
        f"{total(card)}, opponent {total(rival)}"
    )
    table.add_column("#", justify="right")
    table.add_column("choice")
    table.add_column("chance to win", justify="right")
    table.add_column("expected final", justify="right")
    for rank, choice in enumerate(choices, start=1):
        style = "bold green" if rank == 1 else ""
        table.add_row(
            str(rank),
            choice_text(choice),
            f"{choice.win_chance:.2%}",
            f"{choice.expected_final:.2f}",
            style=style,
        )
    table.caption = "a tie counts half; after this choice both play for points (optimal)"
    console.print(table)
    by_points = max(choices, key=lambda c: c.expected_final)
    best = choices[0]
    if by_points == best:
        console.print(
            f"Playing for the highest expected total makes the same choice: {choice_text(best)}."
        )
    else:
        console.print(
            f"Playing for the highest expected total would {choice_text(by_points)} "
            f"({by_points.expected_final:.2f} expected): a {by_points.win_chance:.2%} chance "
            f"to win, against {best.win_chance:.2%} above."
        )
