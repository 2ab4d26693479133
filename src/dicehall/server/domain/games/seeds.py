"""A seat's seed: the player's own entropy, mixed into every later roll and hand of a game
that rolls from its deck (scheme 3, :mod:`dicehall.fairness.decks`).

A seat sends one seed, once, any time from the game's creation until it ends; it counts
from the game's next roll and next hand on (what was already rolled stays as it was). The
deck was bound before any seed could arrive, so the site cannot pick one to suit a seed.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, insert, select

from dicehall.fairness.decks import parse_seed
from dicehall.server.core.clock import now
from dicehall.server.core.models import User
from dicehall.server.domain.dice.decks import GAME_SEEDS
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.games.records import GAMES, seats_of


def _parsed(text: object) -> bytes:
    try:
        seed = parse_seed(text) if isinstance(text, str) else None
    except ValueError as exc:
        raise Refused("invalid", "invalid_seed", str(exc)) from None
    if seed is None:
        raise Refused("invalid", "invalid_seed", "a seed is a string of hexadecimal digits")
    return seed


def give_seed(conn: Connection, user: User, game_id: int, text: object) -> dict[str, Any]:
    """Record ``user``'s seed for their seat of ``game_id``. Caller commits."""
    seed = _parsed(text)
    game = conn.execute(
        select(GAMES.c.status, GAMES.c.next_key, GAMES.c.next_shuffle)
        .where(GAMES.c.id == game_id)
        .with_for_update()  # one order with the moves: the game's row first
    ).first()
    if game is None:
        raise Refused("not_found", "not_found", f"there is no game {game_id}")
    seat = next((s for s in seats_of(conn, game_id) if s.user_pk == user.id), None)
    if seat is None:
        raise Refused("forbidden", "not_your_game", "you have no seat in this game")
    if game.status not in ("waiting", "active"):
        raise Refused("conflict", "finished", f"this game is {game.status}: seeds are closed")
    if game.next_key is None:
        raise Refused(
            "conflict",
            "no_deck",
            "this game rolls from the old dice pool (it was made before decks): a seed "
            "would change nothing",
        )
    taken = conn.execute(
        select(GAME_SEEDS.c.seat).where(
            GAME_SEEDS.c.game_id == game_id, GAME_SEEDS.c.seat == seat.seat
        )
    ).first()
    if taken is not None:
        raise Refused("conflict", "seed_set", "your seat already has its seed for this game")
    conn.execute(
        insert(GAME_SEEDS).values(
            game_id=game_id,
            seat=seat.seat,
            seed=seed.hex(),
            from_key=int(game.next_key),
            from_shuffle=int(game.next_shuffle),
            created_at=now(),
        )
    )
    return {
        "game": game_id,
        "seat": seat.seat,
        "seed": seed.hex(),
        "from_key": int(game.next_key),
        "from_shuffle": int(game.next_shuffle),
    }
