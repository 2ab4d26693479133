"""The distributions of final scores under optimal play, and the chances to win built on them."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from dicehall.games.boatzee.card import Card
from dicehall.games.boatzee.final_scores import FinalScores, build, final_scores, lengths
from dicehall.games.boatzee.scoring import BOX_INDEX, BOXES, HANDS
from dicehall.games.boatzee.solver import solve
from dicehall.games.boatzee.table_cache import table
from dicehall.games.boatzee.winmax import WinValuation, beat_chances, final_chances
from tests.games.boatzee.helpers import make_card
from tests.games.boatzee.reference import Reference
from tests.games.boatzee.solved import solved, solved_dir

__all__ = ["solved", "solved_dir"]

#: Each die held once it shows the face: it shows it within three rolls with this chance.
SHOWN_IN_THREE = 1 - (5 / 6) ** 3


def _reduced(open_boxes: set[str], values: dict[str, int] | None = None) -> tuple[Card, int]:
    given = values or {}
    card = make_card(1, {(box, 1): given.get(box, 0) for box in BOXES if box not in open_boxes})
    return card, sum(1 << BOX_INDEX[box] for box in BOXES if box not in open_boxes)


def _finals(mask: int) -> FinalScores:
    return build(solve("boatzee", filled=mask).values, filled=mask)


def test_an_upper_box_alone_holds_a_binomial_count_of_its_face() -> None:
    # With only Sixes open (and no bonus in reach) best play holds every six.
    _, mask = _reduced({"sixes"})
    rest = _finals(mask).remaining(mask, 0)
    counts = [
        math.comb(5, n) * SHOWN_IN_THREE**n * (1 - SHOWN_IN_THREE) ** (5 - n) for n in range(6)
    ]
    expected = np.zeros(len(rest))
    expected[[6 * n for n in range(6)]] = counts
    assert np.allclose(rest, expected, atol=1e-6)


def test_the_boatzee_box_alone_is_fifty_with_the_chance_of_five_alike_in_three_rolls() -> None:
    _, mask = _reduced({"boatzee"})
    rest = _finals(mask).remaining(mask, 0)
    five_alike = 2_783_176 / 6**10  # the known chance of five of a kind within three rolls
    assert rest[50] == pytest.approx(five_alike, abs=1e-7)
    assert rest[0] == pytest.approx(1 - five_alike, abs=1e-7)
    assert rest.sum() == pytest.approx(1.0, abs=1e-6)


@pytest.mark.parametrize(
    ("open_boxes", "values"),
    [
        ({"fives", "sixes", "small_straight"}, {"ones": 4, "twos": 8, "threes": 12, "fours": 16}),
        ({"boatzee", "full_house", "chance"}, {}),
    ],
)
def test_a_reduced_games_distribution_has_the_reference_mean_and_spread(
    open_boxes: set[str], values: dict[str, int]
) -> None:
    card, mask = _reduced(open_boxes, values)
    upper = min(63, sum(v for box, v in values.items() if BOX_INDEX[box] < 6))
    rest = _finals(mask).remaining(mask, upper).astype(np.float64)
    points = np.arange(len(rest))
    reference = Reference("boatzee").future(card)
    assert rest.sum() == pytest.approx(1.0, abs=1e-6)
    assert rest @ points == pytest.approx(reference.mean, abs=1e-4)
    assert rest @ points**2 == pytest.approx(reference.square, rel=1e-5)


def test_the_whole_tables_distributions_agree_with_the_solver(solved: Path) -> None:
    values = table("boatzee", 1).values[0]
    finals = final_scores()
    start = finals.remaining(0, 0).astype(np.float64)
    points = np.arange(len(start))
    assert start @ points == pytest.approx(245.870775, abs=1e-5)
    assert math.sqrt(start @ points**2 - (start @ points) ** 2) == pytest.approx(
        table("boatzee", 1).std, abs=1e-4
    )
    rng = np.random.default_rng(3)
    stored = np.argwhere(finals.offsets >= 0)
    size = lengths()
    for mask, upper in stored[rng.choice(len(stored), 3000, replace=False)]:
        rest = finals.remaining(int(mask), int(upper)).astype(np.float64)
        assert len(rest) == size[mask]
        assert rest.min() >= 0 and rest.sum() == pytest.approx(1.0, abs=1e-5)
        assert rest @ np.arange(len(rest)) == pytest.approx(values[mask, upper], abs=1e-3)


def test_two_empty_cards_win_half_each_and_a_finished_game_is_decided(solved: Path) -> None:
    finals = final_scores()
    empty = make_card(1, {})
    assert WinValuation(finals, [empty]).win_chance(empty) == pytest.approx(0.5, abs=1e-6)
    full: dict[tuple[str, int], int] = {(box, 1): 0 for box in BOXES}
    low = make_card(1, full | {("chance", 1): 20})
    high = make_card(1, full | {("chance", 1): 25})
    assert beat_chances([low], finals)[20] == 0.5
    assert beat_chances([low], finals)[21] == 1.0 and beat_chances([low], finals)[19] == 0.0
    assert WinValuation(finals, [low]).win_chance(high) == 1.0
    assert WinValuation(finals, [high]).win_chance(low) == 0.0
    assert final_chances(high, finals)[25] == 1.0


def test_a_last_box_is_valued_by_whether_its_points_beat_the_rival(solved: Path) -> None:
    finals = final_scores()
    zeros: dict[tuple[str, int], int] = {(box, 1): 0 for box in BOXES}
    rival = make_card(1, zeros | {("chance", 1): 20})
    card = make_card(1, {key: v for key, v in zeros.items() if key != ("chance", 1)})
    choices, values = WinValuation(finals, [rival]).choice_values(card, "boatzee")
    assert choices == [("chance", 1)]
    sums = np.array([sum(hand) for hand in HANDS])
    assert np.array_equal(values[:, 0], np.where(sums > 20, 1.0, np.where(sums == 20, 0.5, 0.0)))


def test_a_two_seat_hint_gives_each_choice_its_chance_to_win(solved: Path) -> None:
    from dataclasses import replace

    from dicehall.games.boatzee import GAME
    from dicehall.games.boatzee.seat_hint import seat_hint

    zeros: dict[tuple[str, int], int] = {(box, 1): 0 for box in BOXES}
    rival = make_card(1, zeros | {("chance", 1): 21})
    mine = make_card(1, {key: v for key, v in zeros.items() if key != ("chance", 1)})
    state = replace(
        GAME.start(2, GAME.options({})),
        cards=(rival, mine),
        current=1,
        dice=(6, 6, 6, 3, 1),
        rolls=2,
        turns=25,
    )
    hint = seat_hint(GAME.view(state, 1), GAME.legal(state, 1))
    best = hint["choices"][0]
    # Points first, as in solitaire (18 + two dice expects 25), with the chance to win beside.
    assert best["keep"] == [6, 6, 6] and best["win_chance"] == pytest.approx(34 / 36)
    assert best["text"].endswith("expect 25.0 in all, 94.4% to win")
    assert "To win: Keep 3 6 6 6 and re-roll 1 (100.0%)" in hint["summary"]
    chance = next(c for c in hint["choices"] if c.get("box") == "chance")
    assert chance["win_chance"] == 1.0
    solo = replace(GAME.start(1, GAME.options({})), cards=(mine,), dice=(6, 6, 6, 3, 1), rolls=2)
    alone = seat_hint(GAME.view(solo, 0), GAME.legal(solo, 0))
    assert all("win_chance" not in c for c in alone["choices"]) and "To win" not in alone["summary"]
