"""Ten Thousand's golden playthroughs (see :mod:`tests.golden.record`): short games to 1,500."""

from __future__ import annotations

from tests.golden.spec import Spec

_SHORT = {"target": 1500, "entry_threshold": 0}

SPECS = (
    Spec("tenthousand", 11, ("random", "random"), _SHORT),
    Spec("tenthousand", 3, ("heuristic", "random"), _SHORT),
    Spec("tenthousand", 7, ("heuristic", "heuristic", "random"), _SHORT),
)
