"""The yahtzee ruleset's ``joker`` option: forced (the official rule) or free (Verhoeff's).

RULES.md: under the free rule a five of a kind whose Boatzee box is filled may go to any
open box. Verhoeff's player scores Full House and the straights at joker values only once
the matching upper box is filled; that reading gives his published optimum, 254.5896.
"""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dicehall.engine.errors import IllegalMove, InvalidOptions
from dicehall.games.boatzee import GAME, BoatzeeOptions, Score
from dicehall.games.boatzee.bots import heuristic
from dicehall.games.boatzee.card import Card, Joker, Ruleset, open_boxes
from dicehall.games.boatzee.evaluators import HEURISTIC
from dicehall.games.boatzee.rules import BoatzeeState, variant_title
from dicehall.games.boatzee.scoring import BOATZEE_POINTS, BOX_INDEX, BOXES, box_score
from dicehall.games.boatzee.solver import solve
from tests.conftest import CliRunner
from tests.games.boatzee.helpers import cards, make_card
from tests.games.boatzee.reference import Reference

JOKER_VALUES = {"full_house": 25, "small_straight": 30, "large_straight": 40}


def _position(card: Card, dice: tuple[int, ...], ruleset: Ruleset, joker: Joker) -> BoatzeeState:
    """Seat 0 of a one-seat game holding ``card``, with ``dice`` after the third roll."""
    options = BoatzeeOptions(card.columns, ruleset, joker)
    start = GAME.start(1, options)
    return replace(start, cards=(card,), dice=dice, rolls=3)


def _expected(
    card: Card, dice: tuple[int, ...], ruleset: Ruleset, joker: Joker
) -> dict[tuple[str, int], int]:
    """RULES.md, written out independently: where ``dice`` may go, and for how much."""
    open_now = [
        (box, k)
        for k in range(1, card.columns + 1)
        for i, box in enumerate(BOXES)
        if card.boxes[k - 1][i] is None
    ]
    five = len(set(dice)) == 1
    boatzee_filled = all(c[BOX_INDEX["boatzee"]] is not None for c in card.boxes)
    is_joker = ruleset == "yahtzee" and five and boatzee_filled
    face_open = five and any(c[dice[0] - 1] is None for c in card.boxes)
    places = open_now
    if is_joker and joker == "forced":
        face_boxes = [(b, k) for b, k in open_now if b == BOXES[dice[0] - 1]]
        lower = [(b, k) for b, k in open_now if BOX_INDEX[b] >= 6]
        places = face_boxes or lower or open_now
    values: dict[tuple[str, int], int] = {}
    for box, k in places:
        points = box_score(box, dice)
        if is_joker and not face_open and box in JOKER_VALUES:
            points = JOKER_VALUES[box]
        values[(box, k)] = k * points
    return values


def _scores(state: BoatzeeState) -> dict[tuple[str, int], Score]:
    """The legal Score moves of seat 0, by (box, column)."""
    return {(a.box, a.column): a for a in GAME.legal(state, 0) if isinstance(a, Score)}


hands = st.one_of(
    st.integers(1, 6).map(lambda face: (face,) * 5),
    st.tuples(*[st.integers(1, 6)] * 5),
)


@settings(max_examples=150, deadline=None)
@given(position=cards(), dice=hands, joker=st.sampled_from(["forced", "free"]))
def test_legal_boxes_and_their_points_follow_the_joker_option(
    position: tuple[Card, Ruleset], dice: tuple[int, ...], joker: Joker
) -> None:
    card, ruleset = position
    if joker == "free":
        ruleset = "yahtzee"  # the option exists only there
    state = _position(card, dice, ruleset, joker)
    legal = {where: move.points for where, move in _scores(state).items()}
    assert legal == _expected(card, dice, ruleset, joker)
    if joker == "free":
        # Any open box: the free rule never narrows the choice.
        assert set(legal) == set(open_boxes(card))
    for box, k in open_boxes(card):
        move = Score(box, k)
        if (box, k) in legal:
            after = GAME.act(state, 0, move)
            assert after.cards[0].boxes[k - 1][BOX_INDEX[box]] == legal[(box, k)] // k
        else:
            with pytest.raises(IllegalMove, match="joker rule"):
                GAME.act(state, 0, move)


def test_free_joker_goes_anywhere_but_scores_joker_values_only_after_its_upper_box() -> None:
    sixes = (6,) * 5
    card = make_card(1, {("boatzee", 1): 50, ("ones", 1): 3})
    forced = _position(card, sixes, "yahtzee", "forced")
    free = _position(card, sixes, "yahtzee", "free")
    only = [(box, m.points, m.extra_bonus) for (box, _), m in _scores(forced).items()]
    assert only == [("sixes", 30, 100)]
    scores = {box: (m.points, m.extra_bonus) for (box, _), m in _scores(free).items()}
    assert set(scores) == set(BOXES) - {"ones", "boatzee"}
    # Sixes still open: the lower boxes score as usual (Full House, straights 0), +100 each.
    assert scores["full_house"] == scores["large_straight"] == (0, 100)
    assert scores["four_kind"] == scores["chance"] == (30, 100)
    # Sixes filled: now the joker values, wherever it goes.
    card = make_card(1, {("boatzee", 1): 0, ("sixes", 1): 12})
    points = {
        box: m.points for (box, _), m in _scores(_position(card, sixes, "yahtzee", "free")).items()
    }
    assert points["full_house"] == 25 and points["small_straight"] == 30
    assert points["large_straight"] == 40 and points["twos"] == 0
    # Double: joker values only once Sixes is filled in both columns.
    card = make_card(2, {("boatzee", 1): 50, ("boatzee", 2): 0, ("sixes", 1): 24})
    double = _scores(_position(card, sixes, "yahtzee", "free"))
    assert double[("full_house", 2)].points == 0 and double[("sixes", 2)].points == 60


def test_a_five_of_a_kind_before_the_boatzee_box_is_filled_is_no_joker_either_way() -> None:
    card = make_card(1, {("ones", 1): 2})
    fours = (4,) * 5
    jokers: tuple[Joker, ...] = ("forced", "free")
    for joker in jokers:
        legal = {
            box: m.points
            for (box, _), m in _scores(_position(card, fours, "yahtzee", joker)).items()
        }
        assert set(legal) == set(BOXES) - {"ones"}
        assert legal["boatzee"] == BOATZEE_POINTS and legal["full_house"] == 0


def test_the_joker_option_is_validated_and_named() -> None:
    assert BoatzeeOptions().joker == "forced"
    free = GAME.options({"ruleset": "yahtzee", "joker": "free"})
    assert free == BoatzeeOptions(1, "yahtzee", "free")
    assert variant_title(free) == "Boatzee (yahtzee rules, free joker)"
    assert variant_title(BoatzeeOptions(2, "yahtzee")) == "Double Boatzee (yahtzee rules)"
    with pytest.raises(InvalidOptions, match="forced, free"):
        GAME.options({"ruleset": "yahtzee", "joker": "wild"})
    with pytest.raises(InvalidOptions, match="yahtzee ruleset only"):
        GAME.options({"joker": "free"})
    GAME.options({"joker": "forced"})  # the default is fine with either ruleset


def test_bots_play_by_the_free_joker() -> None:
    # Five 6s with Sixes, 4 of a kind and Chance open (the upper bonus out of reach): the
    # forced rule allows only Sixes; the heuristic bot, free to choose, keeps Sixes for later
    # and takes 4 of a kind, the open box it expects least of.
    sixes = (6,) * 5
    open_now = {"sixes", "four_kind", "chance"}
    filled: dict[tuple[str, int], int] = {
        (b, 1): 50 if b == "boatzee" else 0 for b in BOXES if b not in open_now
    }
    card = make_card(1, filled)
    expected: tuple[tuple[Joker, str], ...] = (("forced", "sixes"), ("free", "four_kind"))
    for joker, box in expected:
        state = _position(card, sixes, "yahtzee", joker)
        view, legal = GAME.view(state, 0), GAME.legal(state, 0)
        move = heuristic(random.Random(0)).choose(view, legal)
        assert isinstance(move, Score) and move.box == box, (joker, move)
    _, forced = HEURISTIC.choice_values(card, "yahtzee", "forced")
    choices, free = HEURISTIC.choice_values(card, "yahtzee", "free")
    assert np.isfinite(free).all() and not np.isfinite(forced).all()
    assert len(choices) == 3


@pytest.mark.parametrize(
    ("open_boxes", "values", "gains"),
    [
        # Five 4s with Fours open: Full House and Large Straight would score 0, no gain.
        ({"fours", "full_house", "large_straight"}, {"boatzee": 50}, False),
        ({"threes", "small_straight", "chance"}, {"boatzee": 0, "fours": 20}, True),
        # Five 1s may keep Ones open (Chance takes them); five 6s may spare Sixes.
        ({"ones", "chance", "full_house"}, {"boatzee": 50}, True),
        ({"sixes", "four_kind", "small_straight"}, {"boatzee": 50}, True),
    ],
)
def test_small_free_joker_games_match_plain_expectimax(
    open_boxes: set[str], values: dict[str, int], gains: bool
) -> None:
    filled: dict[tuple[str, int], int] = {
        (box, 1): values.get(box, 0) for box in BOXES if box not in open_boxes
    }
    card = make_card(1, filled)
    mask = sum(1 << BOX_INDEX[box] for box in BOXES if box not in open_boxes)
    upper = min(63, sum(v for box, v in values.items() if BOX_INDEX[box] < 6))
    fifty = int(values.get("boatzee") == 50)
    free = solve("yahtzee", joker="free", filled=mask).values[fifty, mask, upper]
    forced = solve("yahtzee", filled=mask).values[fifty, mask, upper]
    assert free == pytest.approx(Reference("yahtzee", "free").future(card).mean, rel=1e-12)
    assert forced == pytest.approx(Reference("yahtzee").future(card).mean, rel=1e-12)
    # More freedom is never worth less; here and there it is worth more.
    assert free >= forced and (free > forced + 1e-9) == gains


def test_the_solver_refuses_a_joker_rule_it_does_not_know() -> None:
    with pytest.raises(ValueError, match="joker"):
        solve("boatzee", joker="free")
    with pytest.raises(ValueError, match="joker"):
        solve("yahtzee", joker="wild")  # type: ignore[arg-type]


@pytest.mark.slow
def test_solve_reproduces_verhoeffs_optimum(
    cli: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``dicehall solve boatzee --ruleset yahtzee --joker free``: 254.5896, as published."""
    monkeypatch.setenv("DICEHALL_DATA", str(tmp_path))
    result = cli("solve", "boatzee", "--ruleset", "yahtzee", "--joker", "free", "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["ruleset"] == "yahtzee" and data["joker"] == "free"
    assert f"{data['expected']:.4f}" == "254.5896"
    assert 50 < data["std"] < 70
    assert (tmp_path / "boatzee" / "yahtzee-free-x1.json").exists()
