"""Random legal play, checked at every step: the harness plus Boatzee's own invariants."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dicehall.engine import Acted, Event, Resolved
from dicehall.engine.harness import check_random_play
from dicehall.games.boatzee import BOTS, GAME, BoatzeeOptions, BoatzeeState, Reroll, Score
from dicehall.games.boatzee.card import Card
from dicehall.games.boatzee.scoring import BOX_INDEX, BOXES, box_score
from tests.games.boatzee.solved import solved, solved_dir

__all__ = ["solved", "solved_dir"]


def independent_total(card: Card) -> int:
    """Boxes times their column, 35 per column whose raw upper total reaches 63, 100s."""
    result = 100 * card.extra_bonuses
    for k, column in enumerate(card.boxes, start=1):
        values = [v for v in column if v is not None]
        result += k * sum(values)
        if sum(v for v in column[:6] if v is not None) >= 63:
            result += 35
    return result


def expected_points(before: BoatzeeState, box: str, dice: tuple[int, ...]) -> int:
    card = before.cards[before.current]
    five = len(set(dice)) == 1
    # Joker values once every Boatzee box and every upper box of the face are filled (the
    # forced rule allows a lower box only then; the free rule scores it plainly before).
    joker = (
        before.options.ruleset == "yahtzee"
        and five
        and all(column[BOX_INDEX["boatzee"]] is not None for column in card.boxes)
        and all(column[dice[0] - 1] is not None for column in card.boxes)
    )
    if joker and box in ("full_house", "small_straight", "large_straight"):
        return {"full_house": 25, "small_straight": 30, "large_straight": 40}[box]
    return box_score(box, dice)  # type: ignore[arg-type]


def check_step(before: BoatzeeState, event: Event, after: BoatzeeState) -> None:
    views = {replace(GAME.view(after, seat), seat=None) for seat in range(len(after.cards))}
    assert views == {GAME.view(after, None)}, "a view differs between seats"
    if isinstance(event, Resolved):
        kept = [p for p in range(5) if p not in before.rerolling]
        if before.rolls > 0:
            assert all(after.dice[p] == before.dice[p] for p in kept)
        assert after.cards == before.cards
        return
    assert isinstance(event, Acted)
    action = event.action
    if isinstance(action, Reroll):
        assert after.dice == before.dice and after.rolls == before.rolls + 1 <= 3
        assert after.cards == before.cards
        return
    assert isinstance(action, Score)
    seat, k, i = event.seat, action.column, BOX_INDEX[action.box]
    old, new = before.cards[seat], after.cards[seat]
    changed = [
        (c, j)
        for c in range(old.columns)
        for j in range(len(BOXES))
        if old.boxes[c][j] != new.boxes[c][j]
    ]
    assert changed == [(k - 1, i)] and old.boxes[k - 1][i] is None
    value = new.boxes[k - 1][i]
    assert value == expected_points(before, action.box, before.dice)
    five = len(set(before.dice)) == 1
    bonus_due = (
        before.options.ruleset == "yahtzee"
        and five
        and any(column[BOX_INDEX["boatzee"]] == 50 for column in old.boxes)
    )
    assert new.extra_bonuses == old.extra_bonuses + int(bonus_due)
    crossed = (
        sum(v or 0 for v in old.boxes[k - 1][:6]) < 63 <= sum(v or 0 for v in new.boxes[k - 1][:6])
    )
    assert independent_total(new) - independent_total(old) == (
        k * value + 35 * crossed + 100 * bonus_due
    )
    others = [c for s, c in enumerate(after.cards) if s != seat]
    assert others == [c for s, c in enumerate(before.cards) if s != seat]
    assert after.current == (seat + 1) % len(after.cards) and after.dice == () and after.rolls == 0


def check_game(seats: int, options: BoatzeeOptions, seed: int, bot: Any = None) -> None:
    extra: dict[str, Any] = {} if bot is None else {"bot": bot}
    run = check_random_play(GAME, seats, options, seed, on_step=check_step, codec_every=3, **extra)
    scored = Counter(
        (e.seat, e.action.box, e.action.column)
        for e in run.events
        if isinstance(e, Acted) and isinstance(e.action, Score)
    )
    every_box = {
        (seat, box, k)
        for seat in range(seats)
        for box in BOXES
        for k in range(1, options.columns + 1)
    }
    assert set(scored) == every_box and set(scored.values()) == {1}
    state: BoatzeeState = run.state
    assert all(v is not None for card in state.cards for c in card.boxes for v in c)
    assert run.result.scores == tuple(independent_total(card) for card in state.cards)
    assert run.result.turns == seats * 13 * options.columns
    best = max(run.result.scores)
    assert run.result.winners == tuple(i for i, s in enumerate(run.result.scores) if s == best)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    seats=st.integers(1, 3),
    columns=st.integers(1, 3),
    rules=st.sampled_from([("boatzee", "forced"), ("yahtzee", "forced"), ("yahtzee", "free")]),
)
def test_random_play(seed: int, seats: int, columns: int, rules: tuple[str, str]) -> None:
    check_game(seats, BoatzeeOptions(columns, *rules), seed)  # type: ignore[arg-type]


@settings(
    max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    seed=st.integers(0, 2**32 - 1),
    bot=st.sampled_from(sorted(BOTS)),
    columns=st.integers(1, 2),
    ruleset=st.sampled_from(["boatzee", "yahtzee"]),
)
def test_bot_play(solved: Path, seed: int, bot: str, columns: int, ruleset: str) -> None:
    # The table bots read the session's solved tables (the same for every example).
    check_game(2, BoatzeeOptions(columns, ruleset), seed, BOTS[bot])  # type: ignore[arg-type]


def test_random_play_with_eight_seats() -> None:
    check_game(8, BoatzeeOptions(), 8)
