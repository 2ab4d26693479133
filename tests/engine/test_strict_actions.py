"""A legal action is matched by value and type: a float or a bool where the rules hold an
int is refused with IllegalMove and changes nothing, in every game."""

from __future__ import annotations

import contextlib
import dataclasses
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dicehall import games
from dicehall.engine.codec import encode
from dicehall.engine.dice import Seeded, resolve_request
from dicehall.engine.errors import IllegalMove, InvalidInput
from dicehall.engine.game import Chance, Finished, ToAct, same_action


def _impostors(value: Any) -> list[Any]:
    """Values equal to ``value`` under ``==`` but of another type."""
    if isinstance(value, bool):
        return [int(value), float(value)]
    if isinstance(value, int):
        out: list[Any] = [float(value)]
        if value in (0, 1):
            out.append(bool(value))
        return out
    return []


def impostor_actions(action: Any) -> list[Any]:
    """Copies of ``action`` with one int (or bool) replaced by an equal value of another
    type, inside tuples too."""
    out: list[Any] = []
    if not dataclasses.is_dataclass(action) or isinstance(action, type):
        return out
    for field in dataclasses.fields(action):
        if not field.compare:
            continue
        value = getattr(action, field.name)
        fakes = list(_impostors(value))
        if isinstance(value, tuple):
            for index, item in enumerate(value):
                fakes += [(*value[:index], f, *value[index + 1 :]) for f in _impostors(item)]
        for fake in fakes:
            # The action type itself may refuse to be built so (Boss keeps do).
            with contextlib.suppress(TypeError, ValueError, InvalidInput):
                out.append(dataclasses.replace(action, **{field.name: fake}))
    return out


def test_same_action_tells_types_apart() -> None:
    assert same_action((1, 2), (1, 2))
    assert not same_action((1, 2), (1.0, 2))
    assert not same_action((1,), (True,))
    assert not same_action(1, True)


@pytest.mark.parametrize("kind", games.NAMES)
@settings(max_examples=8, deadline=None, derandomize=True, database=None)
@given(seed=st.integers(0, 2**31))
def test_impostor_actions_are_refused_and_change_nothing(kind: str, seed: int) -> None:
    entry = games.get(kind)
    game = entry.game
    extra = {"allow_two_seats": True, "rounds": 1} if kind == "bullseye" else {}
    state = game.start(2, game.options(extra))
    dice, rng, checked = Seeded(seed), random.Random(seed), 0
    for _ in range(400):
        turn = game.turn(state)
        if isinstance(turn, Finished):
            break
        if isinstance(turn, Chance):
            state = game.resolve(state, resolve_request(dice, turn.request))
            continue
        assert isinstance(turn, ToAct)
        legal = list(game.legal(state, turn.seat))
        before = encode(state)
        for action in legal:
            for fake in impostor_actions(action):
                if any(same_action(other, fake) for other in legal):
                    continue
                with pytest.raises(IllegalMove):
                    game.act(state, turn.seat, fake)
                assert encode(state) == before
                checked += 1
        state = game.act(state, turn.seat, rng.choice(legal))
    # Boss actions refuse to be built with a float or bool face; the others reach the rules.
    assert checked or kind == "boss", f"no action of {kind} holds an int to fake"
