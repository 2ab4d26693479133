"""(Longer than most test modules: one story, back up, publish, restore, play again, told
on both databases, and the refusals that story needs, share its helpers.)

``dicehall backup`` and ``dicehall restore``: a site restored from a backup older than its
published log serves no die, shuffle or deck that a published proof used, hands out no game
id twice, and continues the saved log unchanged; a restore without the log, of a damaged
backup, or of another history is refused and changes nothing; a backup taken while the
database is being written is a consistent snapshot."""

from __future__ import annotations

import hashlib
import json
import random
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from dicehall.fairness.chain import record_hash
from dicehall.fairness.checkpoint import Checkpoint
from dicehall.server.app import create_app
from dicehall.server.domain.backups import restore
from dicehall.server.domain.dice import logtree
from dicehall.server.domain.restore import RestoreReport
from dicehall.server.domain.saved_log import RestoreRefused, read_checkpoint, read_saved_log
from dicehall.server.domain.services import Services, build_services
from dicehall.server.infra.backup import BackupFailed, backup
from tests.conftest import CliRunner
from tests.live import add_user
from tests.server.conftest import Headers, site_settings
from tests.server.proof_games import API, SHORT, create, finish

#: One game with dice only, one with a bag (shuffles), one more with dice.
KINDS = ("tenthousand", "holdem", "bullseye")

Source = tuple[str, int]


@contextmanager
def _site(url: str) -> Iterator[tuple[Services, TestClient]]:
    services = build_services(site_settings(url))
    try:
        with TestClient(create_app(services=services)) as client:
            yield services, client
    finally:
        services.engine.dispose()


def _restore(
    archive: Path,
    url: str,
    *,
    saved: list[dict[str, Any]] | None = None,
    checkpoint: Checkpoint | None = None,
    nothing_published_since: bool = False,
) -> RestoreReport:
    """Restore ``archive`` into ``url`` (test sizes), with ``saved`` as the published log."""
    return restore(
        archive,
        url,
        saved_log=None if saved is None else read_saved_log(json.dumps({"records": saved})),
        checkpoint=checkpoint,
        nothing_published_since=nothing_published_since,
        overwrite=True,
        dice_batch_size=40,
        bag_batch_size=10,
        id_margin=1000,
    )


def _log(client: TestClient) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = []
    start: int | None = 1
    while start is not None:
        page = client.get(f"{API}/fairness/log", params={"from": start}).json()
        records.extend(page["records"])
        start = page["next"]
    return records


def _play(client: TestClient, headers: Headers, seed: int) -> dict[int, dict[str, Any]]:
    """Play one short game of each kind to its end; their proofs by game id."""
    rng = random.Random(seed)
    proofs: dict[int, dict[str, Any]] = {}
    for kind in KINDS:
        game = finish(client, headers, create(client, headers, kind, SHORT[kind][0]), rng)
        response = client.get(f"{API}/games/{game['id']}/proof")
        assert response.status_code == 200, response.text
        proofs[game["id"]] = response.json()
    return proofs


def _sources(proof: dict[str, Any], log: list[dict[str, Any]], game_id: int) -> set[Source]:
    """Every committed source a game's proof and the log say it used."""
    used: set[Source] = {("set", entry["number"]) for entry in proof.get("dice_sets", [])}
    used |= {("shuffle", entry["number"]) for entry in proof.get("bag_shuffles", [])}
    seating = proof.get("seating") or {}
    used |= {("set", number) for number in seating.get("dice_sets", [])}
    used |= {("deck", part["deck"]) for part in proof.get("decks", [])}
    used |= {("deck", r["deck"]) for r in log if r["kind"] == "game" and r["game"] == game_id}
    return used


@pytest.mark.parametrize("db_url", ["sqlite", "postgresql"], indirect=True)
def test_a_restore_serves_nothing_published_and_reuses_no_id(db_url: str, tmp_path: Path) -> None:
    archive = tmp_path / "site.backup"
    with _site(db_url) as (services, client):
        headers = add_user(services, "ann", services.hasher.hash("correct horse battery"))
        before = _play(client, headers, 1)
        backup(db_url, archive)
        # The site goes on after the backup: these games' proofs and the log are public.
        published = _play(client, headers, 2)
        saved = _log(client)
    published_sources = set().union(*(_sources(p, saved, g) for g, p in published.items()))
    assert published_sources, "the published games used no committed source"

    report = _restore(archive, db_url, saved=saved)
    assert report.imported_records == len(saved) - report.backup_log_size > 0

    with _site(db_url) as (services, client):
        headers = add_user(services, "bo", services.hasher.hash("correct horse battery"))
        again = _play(client, headers, 3)
        after = _log(client)
        with services.read_conn() as conn:
            audit = conn.exec_driver_sql("SELECT backup_log_size, log_size FROM restores").all()
    assert [tuple(row) for row in audit] == [(report.backup_log_size, report.log_size)]
    problems = []
    if after[: len(saved)] != saved:
        problems.append("the restored log does not extend the saved one")
    if set(again) & (set(before) | set(published)):
        problems.append("a game id was handed out twice")
    reused = set().union(*(_sources(p, after, g) for g, p in again.items())) & published_sources
    if reused:
        problems.append(f"published sources served again: {sorted(reused)[:5]}")
    assert not problems


def _started_site(url: str) -> None:
    """A site whose pool is filled (its log holds records) and one user."""
    with _site(url) as (services, _client):
        add_user(services, "ann", services.hasher.hash("correct horse battery"))


def _digest(path: Path) -> str:
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        rows = [con.execute(f"SELECT * FROM {t} ORDER BY 1").fetchall() for t in _TABLES]
    finally:
        con.close()
    return hashlib.sha256(repr(rows).encode()).hexdigest()


_TABLES = ("users", "games", "fairness_log", "dice_cursor", "sqlite_sequence")


def test_a_restore_without_the_log_is_refused_and_changes_nothing(
    tmp_path: Path, cli: CliRunner
) -> None:
    target = tmp_path / "site.sqlite3"
    _started_site(f"sqlite:///{target}")
    archive = tmp_path / "site.backup"
    assert cli("backup", str(archive), "--db", f"sqlite:///{target}").code == 0
    before = _digest(target)

    refused = cli("restore", str(archive), "--db", f"sqlite:///{target}", "--yes")
    assert refused.code == 2
    assert "--log FILE" in refused.err and "published" in refused.err
    not_yes = cli("restore", str(archive), "--db", f"sqlite:///{target}", "--log", "x.json")
    assert not_yes.code == 2 and "cannot read the saved log" in not_yes.err
    assert _digest(target) == before

    empty = tmp_path / "empty.sqlite3"
    done = cli(
        "restore",
        str(archive),
        "--db",
        f"sqlite:///{empty}",
        "--nothing-published-since-backup",
        "--json",
    )
    assert done.code == 0, done.err
    assert json.loads(done.out)["backup_log_size"] > 0
    held = cli("restore", str(archive), "--db", f"sqlite:///{empty}")
    assert held.code == 2 and "--yes" in held.err

    broken = tmp_path / "broken.sqlite3"
    broken.write_bytes(b"not a database, whatever it was" * 100)
    args = ("restore", str(archive), "--db", f"sqlite:///{broken}")
    unsure = cli(*args, "--nothing-published-since-backup")
    assert unsure.code == 2 and "give --yes" in unsure.err
    replaced = cli(*args, "--nothing-published-since-backup", "--yes")
    assert replaced.code == 0, replaced.err
    assert "the unusable database was moved to" in replaced.out
    assert [p.read_bytes()[:7] for p in tmp_path.glob("broken.sqlite3.unusable-*")] == [b"not a d"]


@pytest.mark.parametrize("db_url", ["sqlite", "postgresql"], indirect=True)
def test_a_damaged_backup_is_refused_and_changes_nothing(db_url: str, tmp_path: Path) -> None:
    _started_site(db_url)
    archive = tmp_path / "site.backup"
    backup(db_url, archive)
    data = archive.read_bytes()
    damaged = tmp_path / "damaged.backup"
    # The header stays (so it is taken for a backup of its kind); the body is cut short.
    damaged.write_bytes(data[: len(data) // 3])
    with _site(db_url) as (services, _client), services.read_conn() as conn:
        rows = conn.exec_driver_sql("SELECT seq, hash FROM fairness_log ORDER BY seq").all()
    with pytest.raises(BackupFailed, match=r"not a usable SQLite database|pg_restore failed"):
        _restore(damaged, db_url, nothing_published_since=True)
    with _site(db_url) as (services, _client), services.read_conn() as conn:
        assert conn.exec_driver_sql("SELECT seq, hash FROM fairness_log ORDER BY seq").all() == rows


def test_another_history_is_refused(tmp_path: Path, cli: CliRunner) -> None:
    target = tmp_path / "site.sqlite3"
    _started_site(f"sqlite:///{target}")
    archive = tmp_path / "site.backup"
    backup(f"sqlite:///{target}", archive)
    with _site(f"sqlite:///{target}") as (_services, client):
        saved = _log(client)
    forged = [dict(r) for r in saved]
    forged[0]["created_at"] = "2000-01-01T00:00:00+00:00"
    prev = None
    for record in forged:
        if prev is not None:
            record["prev"] = prev
        record["hash"] = prev = record_hash(record)
    before = _digest(target)
    forged_file = tmp_path / "forged.json"
    forged_file.write_text(json.dumps({"records": forged}))
    failed = cli(
        "restore", str(archive), "--db", f"sqlite:///{target}", "--log", str(forged_file), "--yes"
    )
    assert failed.code == 1 and "FAILED: record 1 of the backup's log differs" in failed.err
    with pytest.raises(RestoreRefused, match="two histories"):
        restore(
            archive,
            f"sqlite:///{target}",
            saved_log=read_saved_log(json.dumps(forged)),
            checkpoint=None,
            nothing_published_since=False,
            overwrite=True,
            dice_batch_size=40,
            bag_batch_size=10,
            id_margin=1000,
        )
    with pytest.raises(RestoreRefused, match="older than the backup"):
        restore(
            archive,
            f"sqlite:///{target}",
            saved_log=read_saved_log(json.dumps(saved[: _log_size(archive) - 1])),
            checkpoint=None,
            nothing_published_since=False,
            overwrite=True,
            dice_batch_size=40,
            bag_batch_size=10,
            id_margin=1000,
        )
    assert _digest(target) == before
    with pytest.raises(RestoreRefused, match="starts at record 2"):
        read_saved_log(json.dumps({"records": saved[1:]}))

    size = len(saved)
    with _site(f"sqlite:///{target}") as (services, _client), services.read_conn() as conn:
        root = logtree.root(conn, size)
    ahead = Checkpoint("dice.example/dicehall-log", size + 1, root)
    wrong = Checkpoint("dice.example/dicehall-log", size, bytes(32))
    for point, why in ((ahead, "the log went on after it"), (wrong, "two histories")):
        with pytest.raises(RestoreRefused, match=why):
            _restore(archive, f"sqlite:///{target}", checkpoint=point)
    assert _digest(target) == before
    right = read_checkpoint(Checkpoint("dice.example/dicehall-log", size, root).text())
    report = _restore(archive, f"sqlite:///{target}", checkpoint=right)
    assert report.checkpoint_size == size == report.log_size


def _log_size(archive: Path) -> int:
    con = sqlite3.connect(f"file:{archive}?mode=ro", uri=True)
    try:
        return int(con.execute("SELECT count(*) FROM fairness_log").fetchone()[0])
    finally:
        con.close()


def test_a_backup_while_the_database_is_written_is_consistent(tmp_path: Path) -> None:
    """A writer commits ten rows and the count of rows in each transaction; every backup
    taken meanwhile holds whole transactions only (a plain file copy of a WAL database
    would miss what is still in the WAL)."""
    source = tmp_path / "busy.sqlite3"
    con = sqlite3.connect(source, isolation_level=None)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("CREATE TABLE rows (n INTEGER)")
    con.execute("CREATE TABLE total (n INTEGER)")
    con.execute("INSERT INTO total VALUES (0)")
    con.close()
    stop, writing = threading.Event(), threading.Event()

    def write() -> None:
        writer = sqlite3.connect(source, isolation_level=None, timeout=30)
        try:
            done = 0
            while not stop.is_set():
                writer.execute("BEGIN IMMEDIATE")
                writer.executemany("INSERT INTO rows VALUES (?)", [(i,) for i in range(10)])
                writer.execute("UPDATE total SET n = n + 10")
                writer.execute("COMMIT")
                done += 1
                if done == 50:
                    writing.set()
        finally:
            writing.set()
            writer.close()

    thread = threading.Thread(target=write)
    thread.start()
    try:
        assert writing.wait(30)
        copies = []
        for index in range(5):
            copy = tmp_path / f"copy{index}.sqlite3"
            backup(f"sqlite:///{source}", copy)
            copies.append(copy)
    finally:
        stop.set()
        thread.join()
    counts = []
    for copy in copies:
        check = sqlite3.connect(f"file:{copy}?mode=ro", uri=True)
        try:
            rows = check.execute("SELECT count(*) FROM rows").fetchone()[0]
            total = check.execute("SELECT n FROM total").fetchone()[0]
            mode = check.execute("PRAGMA journal_mode").fetchone()[0]
        finally:
            check.close()
        assert rows == total
        assert mode == "delete"  # one self-contained file
        counts.append(rows)
    assert counts[-1] > 0
    with pytest.raises(BackupFailed, match="exists already"):
        backup(f"sqlite:///{source}", copies[0])


def _numbers(records: list[dict[str, Any]], kind: str) -> set[int]:
    return {
        number
        for r in records
        if r["kind"] == kind
        for number in range(r["first"], r["first"] + r["size"])
    }


def test_numbers_the_log_names_past_the_backup_are_never_committed_again(
    tmp_path: Path,
) -> None:
    """Batches committed after the backup have no rows in it: the restored pool starts its
    next batches after every number the saved log names, under new batch ids."""
    url = f"sqlite:///{tmp_path / 'site.sqlite3'}"
    archive = tmp_path / "site.backup"
    with _site(url) as (services, client):
        backup(url, archive)
        for _ in range(2):  # serve every set and shuffle there is, and commit more
            with services.write_conn() as conn:
                services.pool.take(conn, 40, None)
                for _ in range(10):
                    services.pool.take_shuffle(conn, 1)
            services.pool.ensure_reserve(services.write_conn)
        saved = _log(client)
    report = restore(
        archive,
        url,
        saved_log=read_saved_log(json.dumps(saved)),
        checkpoint=None,
        nothing_published_since=False,
        overwrite=True,
        dice_batch_size=40,
        bag_batch_size=10,
        id_margin=1000,
    )
    assert report.dice_cursor[1] == max(_numbers(saved, "dice")) + 1
    assert report.shuffle_cursor[1] == max(_numbers(saved, "bags")) + 1
    with _site(url) as (services, client):
        with services.write_conn() as conn:
            sets = [s.set_id for s in services.pool.take(conn, 3, None)]
            shuffle = services.pool.take_shuffle(conn, 1).shuffle_id
        after = _log(client)
    assert after[: len(saved)] == saved
    new = after[len(saved) :]
    assert not _numbers(new, "dice") & _numbers(saved, "dice")
    assert not _numbers(new, "bags") & _numbers(saved, "bags")
    assert min(sets) == report.dice_cursor[1] and shuffle == report.shuffle_cursor[1]
    for kind in ("dice", "bags"):
        named = {r["batch"] for r in saved if r["kind"] == kind}
        assert {r["batch"] for r in new if r["kind"] == kind}.isdisjoint(named)


def test_a_game_in_play_at_the_backup_rolls_none_of_the_dice_it_showed_after(
    tmp_path: Path,
) -> None:
    """A game moved after the backup showed its next keys' dice; restored, it goes on from
    the backup with a fresh deck, so the same moves meet other dice (the old ones were seen),
    and its proof, deck after deck, still verifies."""
    from dicehall.fairness.verify import verify_proof

    url = f"sqlite:///{tmp_path / 'site.sqlite3'}"
    archive = tmp_path / "site.backup"
    with _site(url) as (services, client):
        headers = add_user(services, "ann", services.hasher.hash("correct horse battery"))
        game = create(client, headers, "boatzee", {})
        seeded = client.post(
            f"{API}/games/{game['id']}/seed", json={"seed": "ab" * 16}, headers=headers
        )
        assert seeded.status_code == 200, seeded.text
        backup(url, archive)
        action = max(game["legal"], key=lambda a: len(a.get("positions", [])))  # roll all
        roll = {"action": action, "expected_version": game["version"]}
        seen = client.post(f"{API}/games/{game['id']}/actions", json=roll, headers=headers)
        assert seen.status_code == 200, seen.text
        saved = _log(client)
    _restore(archive, url, saved=saved)
    with _site(url) as (services, client):
        again = client.post(f"{API}/games/{game['id']}/actions", json=roll, headers=headers)
        assert again.status_code == 200, again.text
        assert _dice(again.json()) != _dice(seen.json())
        final = finish(client, headers, again.json(), random.Random(5))
        proof = client.get(f"{API}/games/{final['id']}/proof").json()
    assert len(proof["decks"]) == 2 and proof["decks"][1]["first_key"] > 0
    report = verify_proof(proof)
    assert report.ok, report.failure


def _dice(game: dict[str, Any]) -> Any:
    """What a Boatzee game's view shows after a roll (its dice among it)."""
    return game["view"]


def test_the_log_after_a_restore_still_binds_decks_in_order(tmp_path: Path) -> None:
    """Decks unbound at the restore are retired in the log (bound to game 0, oldest first),
    so the whole log, read from record 1, passes ``verify-log``'s order check."""
    from dicehall.fairness.deck_order import check_bindings

    url = f"sqlite:///{tmp_path / 'site.sqlite3'}"
    archive = tmp_path / "site.backup"
    with _site(url) as (services, client):
        headers = add_user(services, "ann", services.hasher.hash("correct horse battery"))
        pool = services.pool
        pool.decks.top_up(services.read_conn, services.write_conn, pool.hold_cursor)
        backup(url, archive)
        create(client, headers, "boss", SHORT["boss"][0])
        saved = _log(client)
    assert [r for r in saved if r["kind"] == "deck"][1:], "no deck waits unbound"
    _restore(archive, url, saved=saved)
    with _site(url) as (services, client):
        headers = add_user(services, "bo", services.hasher.hash("correct horse battery"))
        create(client, headers, "boss", SHORT["boss"][0])
        create(client, headers, "holdem", SHORT["holdem"][0])
        after = _log(client)
    retired = [r for r in after if r["kind"] == "game" and r["game"] == 0]
    assert retired and check_bindings(after) is None, check_bindings(after)
