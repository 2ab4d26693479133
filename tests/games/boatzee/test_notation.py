"""Box names as people type them."""

from __future__ import annotations

import pytest

from dicehall.engine.errors import InvalidInput
from dicehall.games.boatzee.notation import ALIASES, SHORT, parse_box, parse_box_and_column
from dicehall.games.boatzee.scoring import BOXES


def test_names_short_names_and_spacing() -> None:
    for box in BOXES:
        assert parse_box(box) == box
        assert parse_box(SHORT[box]) == box
        assert parse_box(box.replace("_", " ").upper()) == box
    assert parse_box("Full-House") == "full_house"
    assert parse_box("yahtzee") == "boatzee"
    assert set(ALIASES.values()) == set(BOXES)


def test_columns_and_errors() -> None:
    assert parse_box_and_column("full house 2") == ("full_house", 2)
    assert parse_box_and_column("6s") == ("sixes", None)
    with pytest.raises(InvalidInput, match="'yacht' is not a box"):
        parse_box("yacht")
    with pytest.raises(InvalidInput, match="not a box"):
        parse_box_and_column("2")
