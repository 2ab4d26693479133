"""Tests' access to a game's seat hint by the game's name, and hints met in seeded play."""

from __future__ import annotations

import random
from typing import Any

from dicehall import games
from dicehall.engine import Chance, Finished, Seeded, resolve_request
from dicehall.games.entry import SeatHint


def hint_for(name: str) -> SeatHint | None:
    """The seat hint of game ``name`` (None when it has none)."""
    return games.get(name).seat_hint()


def seeded_hints(name: str, seats: int, seed: int) -> list[tuple[Any, dict[str, Any]]]:
    """The view and hint of every seat to act in a game of seeded dice and random moves."""
    entry = games.get(name)
    function = entry.seat_hint()
    assert function is not None
    game = entry.game
    state = game.start(seats, game.options({}))
    source, rng = Seeded(seed), random.Random(seed)
    found = []
    for _ in range(400):
        turn = game.turn(state)
        if isinstance(turn, Finished):
            break
        if isinstance(turn, Chance):
            state = game.resolve(state, resolve_request(source, turn.request))
            continue
        legal = list(game.legal(state, turn.seat))
        view = game.view(state, turn.seat)
        found.append((view, function(view, legal)))
        state = game.act(state, turn.seat, rng.choice(legal))
    return found
