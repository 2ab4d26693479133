"""Boss Dice commands: ``odds boss`` and ``hint boss`` (``solve boss`` is in :mod:`.boss_solve`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table as RichTable

from dicehall.cli.apps import Groups
from dicehall.cli.commands import boss_solve
from dicehall.cli.common import (
    JsonTable,
    JsonText,
    console,
    print_json,
    print_seat_hint,
)
from dicehall.cli.screens.boss import hand_text, parse_keep
from dicehall.engine.errors import InvalidInput
from dicehall.engine.notation import parse_faces
from dicehall.games.boss import GAME, BossOptions
from dicehall.games.boss.hands import Dice, faces_text
from dicehall.games.boss.rules import BossAction, BossView, ComeUp

if TYPE_CHECKING:
    # The odds load NumPy: imported when a command runs, not for --help.
    from dicehall.games.boss.odds import CallOdds, HandOdds, RankedKeep

# -- odds boss ----------------------------------------------------------------------------------


def odds_report(keep: Dice, boss_hand: Dice | None, boss_kept: Dice | None) -> tuple[HandOdds, str]:
    """The opponent's odds with ``keep`` and a sentence saying against what."""
    from dicehall.games.boss.odds import keep_odds, keep_odds_vs_kept

    rolled = 5 - len(keep)
    kept_text = f"keeps {faces_text(keep)}" if keep else "keeps nothing"
    if boss_hand is not None:
        against = f"the Boss's {hand_text(boss_hand)}"
        return keep_odds(keep, boss_hand), f"Opponent {kept_text} and rolls {rolled} vs {against}"
    assert boss_kept is not None
    hidden = 5 - len(boss_kept)
    against = f"the Boss's kept {faces_text(boss_kept)} and {hidden} concealed dice"
    return (
        keep_odds_vs_kept(keep, boss_kept),
        f"Opponent {kept_text} and rolls {rolled} vs {against}",
    )


def odds(
    keep: Annotated[
        str, typer.Option("--keep", help="The opponent's keep, e.g. 3,3 (none: roll 5).")
    ],
    boss: Annotated[
        str | None, typer.Option("--boss", help="The Boss's whole hand, e.g. 6,6,4,4,1.")
    ] = None,
    boss_kept: Annotated[
        str | None,
        typer.Option(
            "--boss-kept", help="Or only the Boss's kept dice (his concealed roll unknown)."
        ),
    ] = None,
    as_json: JsonText = False,
) -> None:
    """The opponent's exact win, push and lose chances with a keep, and the odds against him."""
    from dicehall.games.boss.odds import check_boss_kept, check_hand, format_odds

    if boss is None and boss_kept is None:
        raise InvalidInput(
            "give the Boss's hand (--boss) or only his kept dice (--boss-kept): odds against what?"
        )
    if boss is not None and boss_kept is not None:
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
        console.print(f"  {label:<5} {p!s:>12}  {float(p):>7.2%}")
    console.print(f"Odds against the opponent: [bold]{format_odds(result.odds_against)}[/]")


# -- hint boss ----------------------------------------------------------------------------------


def _boss_first_roll(kept: Dice) -> Dice:
    """A first roll that makes exactly ``kept`` (the other dice all different, unmatched)."""
    others = [face for face in range(1, 7) if face not in kept]
    return (*kept, *others[: 5 - len(kept)])


def hint_position(
    roll: Dice, kept: Dice, hand: Dice | None, *, call: bool
) -> tuple[BossView, Sequence[BossAction]]:
    """The position a hint is asked about, played out by the rules with seat 0 as the Boss:
    his call (``call``: his view, with his whole ``hand``) or, once he has come up, the
    opponent's keep (the opponent's view: the Boss's concealed dice stay hidden)."""
    from dicehall.games.boss.odds import check_position

    check_position(roll, kept, hand)
    state = GAME.start(2, BossOptions())
    state = GAME.resolve(state, _boss_first_roll(kept))
    state = GAME.resolve(state, roll)
    if state.phase == "boss_roll":
        concealed = Counter(hand) - Counter(kept) if hand is not None else Counter()
        rolled = tuple(concealed.elements()) or (1,) * (5 - len(kept))
        state = GAME.resolve(state, rolled)
    if call:
        return GAME.view(state, 0), GAME.legal(state, 0)
    state = GAME.act(state, 0, ComeUp())
    return GAME.view(state, 1), GAME.legal(state, 1)


def hint(
    roll: Annotated[str, typer.Option("--roll", help="The opponent's first roll, e.g. 3,3,6,2,1.")],
    boss_kept: Annotated[
        str | None, typer.Option("--boss-kept", help="The Boss's kept dice, e.g. 6,6.")
    ] = None,
    boss: Annotated[
        str | None, typer.Option("--boss", help="The Boss's whole hand, if known.")
    ] = None,
    by: Annotated[str, typer.Option("--by", help="Rank by equity (push = 1/2) or win.")] = "equity",
    call: Annotated[
        bool,
        typer.Option("--call", help="The Boss's decision instead (needs --boss and --boss-kept)."),
    ] = False,
    as_json: JsonTable = False,
) -> None:
    """Rank the opponent's legal keeps, or (--call) advise the Boss: come up or pick 'em up.

    With --json: the seat's hint exactly as the site gives it (the Boss's call, or the
    opponent's best keeps by equity against the Boss's kept dice, his hand unseen).
    """
    from dicehall.games.boss.odds import call_odds, rank_keeps

    first = parse_faces(roll, count=5, what="--roll")
    kept = None if boss_kept is None else parse_faces(boss_kept, what="--boss-kept")
    hand = None if boss is None else parse_faces(boss, what="--boss")
    if call:
        if kept is None or hand is None:
            raise InvalidInput("--call needs the Boss's hand (--boss) and kept dice (--boss-kept)")
        if as_json:
            print_seat_hint("boss", *hint_position(first, kept, hand, call=True))
        else:
            _print_call(call_odds(hand, kept, first), hand, kept, first)
        return
    if by not in ("equity", "win"):
        raise InvalidInput(f"--by must be equity or win, not {by!r}")
    if kept is None and hand is None:
        raise InvalidInput("give the Boss's kept dice (--boss-kept) or his hand (--boss)")
    if as_json:
        if kept is None:
            raise InvalidInput(
                "--json gives the opponent's hint as the site does, from what he sees: "
                "the Boss's kept dice (--boss-kept), not his hand"
            )
        if hand is not None:
            # Never ignored in silence: the seat's hint cannot see a hand hidden from it.
            raise InvalidInput(
                "--json gives the opponent's hint as the site does, and the Boss's hand "
                "(--boss) is hidden from him; leave out --boss, or --json for the table "
                "against the stated hand"
            )
        if by != "equity":
            raise InvalidInput(
                "--json ranks keeps by equity, as the site does; --by is for the table"
            )
        print_seat_hint("boss", *hint_position(first, kept, None, call=False))
        return
    ranked = rank_keeps(
        first, boss_kept=kept, boss_hand=hand, by="win" if by == "win" else "equity"
    )
    _print_keeps(ranked, first, kept, hand, by)


def _print_keeps(
    ranked: Sequence[RankedKeep], roll: Dice, kept: Dice | None, hand: Dice | None, by: str
) -> None:
    from dicehall.games.boss.odds import format_odds

    against = (
        f"the Boss's {hand_text(hand)}"
        if hand is not None
        else f"the Boss's kept {faces_text(sorted(kept or ()))}, concealed dice unknown"
    )
    table = RichTable(
        title=f"Roll {faces_text(sorted(roll))} vs {against} (ranked by {by})",
        title_justify="left",
    )
    for column in ("#", "keep", "roll", "win", "push", "lose", "equity", "odds against"):
        table.add_column(column, justify="left" if column == "keep" else "right")
    for number, item in enumerate(ranked, 1):
        odds = item.odds
        table.add_row(
            str(number),
            faces_text(item.keep) or "nothing",
            str(item.rolled),
            f"{float(odds.win):.2%}",
            f"{float(odds.push):.2%}",
            f"{float(odds.lose):.2%}",
            f"{float(odds.equity):.4f}",
            format_odds(odds.odds_against),
        )
    console.print(table)
    from dicehall.games.boss.seat_hint import KEEP_BASIS, STATED_BASIS

    # The same sentence as the site's hint panel (the site never knows the Boss's hand).
    console.print(f"[dim]{KEEP_BASIS if hand is None else STATED_BASIS}[/]")


def _print_call(decision: CallOdds, hand: Dice, kept: Dice, roll: Dice) -> None:
    up, reply = decision.come_up, decision.reply
    console.print(
        f"Boss {hand_text(sorted(hand))}, kept {faces_text(sorted(kept))}; "
        f"opponent's first roll {faces_text(sorted(roll))}."
    )
    console.print(
        f"The opponent's best answer: keep {faces_text(reply.keep) or 'nothing'} "
        f"and roll {reply.rolled}."
    )
    console.print(
        f"Come up: the Boss wins {float(up.win):.2%}, pushes {float(up.push):.2%}, loses "
        f"{float(up.lose):.2%}; worth {float(up.equity):.4f} of a hand."
    )
    console.print(f"Pick 'em up: a fresh hand, worth exactly {float(decision.pick_up):.1f}.")
    call = "come up" if decision.should_come_up else "pick 'em up"
    console.print(f"Call: [bold]{call}[/].")
    from dicehall.games.boss.seat_hint import CALL_BASIS

    console.print(f"[dim]{CALL_BASIS}[/]")  # the same sentence as the site's hint panel


def register(groups: Groups) -> None:
    """Add ``odds boss``, ``hint boss`` and ``solve boss``."""
    groups.odds.command("boss")(odds)
    groups.hint.command("boss")(hint)
    groups.solve.command("boss")(boss_solve.solve)
