"""Boatzee hints: the best keeps and boxes for the seat's own dice, from its view only.

Choices are valued by the solved tables when they are already cached on this machine (exact
for one column, the per-column decomposition for Double and Triple); otherwise, so a hint
never waits for a solve, by the heuristic evaluation the ``heuristic`` bot plays by. A turn
is planned over the re-rolls left with :class:`~dicehall.games.boatzee.planner.TurnPlan`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import combinations
from typing import Any, Protocol

from dicehall.games.boatzee.card import Card, Joker, Ruleset, points, total
from dicehall.games.boatzee.dice_tables import KEEP_INDEX, FloatArray
from dicehall.games.boatzee.evaluators import HEURISTIC
from dicehall.games.boatzee.planner import TurnPlan
from dicehall.games.boatzee.rules import BoatzeeView, Reroll, Score
from dicehall.games.boatzee.scoring import HAND_INDEX, TITLES, Box, hand_of
from dicehall.games.hint_basis import Basis, with_basis

SHOWN = 5

#: What every choice's ``value`` is (the number its ``text`` quotes, unrounded), whatever
#: the basis: ``dicehall hint boatzee --json``, the site's hint API and panel all say so.
VALUE_MEANING = (
    "each value is the final score of the whole game expected with that choice, the points "
    "already on the card included"
)

#: What the figures rest on: the exact tables (one column), the tables combined per column
#: (several columns), or the heuristic evaluation (no tables on this machine yet).
BASIS_EXACT: tuple[Basis, str] = (
    "exact",
    "Exact: the expected final score under best solitaire play, from the solved tables.",
)
BASIS_PER_COLUMN: tuple[Basis, str] = (
    "estimate",
    "An estimate: the solved tables of each column combined (exact for one column only).",
)
BASIS_HEURISTIC: tuple[Basis, str] = (
    "heuristic",
    "A heuristic: the solved tables are not ready on this server yet, so the choices are "
    "ranked by a rule of thumb (the heuristic bot's), not by best play.",
)


class _Valuer(Protocol):
    def choice_values(
        self, card: Card, ruleset: Ruleset, joker: Joker = "forced"
    ) -> tuple[list[tuple[Box, int]], FloatArray]: ...


_TABLES: dict[tuple[int, str, str], _Valuer] = {}


def _solved(columns: int, ruleset: Ruleset, joker: Joker = "forced") -> _Valuer | None:
    """The table valuation when every column's table is cached already, else None (looked
    for again on the next hint, so tables solved later are picked up)."""
    key = (columns, ruleset, joker)
    if key not in _TABLES:
        try:
            from dicehall.games.boatzee.table_cache import load
            from dicehall.games.boatzee.valuation import TableValuation

            tables = [load(ruleset, k, joker) for k in range(1, columns + 1)]
        except (ImportError, OSError, ValueError):  # pragma: no cover - solver not present
            return None
        if any(t is None for t in tables):
            return None
        values = [t.values for t in tables if t is not None]
        _TABLES[key] = TableValuation(values, ruleset, joker)
    return _TABLES[key]


def _where(box: Box, column: int, columns: int) -> str:
    return TITLES[box] + (f" (column {column})" if columns > 1 else "")


def _distinct_keeps(dice: Sequence[int]) -> list[tuple[int, ...]]:
    hand = hand_of(dice)
    return sorted(
        {keep for size in range(len(hand)) for keep in combinations(hand, size)},
        key=lambda keep: (-len(keep), keep),
    )


def seat_hint(view: BoatzeeView, legal: Sequence[Any]) -> dict[str, Any]:
    """The ranked choices for the seat's dice: keeps (while re-rolls are left) and boxes."""
    seat = view.seat
    if seat is None or view.finished or len(view.dice) != 5 or not legal:
        return {"summary": "Hints appear here on your turn.", "choices": []}
    options = view.options
    card = view.cards[seat]
    valuer = _solved(options.columns, options.ruleset, options.joker)
    exact = valuer is not None
    if valuer is None:
        valuer = HEURISTIC
    choices, values = valuer.choice_values(card, options.ruleset, options.joker)
    hand = HAND_INDEX[hand_of(view.dice)]
    can_score = {(a.box, a.column) for a in legal if isinstance(a, Score)}
    rerolls = view.rerolls_left if any(isinstance(a, Reroll) for a in legal) else 0
    ranked: list[tuple[float, str, dict[str, Any]]] = []
    for c, (box, column) in enumerate(choices):
        if (box, column) not in can_score:
            continue
        value = float(values[hand, c])
        scored = column * points(card, view.dice, options.ruleset, box)
        text = f"Score {_where(box, column, options.columns)} for {scored}"
        ranked.append((value, text, {"box": box, "column": column, "points": scored}))
    if rerolls:
        plan = TurnPlan(values)
        keep_values = plan.keep_value[min(rerolls, 2) - 1]
        for keep in _distinct_keeps(view.dice):
            value = float(keep_values[KEEP_INDEX[keep]])
            shown = " ".join(map(str, keep)) if keep else "nothing"
            text = f"Keep {shown} and re-roll {5 - len(keep)}"
            ranked.append((value, text, {"keep": list(keep)}))
    ranked.sort(key=lambda item: -item[0])
    # A choice's value is the final score of the whole game it leads to, the points already
    # on the card included (VALUE_MEANING): the tables and the heuristic value what is still
    # to come, so the card's worth now is added to each.
    now = float(total(card)) if exact else HEURISTIC.value(card)
    best = now + ranked[0][0]
    win = _win_chances(view, hand, rerolls) if exact else None
    out = []
    for future, text, data in ranked[:SHOWN]:
        value = now + future
        if exact:
            text += f": expect {value:.1f} in all"
        elif value < best:
            text += f" ({best - value:.1f} worse)"
        extra = {}
        if win is not None:
            extra["win_chance"] = win(data)
            text += f", {extra['win_chance']:.1%} to win"
        out.append({**data, **extra, "text": text, "value": value})
    note = (
        f"Values from the solved tables, under best solitaire play: {VALUE_MEANING}."
        if exact and options.columns == 1
        else "Values from the solved tables, one per column (an estimate for several "
        f"columns): {VALUE_MEANING}."
        if exact
        else "Values from the heuristic evaluation (the solved tables are not on this server), "
        f"a rule of thumb's reckoning: {VALUE_MEANING}."
    )
    summary = f"Best: {out[0]['text']}."
    if win is not None:
        note += " Chances to win: both cards played for points after this choice."
        _, text, data = max(ranked, key=lambda item: (round(win(item[2]), 12), item[0]))
        if data != {k: out[0].get(k) for k in data}:
            summary += f" To win: {text} ({win(data):.1%})."
    basis = (
        BASIS_HEURISTIC if not exact else BASIS_EXACT if options.columns == 1 else BASIS_PER_COLUMN
    )
    return with_basis({"summary": summary, "choices": out, "note": note}, *basis)


def _win_chances(
    view: BoatzeeView, hand: int, rerolls: int
) -> Callable[[dict[str, Any]], float] | None:
    """In a two-seat one-column boatzee game with the final-score table cached: each
    choice's chance to finish ahead of the other card (see :mod:`winmax`), else None."""
    options = view.options
    if len(view.cards) != 2 or options.columns != 1 or options.ruleset != "boatzee":
        return None
    from dicehall.games.boatzee.final_scores import cached
    from dicehall.games.boatzee.winmax import WinValuation

    finals = cached()
    if finals is None:
        return None
    seat = view.seat or 0
    card = view.cards[seat]
    choices, values = WinValuation(finals, [view.cards[1 - seat]]).choice_values(card, "boatzee")
    where = {box: c for c, (box, _) in enumerate(choices)}
    keeps = TurnPlan(values).keep_value[min(rerolls, 2) - 1] if rerolls else None

    def chance(data: dict[str, Any]) -> float:
        if "box" in data:
            return float(values[hand, where[data["box"]]])
        assert keeps is not None
        return float(keeps[KEEP_INDEX[tuple(data["keep"])]])

    return chance
