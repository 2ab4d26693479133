"""Per-game proofs (``GET /api/v1/games/{id}/proof``): served once a game is finished, their
sources reproduce every recorded outcome against roots that the chained public log holds,
a Hold'em hand's draws are its committed shuffle's prefix, and nothing of a game still in
play (no salt, no leaf but as a sibling hash, no position of its shuffles) nor any
shuffle's secret appears in them."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select, update

from dicehall.fairness.chain import verify_chain
from dicehall.fairness.leaves import (
    dice_leaf,
    position_digest,
    position_salt,
    shuffle_digests,
    shuffle_leaf,
)
from dicehall.fairness.merkle import root_from_path
from dicehall.fairness.seating import shuffle_by_dice
from dicehall.server.core.models import BagShuffle, DiceBatch, DiceSet, EventRow
from dicehall.server.domain.dice import fairlog
from dicehall.server.domain.services import Services
from tests.conftest import CliRunner
from tests.server.conftest import MakeUser
from tests.server.proof_games import API, LONG, SHORT, create, finish, step

#: These are proofs of games that roll from the old pool (scheme 2, games made before
#: migration 0014); tests/server/test_deck_proofs.py proves games that roll from decks.
pytestmark = pytest.mark.usefixtures("old_scheme")

#: A game's outcomes as the public log shows them (None where hidden), event by event.
Outcomes = dict[int, list[Any] | None]


def _outcomes(events: list[dict[str, Any]]) -> Outcomes:
    found: Outcomes = {}
    for index, event in enumerate(events):
        if event["type"] == "resolved":
            outcome = event["outcome"]
            found[index] = None if isinstance(outcome, dict) else list(outcome)
    return found


def _check_batches(proof: dict[str, Any], services: Services) -> dict[tuple[str, int], Any]:
    """Every Merkle batch's root is in its log record, and the proof's log is the stored
    log as it stood (the pool may have committed batches since: they come after it)."""
    assert verify_chain(proof["log"]) is None
    with services.read_conn() as conn:
        stored = fairlog.records(conn, 1, len(proof["log"]))
    assert proof["log"] == stored
    records = {r["seq"]: r for r in proof["log"]}
    batches: dict[tuple[str, int], Any] = {}
    for batch in proof["batches"]:
        batches[(batch["kind"], batch["batch"])] = batch
        if batch.get("scheme") == 1:
            continue
        record = records[batch["log_seq"]]
        for key in ("kind", "batch", "first", "size", "root"):
            assert record[key] == batch[key], (key, batch, record)
    return batches


def _check_paths(proof: dict[str, Any], batches: dict[tuple[str, int], Any]) -> None:
    """Every leaf, shown or withheld, leads to its batch's root."""
    for entry in proof["dice_sets"]:
        batch = batches[("dice", entry["batch"])]
        if "leaf" in entry:
            leaf = bytes.fromhex(entry["leaf"])
        else:
            leaf = dice_leaf(bytes.fromhex(entry["salt"]), entry["number"], entry["faces"])
        index, path = entry["number"] - batch["first"], [bytes.fromhex(p) for p in entry["path"]]
        assert root_from_path(leaf, index, batch["size"], path) == bytes.fromhex(batch["root"])
    for entry in proof["bag_shuffles"]:
        batch = batches[("bags", entry["batch"])]
        digests = [
            bytes.fromhex(p["digest"])
            if "digest" in p
            else position_digest(bytes.fromhex(p["salt"]), i, p["colour"])
            for i, p in enumerate(entry["positions"])
        ]
        assert len(digests) == 20
        leaf = shuffle_leaf(bytes.fromhex(entry["salt"]), entry["number"], digests)
        index, path = entry["number"] - batch["first"], [bytes.fromhex(p) for p in entry["path"]]
        assert root_from_path(leaf, index, batch["size"], path) == bytes.fromhex(batch["root"])


def _check_outcomes(proof: dict[str, Any]) -> None:
    """Each chance event's outcome is what its sources say; hidden ones reveal nothing."""
    outcomes = _outcomes(proof["events"])
    assert [c["event"] for c in proof["chance"]] == sorted(outcomes)
    sets = {e["number"]: e for e in proof["dice_sets"]}
    shuffles = {e["number"]: e for e in proof["bag_shuffles"]}
    for chance in proof["chance"]:
        shown = outcomes[chance["event"]]
        assert "uncommitted" not in chance  # every game here was played after migration 0007
        if "dice_sets" in chance:
            used = [sets[n] for n in chance["dice_sets"]]
            if shown is None:
                assert all(s.get("hidden") is True and "faces" not in s for s in used)
                continue
            faces = "".join(s["faces"] for s in used)
            assert len(chance["dice_sets"]) == max(1, -(-len(shown) // 6))
            assert [int(f) for f in faces[: len(shown)]] == shown
        else:
            positions = shuffles[chance["bag_shuffle"]]["positions"]
            taken = positions[chance["offset"] : chance["offset"] + chance["count"]]
            if shown is None:
                assert all("digest" in p for p in taken)
                continue
            assert [p["colour"] for p in taken] == shown


def _check_draws_are_prefixes(proof: dict[str, Any], services: Services) -> None:
    """A Hold'em hand's draws, in order, are its committed shuffle's first colours."""
    outcomes = _outcomes(proof["events"])
    drawn: dict[int, list[str | None]] = {}
    for chance in proof["chance"]:
        if "bag_shuffle" in chance:
            shown = outcomes[chance["event"]]
            items = shown if shown is not None else [None] * chance["count"]
            ahead = drawn.setdefault(chance["bag_shuffle"], [])
            assert chance["offset"] == len(ahead)
            ahead.extend(items)
    assert drawn, "a Hold'em game draws from the bag"
    with services.sessions() as db:
        stored = {
            s.id: s.colours for s in db.scalars(select(BagShuffle).where(BagShuffle.id.in_(drawn)))
        }
    for number, colours in drawn.items():
        prefix = stored[number][: len(colours)]
        assert all(c is None or c == p for c, p in zip(colours, prefix, strict=True)), number


def _secrets_of(services: Services, game_id: int) -> tuple[set[str], set[str], set[int], set[int]]:
    """What no other game's proof may hold of game ``game_id``: salts, position salts and
    digests, dice with their salts (``forbidden``); its leaf hashes (allowed only as sibling
    hashes on a path); and the numbers of its sets and shuffles."""
    forbidden: set[str] = set()
    leaves: set[str] = set()
    with services.sessions() as db:
        sets = db.scalars(select(DiceSet).where(DiceSet.game_id == game_id)).all()
        shuffles = db.scalars(select(BagShuffle).where(BagShuffle.game_id == game_id)).all()
    for s in sets:
        assert s.salt is not None
        forbidden.add(s.salt)
        leaves.add(dice_leaf(bytes.fromhex(s.salt), s.id, s.faces).hex())
    for b in shuffles:
        secret = bytes.fromhex(b.secret)
        forbidden.update({b.salt, b.secret})
        forbidden.update(position_salt(secret, i).hex() for i in range(20))
        digests = shuffle_digests(secret, b.colours)
        forbidden.update(d.hex() for d in digests)
        leaves.add(shuffle_leaf(bytes.fromhex(b.salt), b.id, digests).hex())
    return forbidden, leaves, {s.id for s in sets}, {b.id for b in shuffles}


def _without_paths(proof: dict[str, Any]) -> str:
    """The proof's text with every audit path left out."""
    bare = json.loads(json.dumps(proof))
    for entry in bare["dice_sets"] + bare["bag_shuffles"]:
        entry.pop("path", None)
    return json.dumps(bare)


def _check_nothing_of(proof: dict[str, Any], services: Services, other: int) -> None:
    """Nothing of game ``other`` is in ``proof`` but its leaves as sibling hashes."""
    forbidden, leaves, set_ids, shuffle_ids = _secrets_of(services, other)
    assert set_ids or shuffle_ids, "the other game has drawn no dice yet"
    text = json.dumps(proof)
    assert not [value for value in forbidden if value in text]
    bare = _without_paths(proof)
    assert not [leaf for leaf in leaves if leaf in bare]
    assert not set_ids & {e["number"] for e in proof["dice_sets"]}
    assert not shuffle_ids & {e["number"] for e in proof["bag_shuffles"]}


def _no_secret_anywhere(proof: dict[str, Any], services: Services) -> None:
    """No shuffle's secret, nor the salt of a position the table never saw, is served."""
    text = json.dumps(proof)
    with services.sessions() as db:
        shuffles = db.scalars(select(BagShuffle)).all()
        hidden = {
            s.id: s for s in db.scalars(select(DiceSet).where(DiceSet.withheld.is_(True))).all()
        }
    assert not [s.secret for s in shuffles if s.secret in text]
    for entry in proof["bag_shuffles"]:
        stored = next(s for s in shuffles if s.id == entry["number"])
        for i, position in enumerate(entry["positions"]):
            if "digest" in position:
                assert position_salt(bytes.fromhex(stored.secret), i).hex() not in text
    for number, withheld in hidden.items():
        assert withheld.salt is None or withheld.salt not in text, number


def _shared_batch(services: Services, one: int, other: int) -> bool:
    """Whether games ``one`` and ``other`` drew from a common batch (dice or bags)."""
    with services.sessions() as db:
        dice = [
            set(db.scalars(select(DiceSet.batch_id).where(DiceSet.game_id == g)))
            for g in (one, other)
        ]
        bags = [
            set(db.scalars(select(BagShuffle.batch_id).where(BagShuffle.game_id == g)))
            for g in (one, other)
        ]
    return bool(dice[0] & dice[1] or bags[0] & bags[1])


@pytest.mark.both_databases
@pytest.mark.parametrize("kind", sorted(SHORT))
def test_a_finished_games_proof_reproduces_it_and_shows_nothing_of_a_game_in_play(
    kind: str, client: TestClient, make_user: MakeUser, services: Services
) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    rng = random.Random(kind)
    # Bob's game stays in play; Alice's, drawing from the same batches in between, ends.
    other = create(client, bob, kind, LONG[kind])
    game = create(client, alice, kind, SHORT[kind][0])
    early = client.get(f"{API}/games/{game['id']}/proof")
    assert early.status_code == 409 and early.json()["code"] == "not_finished", early.text
    for _ in range(4):
        other = step(client, bob, other, rng, careful=True)
        game = step(client, alice, game, rng)
    final = finish(client, alice, game, rng)
    other = client.get(f"{API}/games/{other['id']}", headers=bob).json()
    assert other["status"] == "active", "the game in play must not have ended"
    assert _shared_batch(services, final["id"], other["id"])

    proof = client.get(f"{API}/games/{final['id']}/proof").json()
    log = client.get(f"{API}/games/{final['id']}/log").json()
    for key in ("game", "id", "seats", "options", "events", "result"):
        assert proof[key] == log[key], key
    assert proof["format"] == "dicehall-proof/1" and proof["seating"] is None
    _check_paths(proof, _check_batches(proof, services))
    _check_outcomes(proof)
    if kind == "holdem":
        _check_draws_are_prefixes(proof, services)
    _check_nothing_of(proof, services, other["id"])
    _no_secret_anywhere(proof, services)
    playing = client.get(f"{API}/games/{other['id']}/proof")
    assert playing.status_code == 409 and playing.json()["code"] == "not_finished"


def test_unknown_and_private_games_are_404(
    client: TestClient, make_user: MakeUser, services: Services
) -> None:
    alice, carol = make_user("alice"), make_user("carol")
    assert client.get(f"{API}/games/999999/proof").status_code == 404
    game = create(client, alice, "bullseye", SHORT["bullseye"][0], private=True)
    final = finish(client, alice, game, random.Random(3))
    url = f"{API}/games/{final['id']}/proof"
    assert client.get(url, headers=alice).status_code == 200
    for outsider in (carol, {}):
        answer = client.get(url, headers=outsider)
        assert answer.status_code == 404 and answer.json()["code"] == "not_found", answer.text


def test_every_chance_event_names_its_source(
    client: TestClient, make_user: MakeUser, services: Services
) -> None:
    """The proof's chance list follows the stored sources exactly: a roll's first set, a
    draw's shuffle with offsets that add up within the hand."""
    alice = make_user("alice")
    final = finish(client, alice, create(client, alice, "holdem", {"stack": 20}), random.Random(1))
    proof = client.get(f"{API}/games/{final['id']}/proof").json()
    with services.sessions() as db:
        rows = db.scalars(
            select(EventRow).where(EventRow.game_id == final["id"]).order_by(EventRow.seq)
        ).all()
    chance = {c["event"]: c for c in proof["chance"]}
    for index, row in enumerate(rows):
        if index not in chance:
            assert row.dice_set is None and row.bag_shuffle is None
        elif row.dice_set is not None:
            assert chance[index]["dice_sets"][0] == row.dice_set
        else:
            assert chance[index]["bag_shuffle"] == row.bag_shuffle


def test_a_seat_order_the_site_drew_is_in_the_proof(
    client: TestClient, make_user: MakeUser, services: Services
) -> None:
    """A ladder challenge's seats are drawn with committed dice: the proof shows the sets,
    and they reorder the players exactly as they were seated."""
    alice, bob = make_user("alice"), make_user("bob")
    for headers in (alice, bob):
        assert client.post(f"{API}/ladders/boss/join", headers=headers).status_code == 200
    made = client.post(f"{API}/ladders/boss/challenges", json={"opponent": "bob"}, headers=alice)
    assert made.status_code == 201, made.text
    url = f"{API}/games/{made.json()['game_id']}"
    game = client.get(url, headers=alice).json()
    resigned = client.post(
        f"{url}/resign", json={"expected_version": game["version"]}, headers=alice
    )
    assert resigned.status_code == 200 and resigned.json()["status"] == "finished"
    proof = client.get(f"{url}/proof").json()
    draw = proof["seating"]
    assert draw is not None and sorted(draw["before"]) == ["alice", "bob"]
    sets = {e["number"]: e for e in proof["dice_sets"]}
    faces = [int(f) for n in draw["dice_sets"] for f in sets[n]["faces"]]
    assert shuffle_by_dice(draw["before"], faces) == draw["after"]
    assert draw["after"] == [s["user"] for s in game["seats"]]
    _check_paths(proof, _check_batches(proof, services))


def test_a_game_from_before_committed_bags_is_proved_the_old_way(
    client: TestClient, make_user: MakeUser, services: Services
) -> None:
    """Dice from a scheme-1 batch are listed with their faces (no path: the batch's reveal
    checks them), withheld ones by their place only; draws made before bags were committed
    say so; and no log record is needed."""
    alice = make_user("alice")
    final = finish(client, alice, create(client, alice, "holdem", {"stack": 20}), random.Random(5))
    with services.writers() as db, db.begin():
        # As migration 0007 left a game played before it: old batches, draws unsourced.
        db.execute(update(DiceBatch).values(scheme=1, revealed=False))
        db.execute(update(DiceSet).values(salt=None))
        db.execute(update(EventRow).values(bag_shuffle=None))
    proof = client.get(f"{API}/games/{final['id']}/proof").json()
    assert proof["log"] == [] and proof["bag_shuffles"] == []
    assert proof["batches"] and all(b["scheme"] == 1 for b in proof["batches"])
    assert all(e["scheme"] == 1 and "path" not in e for e in proof["dice_sets"])
    outcomes = _outcomes(proof["events"])
    sets = {e["number"]: e for e in proof["dice_sets"]}
    for chance in proof["chance"]:
        shown = outcomes[chance["event"]]
        if "uncommitted" in chance:
            assert shown is None or all(isinstance(c, str) for c in shown)
        elif shown is None:
            assert all(
                sets[n].get("hidden") and "faces" not in sets[n] for n in chance["dice_sets"]
            )
        else:
            faces = "".join(sets[n]["faces"] for n in chance["dice_sets"])
            assert [int(f) for f in faces[: len(shown)]] == shown
    assert any("uncommitted" in c for c in proof["chance"])


def test_served_proofs_verify_with_dicehall_verify_game(
    client: TestClient, make_user: MakeUser, cli: CliRunner, tmp_path: Path
) -> None:
    """A served proof of a finished game of each kind passes ``dicehall verify-game``, with
    the game's log and the public log beside it; one changed face fails it."""
    alice = make_user("alice")
    for kind in sorted(SHORT):
        final = finish(client, alice, create(client, alice, kind, SHORT[kind][0]), random.Random(9))
        proof_file, log_file = tmp_path / f"{kind}-proof.json", tmp_path / f"{kind}-log.json"
        proof = client.get(f"{API}/games/{final['id']}/proof").json()
        proof_file.write_text(json.dumps(proof))
        log_file.write_text(client.get(f"{API}/games/{final['id']}/log").text)
        checked = cli("verify-game", str(proof_file), "--game-log", str(log_file))
        assert checked.code == 0, (kind, checked.out, checked.err)
        chain = client.get(f"{API}/fairness/log")
        assert chain.status_code == 200, chain.text
        chain_file = tmp_path / f"{kind}-chain.json"
        chain_file.write_text(chain.text)
        checked = cli("verify-game", str(proof_file), "--chain", str(chain_file))
        assert checked.code == 0, (kind, checked.out, checked.err)
        assert checked.out.startswith("OK:"), checked.out
        shown = next(e for e in proof["dice_sets"] if "faces" in e and "path" in e)
        shown["faces"] = ("1" if shown["faces"][0] != "1" else "2") + shown["faces"][1:]
        proof_file.write_text(json.dumps(proof))
        broken = cli("verify-game", str(proof_file))
        assert broken.code == 1, (kind, broken.out, broken.err)
