"""The public log as a Merkle tree on the site: checkpoints signed with the site's key, proofs
that fit the records served, migration 0015 filling the tree of an existing log, witnesses
that cosign an honest site (twice, the log grown in between) and refuse a forked or
truncated one, and ``dicehall verify-log`` against the site's checkpoints."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from alembic.config import Config
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, delete, insert, select, update

from dicehall.fairness.chain import GENESIS, canonical, record_hash
from dicehall.fairness.checkpoint import Checkpoint, cosigners, open_checkpoint
from dicehall.fairness.note import COSIGNATURE_V1, Signer, VerifierKey, cosign
from dicehall.fairness.tlog import MemoryTree, record_leaf, verify_consistency, verify_inclusion
from dicehall.fairness.witness import WitnessError, witness_once
from dicehall.server.core.clock import now
from dicehall.server.core.db import migrate
from dicehall.server.domain.dice import fairlog, logtree
from dicehall.server.domain.services import Services
from tests.conftest import CliRunner

API = "/api/v1/fairness"
T0 = 1_780_000_000


class ClientSite:
    """The witness's view of a site, through the test client."""

    def __init__(self, client: TestClient) -> None:
        self.client = client

    def get(self, path: str, params: dict[str, int] | None = None) -> str:
        answer = self.client.get(path, params=params)
        if answer.status_code != 200:
            raise WitnessError(f"GET {path}: {answer.status_code}")
        return answer.text

    def post(self, path: str, body: dict[str, Any]) -> tuple[int, str]:
        answer = self.client.post(path, json=body)
        return answer.status_code, answer.text


def _grow(services: Services, count: int) -> None:
    """Log ``count`` more batch records (as a top-up would)."""
    with services.write_conn() as conn:
        services.pool.hold_cursor(conn)  # appends run under the cursor, as top-ups' do
        for _ in range(count):
            batch = 1000 + fairlog.length(conn)
            fairlog.append(conn, "dice", batch, 40 * batch, 40, f"{batch:064x}")


def _records(client: TestClient) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    start: int | None = 1
    while start is not None:
        page = client.get(f"{API}/log", params={"from": start}).json()
        found += page["records"]
        start = page["next"]
    return found


def _key(client: TestClient) -> VerifierKey:
    return VerifierKey.parse(client.get(f"{API}/key").text)


@pytest.mark.both_databases
def test_checkpoints_and_proofs_fit_the_records_served(
    client: TestClient, services: Services
) -> None:
    _grow(services, 9)
    key = _key(client)
    answer = client.get(f"{API}/checkpoint")
    assert answer.headers["content-type"].startswith("text/plain")
    checkpoint = open_checkpoint(answer.text, key)
    # The site may log more (a top-up) meanwhile: the checkpoint is of a prefix.
    records = _records(client)
    n = checkpoint.size
    assert n >= 9
    tree = MemoryTree.of_records(records[:n])
    assert checkpoint.root == tree.root()
    assert checkpoint.origin == key.name == "127.0.0.1:8000/dicehall-log"
    for m in (1, 2, 3, n - 1, n):
        got = client.get(f"{API}/consistency", params={"from": m, "to": n}).json()
        hashes = [bytes.fromhex(h) for h in got["hashes"]]
        assert got["from"] == m and hashes == tree.consistency(m, n)
        assert verify_consistency(m, n, tree.root(m), tree.root(n), hashes)
    for seq in (1, n // 2, n):
        got = client.get(f"{API}/inclusion", params={"seq": seq, "size": n}).json()
        assert got["leaf"] == record_leaf(records[seq - 1]).hex()
        path = [bytes.fromhex(h) for h in got["hashes"]]
        assert verify_inclusion(record_leaf(records[seq - 1]), seq - 1, n, path, tree.root())
    far = client.get(f"{API}/consistency", params={"from": 1, "to": 2**31 - 1})
    assert (far.status_code, far.json()["code"]) == (404, "no_such_tree")
    assert client.get(f"{API}/consistency", params={"from": 3, "to": 2}).status_code == 422
    assert client.get(f"{API}/inclusion", params={"seq": n + 1, "size": n}).status_code == 404
    assert client.get(f"{API}/inclusion", params={"seq": 1, "size": 2**31 - 1}).status_code == 404


def test_migration_0015_builds_the_tree_of_an_existing_log(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'old.sqlite3'}"
    engine = create_engine(url)
    config = Config()
    config.set_main_option(
        "script_location", str(resources.files("dicehall.server.core").joinpath("migrations"))
    )
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        command.upgrade(config, "0014")
    made: list[dict[str, Any]] = []
    prev = GENESIS
    with engine.begin() as conn:
        for seq in range(1, 12):
            record = {"seq": seq, "kind": "dice", "batch": seq, "first": 40 * seq - 39,
                      "size": 40, "root": f"{seq:064x}", "prev": prev,
                      "created_at": now().isoformat()}  # fmt: skip
            prev = record_hash(record)
            conn.execute(
                insert(fairlog.LOG).values(seq=seq, kind="dice", batch_id=seq,
                                           body=canonical(record).decode(), hash=prev)
            )  # fmt: skip
            made.append(record)
    migrate(engine)
    tree = MemoryTree.of_records(made)
    with engine.begin() as conn:
        assert logtree.tree_size(conn) == 11
        for size in range(1, 12):
            assert logtree.root(conn, size) == tree.root(size)
        # And the next record goes on from there.
        fairlog.append(conn, "dice", 12, 441, 40, "ab" * 32)
        tree.append(record_leaf(fairlog.records(conn, 12)[0]))
        assert logtree.root(conn, 12) == tree.root(12)
        assert logtree.consistency(conn, 5, 12) == tree.consistency(5, 12)
    engine.dispose()


def _witness() -> Signer:
    return Signer("witness.test/w1", COSIGNATURE_V1, bytes([0x77]) * 32)


@pytest.mark.both_databases
def test_a_witness_cosigns_an_honest_site_twice_and_the_site_serves_it(
    client: TestClient, services: Services, tmp_path: Path
) -> None:
    _grow(services, 3)
    site, state, me = ClientSite(client), tmp_path / "w", _witness()
    first = witness_once(site, state, me, T0, post=True)
    assert (first.status, first.posted) == ("first", "kept"), first
    _grow(services, 5)
    second = witness_once(site, state, me, T0 + 60, post=True)
    assert (second.status, second.old_size, second.posted) == ("grew", first.size, "kept")
    assert second.size >= first.size + 5
    served = client.get(f"{API}/checkpoint", params={"cosigned": "true"}).text
    assert open_checkpoint(served, _key(client)).size == second.size
    assert cosigners(served, [me.verifier]) == {me.verifier.text(): T0 + 60}
    kept = Checkpoint.parse((state / "checkpoint").read_text().split("\n\n")[0] + "\n")
    assert kept.size == second.size  # the state holds the latest
    _grow(services, 1)
    # A plain checkpoint moved on; the cosigned one stays at what the witness saw.
    plain = open_checkpoint(client.get(f"{API}/checkpoint").text, _key(client))
    assert plain.size >= second.size + 1
    assert (
        open_checkpoint(
            client.get(f"{API}/checkpoint", params={"cosigned": 1}).text, _key(client)
        ).size
        == second.size
    )


def test_the_site_refuses_cosignatures_that_do_not_check(
    client: TestClient, services: Services
) -> None:
    _grow(services, 2)
    me = _witness()
    note = client.get(f"{API}/checkpoint").text
    text = note.split("\n\n")[0] + "\n"
    line = cosign(text, me, T0)
    good = {"note": note + line.text(), "witness_key": me.verifier.text()}

    def post(body: dict[str, str]) -> tuple[int, str]:
        answer = client.post(f"{API}/cosignatures", json=body)
        return answer.status_code, answer.json().get("code", "")

    bad_signature = good | {"note": note + cosign(text, me, T0 + 1).text().replace("A", "B", 1)}
    assert post(bad_signature) == (422, "invalid_cosignature")
    other = Signer("witness.test/w2", COSIGNATURE_V1, bytes([0x78]) * 32)
    assert post(good | {"witness_key": other.verifier.text()}) == (422, "invalid_cosignature")
    forged = Checkpoint.parse(text)
    fake = Checkpoint(forged.origin, forged.size, bytes(32))
    fake_note = fake.sign(Signer(forged.origin, 1, bytes([0x01]) * 32))
    body = {
        "note": fake_note + cosign(fake.text(), me, T0).text(),
        "witness_key": me.verifier.text(),
    }
    assert post(body) == (422, "invalid_cosignature")
    future = {"note": note + cosign(text, me, 2**40).text(), "witness_key": me.verifier.text()}
    assert post(future) == (422, "invalid_cosignature")
    assert post(good) == (200, "")
    assert client.post(f"{API}/cosignatures", json={"note": 5}).status_code == 422


def _rebuild_tree(services: Services) -> None:
    with services.write_conn() as conn:
        services.pool.hold_cursor(conn)
        conn.execute(delete(logtree.TREE))
        logtree.catch_up(conn)


def _rewrite(services: Services, seq: int) -> None:
    """The site rewrites record ``seq`` and re-chains every record after it (a fork)."""
    with services.write_conn() as conn:
        services.pool.hold_cursor(conn)
        rows = conn.execute(select(fairlog.LOG).order_by(fairlog.LOG.c.seq)).all()
        prev = GENESIS
        for row in rows:
            record = json.loads(row.body)
            if row.seq == seq:
                record["root"] = "66" * 32
            if row.seq >= seq:
                record["prev"] = prev
                conn.execute(
                    update(fairlog.LOG)
                    .where(fairlog.LOG.c.seq == row.seq)
                    .values(body=canonical(record).decode(), hash=record_hash(record))
                )
            prev = record_hash(record)
        conn.execute(delete(logtree.TREE))
        logtree.catch_up(conn)


@pytest.mark.parametrize("attack", ["fork", "fork-and-grow", "truncate"])
def test_a_witness_refuses_a_forked_or_truncated_log_and_keeps_evidence(
    client: TestClient, services: Services, tmp_path: Path, attack: str
) -> None:
    _grow(services, 6)
    site, state, me = ClientSite(client), tmp_path / "w", _witness()
    assert witness_once(site, state, me, T0).ok
    kept = (state / "checkpoint").read_text()
    if attack.startswith("fork"):
        _rewrite(services, 2)
        if attack == "fork-and-grow":
            _grow(services, 3)
    else:
        with services.write_conn() as conn:
            services.pool.hold_cursor(conn)
            conn.execute(delete(fairlog.LOG).where(fairlog.LOG.c.seq > 4))
        _rebuild_tree(services)
    outcome = witness_once(site, state, me, T0 + 60)
    assert outcome.status == "refused", outcome
    assert ("shrank" if attack == "truncate" else "fork") in outcome.message
    assert (state / "checkpoint").read_text() == kept
    assert outcome.evidence is not None
    evidence = Path(outcome.evidence)
    assert (evidence / "old.checkpoint").read_text() == kept
    assert open_checkpoint((evidence / "new.checkpoint").read_text(), _key(client))
    if attack == "fork-and-grow":
        assert json.loads((evidence / "proof.json").read_text())["hashes"]


def test_the_witness_command_cosigns_then_refuses_a_fork(
    client: TestClient, services: Services, tmp_path: Path, cli: CliRunner,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    from dicehall.cli.commands import witness

    monkeypatch.setattr(witness, "open_site", lambda url: ClientSite(client))
    _grow(services, 3)
    state = str(tmp_path / "w")
    args = ("witness", "--site", "http://127.0.0.1:8000", "--state", state, "--once")
    done = cli(*args, "--json", "--post")
    assert done.code == 0, done
    said = json.loads(done.out)
    assert (said["status"], said["posted"]) == ("first", "kept")
    assert VerifierKey.parse(said["witness_key"]).kind == COSIGNATURE_V1
    assert (tmp_path / "w" / "witness.key").read_text().startswith("PRIVATE+KEY+")
    again = cli(*args)
    assert again.code == 0 and again.out.startswith("OK: cosigned 127.0.0.1:8000/dicehall-log")
    _rewrite(services, 1)
    refused = cli(*args)
    assert refused.code == 1 and refused.out.startswith("REFUSED: two different roots")
    assert cli("witness", "--site", "ftp://x", "--state", state, "--once").code == 2


def test_verify_log_with_a_checkpoint_an_older_copy_and_from_a_later_record(
    client: TestClient, services: Services, tmp_path: Path, cli: CliRunner
) -> None:
    _grow(services, 5)
    records = _records(client)
    n = len(records)
    (tmp_path / "key").write_text(client.get(f"{API}/key").text)
    (tmp_path / "cp").write_text(client.get(f"{API}/checkpoint").text)
    (tmp_path / "log.json").write_text(json.dumps({"records": records}))
    (tmp_path / "old.json").write_text(json.dumps(records[:4]))
    key, cp, log = str(tmp_path / "key"), str(tmp_path / "cp"), str(tmp_path / "log.json")
    ok = cli("verify-log", log, "--checkpoint", cp, "--key", key, "--extends",
             str(tmp_path / "old.json"))  # fmt: skip
    assert ok.code == 0, ok
    assert f"OK: the first {n} records have the checkpoint's root" in ok.out
    # Truncated: the copy ends before the checkpoint's size.
    (tmp_path / "short.json").write_text(json.dumps(records[:-1]))
    short = cli("verify-log", str(tmp_path / "short.json"), "--checkpoint", cp, "--key", key)
    assert short.code == 1 and "truncated" in short.out
    assert cli("verify-log", str(tmp_path / "short.json"), "--extends", log).code == 1
    # From record 2 on: refused alone, checked with a checkpoint and the frontier.
    (tmp_path / "late.json").write_text(json.dumps(records[1:]))
    late = cli("verify-log", str(tmp_path / "late.json"), "--json")
    assert late.code == 1 and "not at the first (genesis)" in json.loads(late.out)["failure"]
    frontier = client.get(f"{API}/inclusion", params={"seq": 2, "size": 2}).json()
    (tmp_path / "frontier.json").write_text(json.dumps(frontier))
    checked = cli("verify-log", str(tmp_path / "late.json"), "--checkpoint", cp, "--key", key,
                  "--frontier", str(tmp_path / "frontier.json"), "--json")  # fmt: skip
    assert checked.code == 0, checked
    assert json.loads(checked.out)["checkpoint"] == {"origin": "127.0.0.1:8000/dicehall-log",
                                                     "size": n, "ok": True}  # fmt: skip
    # A tampered signature, and another key.
    (tmp_path / "bad").write_text((tmp_path / "cp").read_text().replace(f"\n{n}\n", "\n1\n"))
    bad = cli("verify-log", log, "--checkpoint", str(tmp_path / "bad"), "--key", key)
    assert bad.code == 1 and "does not verify" in bad.out
    assert cli("verify-log", log, "--checkpoint", cp).code == 2  # no key
    # A forked copy (record 2 rewritten, all re-chained) fails against the checkpoint.
    _rewrite(services, 2)
    (tmp_path / "forked.json").write_text(json.dumps(_records(client)))
    forked = cli("verify-log", str(tmp_path / "forked.json"), "--checkpoint", cp, "--key", key)
    assert forked.code == 1 and "fork" in forked.out
    old = cli("verify-log", str(tmp_path / "forked.json"), "--extends", log)
    assert old.code == 1 and "record 2 differs" in old.out


def test_verify_game_checks_a_proofs_records_against_a_witnessed_checkpoint(
    client: TestClient, services: Services, tmp_path: Path, cli: CliRunner,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    from dicehall.fairness import verify
    from dicehall.server.domain.dice import checkpoints

    # The dice side of the proof is the lead's; here only its log records matter.
    monkeypatch.setattr(verify, "verify_proof", lambda *a, **k: verify.ProofReport(True, None))
    _grow(services, 4)
    signer = checkpoints.log_signer(services)
    with services.write_conn() as conn:
        tree = checkpoints.proof_tree(conn, signer, [2, 3])
    logged = _records(client)[1:3]
    proof: dict[str, Any] = {"log": logged, "tree": tree}
    (tmp_path / "proof.json").write_text(json.dumps(proof))
    (tmp_path / "key").write_text(client.get(f"{API}/key").text)
    args = ("verify-game", str(tmp_path / "proof.json"), "--key", str(tmp_path / "key"))
    ok = cli(*args)
    assert ok.code == 0 and "its log records are in the tree" in ok.out, ok
    _grow(services, 3)
    (tmp_path / "cp").write_text(client.get(f"{API}/checkpoint").text)
    later = open_checkpoint((tmp_path / "cp").read_text(), _key(client))
    alone = cli(*args, "--checkpoint", str(tmp_path / "cp"))
    assert alone.code == 1 and "consistency proof is needed" in alone.out
    size = open_checkpoint(tree["checkpoint"], _key(client)).size
    got = client.get(f"{API}/consistency", params={"from": size, "to": later.size})
    (tmp_path / "c.json").write_text(got.text)
    both = cli(
        *args, "--checkpoint", str(tmp_path / "cp"), "--consistency", str(tmp_path / "c.json")
    )
    assert both.code == 0, both
    logged[0]["size"] = 41  # a record the tree never held
    (tmp_path / "proof.json").write_text(json.dumps(proof))
    changed = cli(*args)
    assert changed.code == 1 and "is not in the tree" in changed.out


def test_verify_log_takes_a_checkpoint_only_with_the_witnesses_cosignatures_asked_for(
    client: TestClient, services: Services, tmp_path: Path, cli: CliRunner
) -> None:
    """``--witness KEY`` makes a checkpoint count only if that witness cosigned it: a
    checkpoint the site alone signed, or with a spoiled cosignature, is refused."""
    _grow(services, 3)
    me = _witness()
    assert witness_once(ClientSite(client), tmp_path / "w", me, T0, post=True).ok
    served = client.get(f"{API}/checkpoint", params={"cosigned": "true"}).text
    size = open_checkpoint(served, _key(client)).size
    records = client.get(f"{API}/log").json()["records"][:size]
    log, key, wkey = tmp_path / "log.json", tmp_path / "site.vkey", tmp_path / "w.vkey"
    log.write_text(json.dumps(records))
    key.write_text(_key(client).text())
    wkey.write_text(me.verifier.text())
    checkpoint = tmp_path / "cp.note"

    def check(note: str) -> Any:
        checkpoint.write_text(note)
        args = ("--checkpoint", str(checkpoint), "--key", str(key), "--witness", str(wkey))
        return cli("verify-log", str(log), *args)

    assert check(served).code == 0
    alone = served.split("\n\n")[0] + "\n\n" + served.split("\n\n")[1].split("\n")[0] + "\n"
    refused = check(alone)
    assert refused.code == 1 and "no cosignature by the witness" in refused.out, refused.out
    lines = served.rstrip("\n").split("\n")
    spoiled = (
        "\n".join(
            [*lines[:-1], lines[-1][:-6] + ("AAAAAA" if lines[-1][-6:] != "AAAAAA" else "BBBBBB")]
        )
        + "\n"
    )
    assert check(spoiled).code == 1
    lone = cli("verify-log", str(log), "--witness", str(wkey))
    assert lone.code == 2 and "--checkpoint" in lone.err + lone.out
