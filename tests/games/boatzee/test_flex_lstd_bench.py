"""``bench/bench_flex_lstd.py``: its features, its corrected values and a small whole run."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from bench import bench_flex_lstd as lstd

from dicehall.games.boatzee.card import Card, empty_card
from dicehall.games.boatzee.flexible import for_columns
from dicehall.games.boatzee.scoring import BOXES
from tests.games.boatzee.solved import solved, solved_dir

__all__ = ["solved", "solved_dir"]


def full_card() -> Card:
    return Card(((0,) * len(BOXES), (0,) * len(BOXES)))


@pytest.mark.parametrize("name", sorted(lstd.FEATURES))
def test_features_vanish_on_a_full_card(name: str) -> None:
    features = lstd.FEATURES[name]
    assert not features(full_card()).any()
    assert features(empty_card(2)).any()


def test_overlap_counts_the_boxes_open_in_both_columns() -> None:
    card = lstd.filled(lstd.filled(empty_card(2), BOXES[0], 1), BOXES[1], 2)
    found = lstd.overlap(card)
    assert found[:13].tolist() == [0, 0] + [1] * 11
    assert found[13:] == pytest.approx(found[:13] * 24 / 26)
    triple = lstd.overlap(lstd.filled(empty_card(3), BOXES[0], 3))
    assert len(triple) == 3 * 13 * 2  # each pair of columns: (1, 2), (1, 3), (2, 3)
    assert [triple[13 * pair] for pair in range(3)] == [1, 0, 0]


def test_a_correction_shifts_only_the_choices_that_change_its_features(solved: Path) -> None:
    base = for_columns(2)
    card = empty_card(2)
    choices, plain = base.choice_values(card, "boatzee")
    weights = np.zeros(26)
    weights[0] = 10.0  # Ones open in both columns is worth 10 more
    _, shifted = lstd.Corrected(base, lstd.overlap, weights).choice_values(card, "boatzee")
    difference = shifted - plain
    for j, (box, _) in enumerate(choices):
        assert difference[:, j] == pytest.approx(0.0 if box == BOXES[0] else 10.0)


def test_a_small_run_prints_its_comparison(
    solved: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert lstd.main(["--train", "3", "--games", "3", "--features", "rich", "--columns", "3"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["features"] == "rich" and printed["games"] == 3 and printed["columns"] == 3
    gain = printed["corrected"]["mean"] - printed["strong"]["mean"]
    assert printed["gain"]["mean"] == pytest.approx(gain, abs=0.02)
    assert printed["gain"]["low"] <= printed["gain"]["mean"] <= printed["gain"]["high"]
