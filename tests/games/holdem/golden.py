"""Hold'em Dice's golden playthroughs (see :mod:`tests.golden.record`): 30-chip stacks; seed 2
knocks a seat out."""

from __future__ import annotations

from tests.golden.spec import Spec

SPECS = (
    Spec("holdem", 2, ("random", "random", "random"), {"stack": 30}),
    Spec("holdem", 3, ("random", "random"), {"stack": 30, "max_flop_rerolls": 1}),
)
