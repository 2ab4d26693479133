"""The keep rule in the view: every selection of the opponent's first roll is either a legal
keep or a refused one with the rules' reason, so a board decides nothing itself."""

from __future__ import annotations

from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dicehall.engine import IllegalMove, codec
from dicehall.games.boss import GAME, BossState, BossView, Keep
from dicehall.games.boss.rules import KEEP_RULE, Phase, RefusedKeep

rolls = st.tuples(*[st.integers(1, 6)] * 5)


def keeping(roll: tuple[int, ...], phase: Phase = "keep") -> BossState:
    """Seat 2 keeps from ``roll`` against the Boss's three 6s (two dice under the cup)."""
    return BossState(2, None, (0, 0), phase, ((6, 6, 6, 2, 1), roll), boss=0, concealed=(3, 4))


@settings(max_examples=200, deadline=None)
@given(rolls)
def test_every_selection_is_legal_or_refused_with_the_rules_reason(roll: tuple[int, ...]) -> None:
    state = keeping(roll)
    keeps = {a.dice for a in GAME.legal(state, 1) if isinstance(a, Keep)}
    for seat in (0, 1, None):
        view = GAME.view(state, seat)
        assert view.keep_rule == KEEP_RULE
        refused = {r.dice: r.reason for r in view.refused_keeps}
        selections = {tuple(sorted(c)) for n in range(6) for c in combinations(roll, n)}
        assert keeps | set(refused) == selections and not keeps & set(refused)
        for dice, reason in refused.items():
            with pytest.raises(IllegalMove) as refusal:
                GAME.act(state, 1, Keep(dice))
            assert str(refusal.value) == reason


def test_the_two_pair_ban_in_the_view() -> None:
    view = GAME.view(keeping((2, 2, 5, 5, 3)), 1)
    assert view.refused_keeps == (
        RefusedKeep(
            (2, 2, 5, 5),
            "you may not keep two pairs (5 5 and 2 2): keep one of the pairs, or a full house",
        ),
        RefusedKeep(
            (2, 2, 3, 5, 5),
            "you may not keep two pairs (5 5 and 2 2): keep one of the pairs, or a full house",
        ),
    )
    assert codec.decode(codec.encode(view), BossView) == view
    # a full house may be kept, its two pairs not
    state = keeping((4, 4, 1, 1, 1))
    assert Keep((1, 1, 1, 4, 4)) in GAME.legal(state, 1)
    assert [r.dice for r in GAME.view(state, 1).refused_keeps] == [(1, 1, 4, 4)]
    assert GAME.view(keeping((6, 5, 4, 3, 2)), 1).refused_keeps == ()


def test_refused_keeps_only_while_the_opponent_keeps() -> None:
    assert GAME.view(keeping((2, 2, 5, 5, 3), "call"), 0).refused_keeps == ()
