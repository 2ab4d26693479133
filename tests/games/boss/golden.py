"""Boss Dice's golden playthroughs (see :mod:`tests.golden.record`): one or two horses; seed 5
shows a pick-up."""

from __future__ import annotations

from tests.golden.spec import Spec

SPECS = (
    Spec("boss", 1, ("random", "random"), {"horses": 1}),
    Spec("boss", 5, ("heuristic", "random"), {"horses": 2}),
    Spec("boss", 3, ("heuristic", "heuristic"), {"horses": 2, "max_pickups": 1}),
)
