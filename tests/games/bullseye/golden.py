"""Bull's Eye's golden playthroughs (see :mod:`tests.golden.record`): one round each."""

from __future__ import annotations

from tests.golden.spec import Spec

SPECS = (
    Spec("bullseye", 1, ("random", "random"), {"rounds": 1, "allow_two_seats": True}),
    Spec("bullseye", 2, ("heuristic", "random", "heuristic"), {"rounds": 1}),
)
