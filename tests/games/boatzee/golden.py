"""Boatzee's golden playthroughs (see :mod:`tests.golden.record`): solitaire cards."""

from __future__ import annotations

from tests.golden.spec import Spec

SPECS = (
    Spec("boatzee", 7, ("random",)),
    Spec("boatzee", 11, ("heuristic",)),
)
