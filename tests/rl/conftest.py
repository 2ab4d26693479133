"""Shared settings for the environment tests: the games, their seat counts and opponents."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

#: (game, seats, options) for the PettingZoo tests: every encoded game, several seat counts.
TABLES: list[tuple[str, int, dict[str, Any]]] = [
    ("tenthousand", 1, {"target": 500, "entry_threshold": 300}),
    ("tenthousand", 3, {"target": 1000}),
    ("boatzee", 1, {}),
    ("boatzee", 2, {"columns": 2}),
    ("boss", 2, {}),
    ("holdem", 3, {"stack": 100}),
    ("bullseye", 3, {}),
]

#: (game, opponents, options) for the Gymnasium tests.
DUELS: list[tuple[str, list[str], dict[str, Any]]] = [
    ("tenthousand", ["bot:heuristic"], {"target": 1000}),
    ("boatzee", [], {}),
    ("boatzee", [], {"ruleset": "yahtzee"}),
    ("boss", ["bot:odds"], {}),
    ("holdem", ["bot:equity", "random"], {"stack": 100}),
    ("bullseye", ["bot:heuristic", "bot:random"], {}),
]


@pytest.fixture(autouse=True)
def _quiet_checkers() -> None:
    # The checkers warn about things that are choices here (float observations without
    # bounds, no render_fps); the tests assert what matters.
    warnings.filterwarnings("ignore", module="gymnasium")
    warnings.filterwarnings("ignore", module="pettingzoo")
