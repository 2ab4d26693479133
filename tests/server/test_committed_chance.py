"""Every chance the site resolves comes from a committed source: each chance event of a game
played on the server names its dice sets or its bag shuffle (exactly one of them, served to
that game), and no module of the games domain reaches for a random source of its own."""

from __future__ import annotations

import ast
import json
import random
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from dicehall.server.core.models import BagShuffle, DiceSet, EventRow
from dicehall.server.domain.games import play
from dicehall.server.domain.services import Services
from tests.server.conftest import MakeUser
from tests.server.proof_games import SHORT, create, finish

GAMES_DOMAIN = Path(play.__file__).parent
FORBIDDEN = {"random", "secrets"}


# SQLite only: test_proofs.py checks each chance event's source on PostgreSQL too.
@pytest.mark.usefixtures("old_scheme")
@pytest.mark.parametrize("kind", sorted(SHORT))
def test_every_chance_event_of_an_old_game_has_one_committed_source(
    kind: str, client: TestClient, make_user: MakeUser, services: Services
) -> None:
    alice = make_user("alice")
    final = finish(client, alice, create(client, alice, kind, SHORT[kind][0]), random.Random(kind))
    game_id = final["id"]
    with services.sessions() as db:
        events = db.scalars(
            select(EventRow).where(EventRow.game_id == game_id).order_by(EventRow.seq)
        ).all()
        own_sets = set(db.scalars(select(DiceSet.id).where(DiceSet.game_id == game_id)))
        own_shuffles = set(db.scalars(select(BagShuffle.id).where(BagShuffle.game_id == game_id)))
    chance = 0
    for event in events:
        data = json.loads(event.data)
        sources = (event.dice_set, event.bag_shuffle)
        if data["type"] != "resolved":
            assert sources == (None, None), event.seq
            continue
        chance += 1
        drawn = any(isinstance(item, str) for item in data["outcome"])
        if drawn:
            assert event.dice_set is None and event.bag_shuffle in own_shuffles, event.seq
        else:
            assert event.bag_shuffle is None and event.dice_set in own_sets, event.seq
    assert chance, "a finished game rolled or drew"


@pytest.mark.parametrize("kind", sorted(SHORT))
def test_every_roll_takes_the_games_next_key_and_every_hand_its_next_shuffle(
    kind: str, client: TestClient, make_user: MakeUser, services: Services
) -> None:
    alice = make_user("alice")
    final = finish(client, alice, create(client, alice, kind, SHORT[kind][0]), random.Random(kind))
    with services.sessions() as db:
        events = db.scalars(
            select(EventRow).where(EventRow.game_id == final["id"]).order_by(EventRow.seq)
        ).all()
    keys: list[int] = []
    hands: list[int] = []
    for event in events:
        data = json.loads(event.data)
        assert (event.dice_set, event.bag_shuffle) == (None, None), event.seq
        if data["type"] != "resolved":
            assert (event.dice_key, event.hand_shuffle) == (None, None), event.seq
        elif any(isinstance(item, str) for item in data["outcome"]):
            assert event.dice_key is None and event.hand_shuffle is not None, event.seq
            if not hands or hands[-1] != event.hand_shuffle:
                hands.append(event.hand_shuffle)
        else:
            assert event.hand_shuffle is None and event.dice_key is not None, event.seq
            keys.append(event.dice_key)
    assert keys and keys == list(range(1, len(keys) + 1))  # key 0 is the seat key
    assert hands == list(range(len(hands)))
    assert bool(hands) == (kind == "holdem")


def _uses_outside_bot_calls(tree: ast.Module, names: set[str]) -> list[int]:
    """Lines where one of ``names`` is used other than inside a ``….bot(name, rng)`` call
    (the random source a bot makes its own choices with, which is no chance outcome)."""
    allowed: set[int] = set()
    for node in ast.walk(tree):
        func = node.func if isinstance(node, ast.Call) else None
        if isinstance(node, ast.Call) and isinstance(func, ast.Attribute) and func.attr == "bot":
            allowed.update(id(sub) for arg in node.args for sub in ast.walk(arg))
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Name) and node.id in names and id(node) not in allowed
    ]


def test_no_games_domain_module_draws_its_own_randomness() -> None:
    """``secrets`` is never imported there, nor anything from ``random``; ``import random``
    serves only a bot's own source of choices (``entry.bot(name, random.SystemRandom())``),
    never a chance outcome, which only ``chance.resolve_chance`` gives, from the pools."""
    modules = sorted(GAMES_DOMAIN.glob("*.py"))
    assert len(modules) > 5
    problems: list[str] = []
    for module in modules:
        tree = ast.parse(module.read_text(), filename=str(module))
        imported: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    root = alias.name.split(".")[0]
                    if root == "secrets" or (root == "random" and alias.asname):
                        problems.append(f"{module.name}:{node.lineno} imports {alias.name}")
                    elif root == "random":
                        imported.add(root)
            elif (
                isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in FORBIDDEN
            ):
                problems.append(f"{module.name}:{node.lineno} imports from {node.module}")
        problems.extend(
            f"{module.name}:{line} uses random outside a bot's construction"
            for line in _uses_outside_bot_calls(tree, imported)
        )
    assert not problems, problems
