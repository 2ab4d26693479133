"""Games that roll from their decks (scheme 3): the players' seeds enter every later die, the
proof shows each key and shuffle once and in order, and a site that steers a roll (another
key, a key twice, another game's key) or a proof that does fails ``verify-game``."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from dicehall.fairness import decks as scheme
from dicehall.fairness.verify import verify_proof
from dicehall.server.app import create_app
from dicehall.server.core.models import Deck
from dicehall.server.domain.dice import decks
from dicehall.server.domain.services import Services, build_services
from tests.conftest import CliRunner
from tests.live import add_user
from tests.server.conftest import MakeUser, site_settings
from tests.server.proof_games import API, LONG, SHORT, create, finish, settled, step

SEED = "5eed" * 16


def _seed(client: TestClient, headers: Any, game_id: int, seed: str = SEED) -> Any:
    return client.post(f"{API}/games/{game_id}/seed", json={"seed": seed}, headers=headers)


def _proof(client: TestClient, game_id: int) -> dict[str, Any]:
    answer = client.get(f"{API}/games/{game_id}/proof")
    assert answer.status_code == 200, answer.text
    proof: dict[str, Any] = answer.json()
    return proof


@pytest.mark.both_databases
@pytest.mark.parametrize("kind", sorted(SHORT))
def test_a_seeded_game_verifies_and_its_seed_changed_every_later_roll(
    kind: str, client: TestClient, make_user: MakeUser
) -> None:
    alice = make_user("alice")
    # The seed follows the creation: the game's deck was bound (and logged) first. It counts
    # from the game's next roll (rolls from key 1: key 0 is the seat key).
    game = create(client, alice, kind, SHORT[kind][0])
    answer = _seed(client, alice, game["id"])
    assert answer.status_code == 200, answer.text
    seeded = answer.json()
    assert (seeded["seat"], seeded["seed"]) == (0, SEED) and seeded["from_key"] >= 1
    again = _seed(client, alice, game["id"])
    assert again.status_code == 409 and again.json()["code"] == "seed_set"
    final = finish(client, alice, game, random.Random(kind))
    proof = _proof(client, final["id"])
    assert proof["format"] == "dicehall-proof/2"
    assert proof["seeds"] == [
        {"seat": 0, "seed": SEED, "from_key": seeded["from_key"],
         "from_shuffle": seeded["from_shuffle"]}
    ]  # fmt: skip
    report = verify_proof(proof)
    assert report.ok, report.failure
    assert report.checked["keys"] == len(proof["keys"]) > 0
    # Without the seed, the same keys give other dice: the seed entered every later roll.
    rolled_after = [c for c in proof["chance"] if c.get("key", -1) >= seeded["from_key"]]
    if rolled_after:
        unseeded = copy.deepcopy(proof)
        unseeded["seeds"] = []
        assert not verify_proof(unseeded).ok
    # Keys 1, 2, 3, ... in order, each once: the i-th roll used key i.
    assert [c["key"] for c in proof["chance"] if "key" in c] == list(
        range(1, len(proof["keys"]) + 1)
    )


def test_seed_refusals_change_nothing(
    client: TestClient, make_user: MakeUser, request: pytest.FixtureRequest
) -> None:
    alice, carol = make_user("alice"), make_user("carol")
    game = create(client, alice, "boatzee", SHORT["boatzee"][0])
    for bad in ("", "abc", "xyz0", "0" * 130, 12):
        answer = client.post(f"{API}/games/{game['id']}/seed", json={"seed": bad}, headers=alice)
        assert answer.status_code == 422, (bad, answer.text)
    assert _seed(client, carol, game["id"]).json()["code"] == "not_your_game"
    assert _seed(client, alice, 999999).status_code == 404
    assert _seed(client, alice, game["id"], "ab").status_code == 200
    again = _seed(client, alice, game["id"])
    assert again.status_code == 409 and again.json()["code"] == "seed_set"
    final = finish(client, alice, game, random.Random(1))
    assert _proof(client, final["id"])["seeds"][0]["seed"] == "ab"
    late = _seed(client, carol, final["id"])
    assert late.status_code in (403, 409)
    request.getfixturevalue("old_scheme")
    old = create(client, alice, "boatzee", SHORT["boatzee"][0])
    refused = _seed(client, alice, old["id"])
    assert refused.status_code == 409 and refused.json()["code"] == "no_deck"


def test_a_seed_counts_from_the_next_roll_on(client: TestClient, make_user: MakeUser) -> None:
    alice = make_user("alice")
    rng = random.Random(7)
    game = create(client, alice, "tenthousand", LONG["tenthousand"])
    for _ in range(3):
        game = step(client, alice, game, rng)
    seeded = _seed(client, alice, game["id"]).json()
    assert seeded["from_key"] > 0
    for _ in range(3):
        game = step(client, alice, game, rng)
    game = settled(client, alice, game)
    # Resign to end it: the proof of a forfeited game checks the dice up to the standing.
    body = {"expected_version": game["version"]}
    ended = client.post(f"{API}/games/{game['id']}/resign", json=body, headers=alice)
    assert ended.status_code == 200, ended.text
    proof = _proof(client, game["id"])
    assert verify_proof(proof).ok, verify_proof(proof).failure
    # Moving the seed's start to the first roll changes rolls the deck alone had fixed (the
    # first of six dice: the same faces again would be a 1 in 46,656 chance).
    earlier = copy.deepcopy(proof)
    earlier["seeds"][0]["from_key"] = 0
    assert not verify_proof(earlier).ok


def _serve_with(monkeypatch: pytest.MonkeyPatch, shift: int) -> None:
    """Make the site's own code take, for its next roll, the key ``shift`` away from the
    one due (an unrevealed key it liked better, or one it used already)."""
    real = decks.next_key
    steering = [True]

    def steered(conn: Any, game_id: int) -> tuple[int, int, int] | None:
        taken = real(conn, game_id)
        if taken is None or not steering[0] or taken[0] + shift < 0:
            return taken
        steering[0] = False
        return taken[0] + shift, taken[1], taken[2]

    monkeypatch.setattr(decks, "next_key", steered)


@pytest.mark.parametrize("how", ["a later key", "a key twice"], ids=["skips", "twice"])
def test_a_site_that_picks_its_keys_fails_verification(
    how: str, client: TestClient, make_user: MakeUser, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice = make_user("alice")
    game = create(client, alice, "boss", SHORT["boss"][0])
    _seed(client, alice, game["id"])
    _serve_with(monkeypatch, 1 if how == "a later key" else -1)
    final = finish(client, alice, game, random.Random(2))
    report = verify_proof(_proof(client, final["id"]))
    assert not report.ok
    assert "key" in (report.failure or ""), report.failure


def test_a_site_that_rolls_with_another_games_deck_fails_verification(
    client: TestClient, make_user: MakeUser, services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    other = create(client, bob, "boss", LONG["boss"])
    game = create(client, alice, "boss", SHORT["boss"][0])
    real = decks.DeckPool.part_for

    def borrowed(self: decks.DeckPool, conn: Any, game_id: int, bags: bool, **kw: Any) -> Any:
        return real(self, conn, other["id"] if game_id == game["id"] else game_id, bags, **kw)

    monkeypatch.setattr(decks.DeckPool, "part_for", borrowed)
    final = finish(client, alice, game, random.Random(4))
    report = verify_proof(_proof(client, final["id"]))
    # The proof can only show the game's own keys, whose dice are not the ones rolled.
    assert not report.ok and "committed source" in (report.failure or ""), report.failure


def test_a_proof_with_a_key_moved_dropped_or_added_fails(
    client: TestClient, make_user: MakeUser
) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    one = finish(client, alice, create(client, alice, "boss", SHORT["boss"][0]), random.Random(5))
    two = finish(client, bob, create(client, bob, "boss", SHORT["boss"][0]), random.Random(6))
    proof, stranger = _proof(client, one["id"]), _proof(client, two["id"])
    assert verify_proof(proof).ok
    cases: dict[str, dict[str, Any]] = {}
    taken = copy.deepcopy(proof)  # a key of another game, with its own path
    taken["keys"][0] = copy.deepcopy(stranger["keys"][0])
    cases["another game's key"] = taken
    dropped = copy.deepcopy(proof)
    dropped["keys"].pop()
    cases["a key left out"] = dropped
    unused = copy.deepcopy(proof)
    extra = copy.deepcopy(unused["keys"][-1])
    extra["index"] += 1
    unused["keys"].append(extra)
    cases["an unused key"] = unused
    twice = copy.deepcopy(proof)
    rolls = [c for c in twice["chance"] if "key" in c]
    rolls[1]["key"] = rolls[0]["key"]
    cases["a key used twice"] = twice
    for what, changed in cases.items():
        report = verify_proof(changed)
        assert not report.ok, f"{what} went unnoticed"


def test_a_proof_shows_nothing_of_a_game_in_play(
    client: TestClient, make_user: MakeUser, services: Services
) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    rng = random.Random(8)
    other = create(client, bob, "holdem", LONG["holdem"])
    for _ in range(3):
        other = step(client, bob, other, rng, careful=True)
    final = finish(client, alice, create(client, alice, "holdem", SHORT["holdem"][0]), rng)
    text = json.dumps(_proof(client, final["id"]))
    with services.sessions() as db:
        secret = db.scalar(select(Deck.secret).where(Deck.game_id == other["id"]))
    assert secret is not None and secret not in text
    for index in range(8):
        key = scheme.dice_key(bytes.fromhex(secret), index).hex()
        assert key not in text


@pytest.fixture
def tiny_decks(db_url: str) -> Iterator[tuple[TestClient, Services]]:
    """A site whose decks hold 3 keys and 2 shuffles, so that games run through several."""
    built = build_services(site_settings(db_url, deck_keys=3, deck_shuffles=2))
    try:
        with TestClient(create_app(services=built)) as client:
            yield client, built
    finally:
        built.engine.dispose()


@pytest.mark.parametrize("kind", ["holdem", "tenthousand"])
def test_a_game_that_uses_up_its_deck_goes_on_with_the_next_and_verifies(
    kind: str, tiny_decks: tuple[TestClient, Services]
) -> None:
    client, services = tiny_decks
    alice = add_user(services, "alice", services.hasher.hash("correct horse battery"))
    # A deck bound during play appends to the log: under the pool's cursor, as every append.
    held: list[int] = []
    hold = services.pool.decks.hold_cursor

    def counted(conn: Any) -> None:
        held.append(1)
        hold(conn)

    services.pool.decks.hold_cursor = counted
    game = create(client, alice, kind, SHORT[kind][0])
    _seed(client, alice, game["id"])
    final = finish(client, alice, game, random.Random(kind))
    proof = _proof(client, final["id"])
    # (A move whose transaction is retried takes it again.)
    assert len(proof["decks"]) >= 2 and len(held) >= len(proof["decks"]) - 1
    report = verify_proof(proof)
    assert report.ok, report.failure


def test_a_drawn_seat_order_starts_from_the_sorted_labels_and_verifies(
    client: TestClient, make_user: MakeUser
) -> None:
    """A ladder challenge made by bob against alice: the draw starts from ["alice", "bob"]
    whoever challenged (the challenger's order would let the site arrange the start)."""
    alice, bob = make_user("alice"), make_user("bob")
    for headers in (alice, bob):
        assert client.post(f"{API}/ladders/boss/join", headers=headers).status_code == 200
    made = client.post(f"{API}/ladders/boss/challenges", json={"opponent": "alice"}, headers=bob)
    assert made.status_code == 201, made.text
    url = f"{API}/games/{made.json()['game_id']}"
    game = client.get(url, headers=alice).json()
    body = {"expected_version": game["version"]}
    assert client.post(f"{url}/resign", json=body, headers=alice).status_code == 200
    proof = client.get(f"{url}/proof").json()
    assert proof["format"] == "dicehall-proof/2"
    assert proof["seating"]["before"] == ["alice", "bob"]
    report = verify_proof(proof)
    assert report.ok and report.checked["seat draws"] == 1, report.failure
    arranged = copy.deepcopy(proof)
    arranged["seating"]["before"] = ["bob", "alice"]
    failed = verify_proof(arranged)
    assert not failed.ok and "sorted" in (failed.failure or ""), failed.failure


def test_a_proof_whose_replay_stops_is_a_failure_that_says_what_was_not_checked(
    client: TestClient,
    make_user: MakeUser,
    monkeypatch: pytest.MonkeyPatch,
    cli: CliRunner,
    tmp_path: Path,
) -> None:
    """Everything else holds, but the replay could not go on (an old game's hidden roll with
    no committed source): the report says "not replayed" and the command exits 1, never
    "the replay reaches the recorded result"."""
    from dicehall.fairness import verify

    alice = make_user("alice")
    final = finish(client, alice, create(client, alice, "boss", SHORT["boss"][0]), random.Random(9))
    file = tmp_path / "proof.json"
    file.write_text(json.dumps(_proof(client, final["id"])))
    assert cli("verify-game", str(file)).code == 0
    stopped = ["stopped at event 0: a hidden roll from before committed bags"]
    monkeypatch.setattr(verify, "replay", lambda *_args: list(stopped))
    answer = cli("verify-game", str(file))
    assert answer.code == 1
    assert answer.out.startswith("FAILED: not replayed: stopped at event 0"), answer.out
    assert "reaches the recorded result" not in answer.out


def test_the_log_binds_decks_in_the_order_they_were_committed(
    client: TestClient, make_user: MakeUser
) -> None:
    from dicehall.fairness.deck_order import check_bindings

    alice = make_user("alice")
    for kind in ("boss", "holdem", "boss", "bullseye"):
        create(client, alice, kind, LONG[kind])
    records = client.get(f"{API}/fairness/log").json()["records"]
    bindings = [r for r in records if r["kind"] == "game"]
    assert len(bindings) == 4 and check_bindings(records) is None
    # A site that skipped a deck: bind the second of a kind while the first waits.
    plain = [r["deck"] for r in records if r["kind"] == "deck" and not r["shuffles"]]
    first = next(r for r in bindings if r["deck"] == plain[0])
    skipped = [dict(r, deck=plain[-1]) if r is first else r for r in records]
    broken = check_bindings(skipped)
    assert broken is not None and broken.seq == first["seq"], broken
    twice = [*records, dict(first, seq=records[-1]["seq"] + 1)]
    again = check_bindings(twice)
    assert again is not None and "again" in again.reason


def test_a_proof_and_the_sites_key_are_all_verify_game_needs(
    client: TestClient, make_user: MakeUser, cli: CliRunner, tmp_path: Path
) -> None:
    """The proof carries a signed checkpoint and each of its log records' audit paths: with
    the log's verifier key it checks against the tree; a record changed there does not."""
    alice = make_user("alice")
    final = finish(client, alice, create(client, alice, "boss", SHORT["boss"][0]), random.Random(3))
    proof = _proof(client, final["id"])
    assert set(proof["tree"]["inclusion"]) == {str(r["seq"]) for r in proof["log"]}
    key = tmp_path / "log.vkey"
    key.write_text(client.get(f"{API}/fairness/key").text)
    file = tmp_path / "proof.json"
    file.write_text(json.dumps(proof))
    answer = cli("verify-game", str(file), "--key", str(key))
    assert answer.code == 0 and "are in the tree" in answer.out, answer.out
    moved = copy.deepcopy(proof)
    first = next(iter(moved["tree"]["inclusion"]))
    moved["tree"]["inclusion"][first][0] = "00" * 32
    file.write_text(json.dumps(moved))
    refused = cli("verify-game", str(file), "--key", str(key))
    assert refused.code == 1 and refused.out.startswith("FAILED: checkpoint:"), refused.out


def test_verify_log_refuses_a_log_that_binds_a_deck_out_of_turn(
    client: TestClient, make_user: MakeUser, cli: CliRunner, tmp_path: Path
) -> None:
    alice = make_user("alice")
    create(client, alice, "boss", LONG["boss"])
    create(client, alice, "boss", LONG["boss"])
    records = client.get(f"{API}/fairness/log").json()["records"]
    file = tmp_path / "log.json"
    file.write_text(json.dumps(records))
    assert cli("verify-log", str(file)).code == 0
    # Swap which deck the two games got, and re-chain the log so that only the order is off.
    from dicehall.fairness.chain import GENESIS, record_hash

    bound = [r for r in records if r["kind"] == "game"]
    bound[0]["deck"], bound[1]["deck"] = bound[1]["deck"], bound[0]["deck"]
    prev = GENESIS
    for record in records:
        record["prev"] = prev
        record["hash"] = prev = record_hash(record)
    file.write_text(json.dumps(records))
    answer = cli("verify-log", str(file))
    assert answer.code == 1 and "binds deck" in answer.out, answer.out


def test_a_proof_with_a_shuffle_no_hand_drew_from_fails(
    client: TestClient, make_user: MakeUser, services: Services
) -> None:
    """A shuffle of the game's deck, honest and on its tree, that no hand used: the proof
    must show exactly the shuffles its hands drew from."""
    from types import SimpleNamespace

    from dicehall.server.domain.dice.deck_proofs import _shuffle

    alice = make_user("alice")
    for attempt in range(5):  # a game that left its last deck a shuffle to spare
        game = create(client, alice, "holdem", SHORT["holdem"][0])
        proof = _proof(client, finish(client, alice, game, random.Random(attempt))["id"])
        part = proof["decks"][-1]
        unused = len(proof["shuffles"])
        if unused < part["first_shuffle"] + part["shuffles"]:
            break
    else:
        raise AssertionError("every game used its last deck's shuffles up")
    with services.sessions() as db:
        secret = db.scalar(select(Deck.secret).where(Deck.id == part["deck"]))
    assert secret is not None
    span = SimpleNamespace(first_shuffle=part["first_shuffle"], shuffles=part["shuffles"])
    extra = copy.deepcopy(proof)
    extra["shuffles"].append(_shuffle(bytes.fromhex(secret), span, unused, set(range(20))))
    refused = verify_proof(extra)
    assert not refused.ok and "no hand drew" in (refused.failure or ""), refused.failure
