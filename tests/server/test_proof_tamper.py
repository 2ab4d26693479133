"""Changing anything a proof commits to makes ``verify-game`` fail and say what failed: every
face, salt, leaf, path node, shuffle position, root and log record of served proofs (a seeded
sample of them), for a finished game of every kind, Hold'em with folded pockets among them."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from dicehall.fairness.verify import verify_proof
from tests.conftest import CliRunner
from tests.server.conftest import MakeUser
from tests.server.proof_games import API, SHORT, create, finish, step

#: How many of a proof's committed values each game's test changes (a seeded sample).
SAMPLE = 60


def _other_hex(text: str) -> str:
    return ("1" if text[0] != "1" else "2") + text[1:]


Edit = Callable[[dict[str, Any]], None]


def _at(where: list[Any], change: Callable[[Any, Any], None]) -> Edit:
    """An edit applying ``change(container, key)`` at ``where`` (keys from the proof down)."""

    def edit(proof: dict[str, Any]) -> None:
        container: Any = proof
        for key in where[:-1]:
            container = container[key]
        change(container, where[-1])

    return edit


def _edits(proof: dict[str, Any]) -> Iterator[tuple[str, Edit]]:
    """(what, edit) for every committed value of ``proof``; each edit changes a copy."""
    for i, entry in enumerate(proof["dice_sets"]):
        if "faces" in entry:
            yield f"dice_sets[{i}].faces", _at(["dice_sets", i, "faces"], _face)
        for key in ("salt", "leaf"):
            if key in entry:
                yield f"dice_sets[{i}].{key}", _at(["dice_sets", i, key], _hex)
        for j in range(len(entry.get("path", []))):
            yield f"dice_sets[{i}].path[{j}]", _at(["dice_sets", i, "path", j], _hex)
    shuffles = "bag_shuffles" if "bag_shuffles" in proof else "shuffles"
    for i, entry in enumerate(proof[shuffles]):
        yield f"{shuffles}[{i}].salt", _at([shuffles, i, "salt"], _hex)
        for j in range(len(entry["path"])):
            yield f"{shuffles}[{i}].path[{j}]", _at([shuffles, i, "path", j], _hex)
        for j, position in enumerate(entry["positions"]):
            for key in position:
                where = [shuffles, i, "positions", j, key]
                yield f"{shuffles}[{i}].positions[{j}].{key}", _at(where, _position)
    for i, entry in enumerate(proof.get("keys", [])):
        for key in ("key", "leaf"):
            if key in entry:
                yield f"keys[{i}].{key}", _at(["keys", i, key], _hex)
        for j in range(len(entry["path"])):
            yield f"keys[{i}].path[{j}]", _at(["keys", i, "path", j], _hex)
    for i in range(len(proof.get("seeds", []))):
        yield f"seeds[{i}].seed", _at(["seeds", i, "seed"], _hex)
    for i in range(len(proof.get("decks", []))):
        for key in ("root", "keys", "deck_seq", "game_seq", "first_key", "deck"):
            yield f"decks[{i}].{key}", _at(["decks", i, key], _record_field)
    for i, batch in enumerate(proof["batches"]):
        if "root" in batch:
            yield f"batches[{i}].root", _at(["batches", i, "root"], _hex)
    for i, record in enumerate(proof["log"]):
        for key, value in record.items():
            if key not in ("seq", "kind") and value is not None:
                yield f"log[{i}].{key}", _at(["log", i, key], _record_field)


def _face(entry: dict[str, Any], key: str) -> None:
    faces = entry[key]
    entry[key] = ("1" if faces[0] != "1" else "2") + faces[1:]


def _hex(container: Any, key: Any) -> None:
    container[key] = _other_hex(container[key])


def _position(position: dict[str, Any], key: str) -> None:
    if key == "colour":
        position["colour"] = "r" if position["colour"] != "r" else "k"
    else:
        _hex(position, key)


def _record_field(record: dict[str, Any], key: str) -> None:
    value = record[key]
    record[key] = value + 1 if isinstance(value, int) else _other_hex(value)


def _proof(client: TestClient, headers: Any, kind: str, rng: random.Random) -> dict[str, Any]:
    game = create(client, headers, kind, SHORT[kind][0])
    if kind == "holdem":
        # Fold often, so that the finished log hides pockets the proof must not reveal.
        for _ in range(3000):
            if game["status"] == "finished":
                break
            game = step(client, headers, game, rng, careful=True)
    else:
        game = finish(client, headers, game, rng)
    response = client.get(f"{API}/games/{game['id']}/proof")
    assert response.status_code == 200, response.text
    proof: dict[str, Any] = response.json()
    return proof


@pytest.mark.parametrize("scheme", [2, 3])
@pytest.mark.parametrize("kind", sorted(SHORT))
def test_any_change_to_a_served_proof_fails_verification(
    client: TestClient, make_user: MakeUser, kind: str, scheme: int, request: pytest.FixtureRequest
) -> None:
    if scheme == 2:
        request.getfixturevalue("old_scheme")  # a game from before decks
    rng = random.Random(f"tamper-{kind}")
    proof = _proof(client, make_user("tamperer"), kind, rng)
    assert proof["format"] == f"dicehall-proof/{scheme - 1}"
    if scheme == 3:
        seeded = client.get(f"{API}/games/{proof['id']}/proof").json()
        assert seeded == proof
    assert verify_proof(proof).ok, verify_proof(proof).failure
    if kind == "holdem":
        hidden = [e for e in proof["events"] if isinstance(e.get("outcome"), dict)]
        assert hidden, "no folded pocket in this Hold'em game: the test lost its point"
    edits = list(_edits(proof))
    assert any(what.startswith("log[") for what, _ in edits)
    for what, edit in rng.sample(edits, min(SAMPLE, len(edits))):
        changed = copy.deepcopy(proof)
        edit(changed)
        report = verify_proof(changed)
        assert not report.ok, f"changing {what} went unnoticed"
        assert report.failure, what


def test_verify_game_exits_1_naming_the_failure_and_2_for_a_malformed_file(
    client: TestClient, make_user: MakeUser, cli: CliRunner, tmp_path: Path
) -> None:
    proof = _proof(client, make_user("checker"), "boss", random.Random(3))
    file = tmp_path / "proof.json"
    broken = copy.deepcopy(proof)
    _hex(broken["decks"][0], "root")
    file.write_text(json.dumps(broken))
    failed = cli("verify-game", str(file))
    assert failed.code == 1
    assert failed.out.startswith("FAILED:") and "deck" in failed.out, failed.out
    del broken["keys"]
    file.write_text(json.dumps(broken))
    assert cli("verify-game", str(file)).code == 2
    file.write_text("{not json")
    assert cli("verify-game", str(file)).code == 2
    file.write_text(json.dumps(proof))
    assert cli("verify-game", str(file), "--json").code == 0
