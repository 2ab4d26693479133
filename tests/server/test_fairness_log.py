"""The public log of commitments: served in pages that chain, any stored change breaks the
chain, the statistics never count a game in progress, and a batch committed the old way
before migration 0007 stays verifiable after it."""

from __future__ import annotations

import secrets
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from alembic.config import Config
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, select, text, update

from dicehall.fairness.chain import GENESIS, verify_chain
from dicehall.server.core.clock import now
from dicehall.server.core.db import migrate
from dicehall.server.domain.dice import fairlog, fairness
from dicehall.server.domain.dice.pool import BATCHES, SETS, commitment_of, roll_set
from dicehall.server.domain.services import Services
from tests.server.conftest import MakeUser
from tests.server.proof_games import API, LONG, SHORT, create, finish, step


def _all_records(client: TestClient) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = []
    start: int | None = 1
    while start is not None:
        page = client.get(f"{API}/fairness/log", params={"from": start}).json()
        records += page["records"]
        start = page["next"]
    return records


def test_the_log_chains_from_genesis_and_names_every_new_batch(
    client: TestClient, services: Services
) -> None:
    services.pool.ensure_reserve(services.write_conn)
    page = client.get(f"{API}/fairness/log").json()
    records = page["records"]
    assert records and records[0]["seq"] == 1 and records[0]["prev"] == GENESIS
    assert verify_chain(records) is None
    assert page["head"] == records[-1] and page["total"] == len(records)
    assert {r["kind"] for r in records} == {"dice", "bags"}
    report = client.get(f"{API}/fairness").json()
    assert report["log_head"] == page["head"] and report["log_records"] == page["total"]
    for batch in report["batches"]:
        record = records[batch["log_seq"] - 1]
        assert (record["kind"], record["batch"], record["root"]) == (
            "dice",
            batch["id"],
            batch["root"],
        )
    later = client.get(f"{API}/fairness/log", params={"from": 2}).json()
    assert later["records"] == records[1:]
    assert client.get(f"{API}/fairness/log", params={"from": 0}).status_code == 422
    assert client.get(f"{API}/fairness/log", params={"from": "x"}).status_code == 422


@pytest.mark.parametrize("column", ["body", "hash"])
def test_changing_any_stored_record_breaks_the_chain(
    client: TestClient, services: Services, column: str
) -> None:
    # Enough batches that a record sits in the middle of the log.
    for _ in range(3):
        with services.write_conn() as conn:
            services.pool._new_batch(
                conn,
                conn.execute(select(SETS.c.id).order_by(SETS.c.id.desc()).limit(1)).scalar_one()
                + 1,
            )
    records = _all_records(client)
    assert verify_chain(records) is None and len(records) >= 4
    for seq in (1, len(records) // 2, len(records)):
        with services.write_conn() as conn:
            row = conn.execute(select(fairlog.LOG).where(fairlog.LOG.c.seq == seq)).one()
            changed = row.body.replace('"size":', '"size":1') if column == "body" else "0" * 64
            conn.execute(
                update(fairlog.LOG).where(fairlog.LOG.c.seq == seq).values({column: changed})
            )
        broken = verify_chain(_all_records(client))
        assert broken is not None and broken.seq == seq, (column, seq, broken)
        with services.write_conn() as conn:
            conn.execute(
                update(fairlog.LOG)
                .where(fairlog.LOG.c.seq == seq)
                .values({column: getattr(row, column)})
            )
    assert verify_chain(_all_records(client)) is None


def test_statistics_never_count_a_game_in_progress(
    client: TestClient, make_user: MakeUser, services: Services
) -> None:
    import random

    alice = make_user("alice")
    rng = random.Random(5)
    before = client.get(f"{API}/fairness").json()["finished"]
    playing = create(client, alice, "tenthousand", LONG["tenthousand"])
    for _ in range(4):
        playing = step(client, alice, playing, rng)
    assert playing["status"] == "active"
    assert client.get(f"{API}/fairness").json()["finished"] == before
    done = finish(client, alice, create(client, alice, "boss", SHORT["boss"][0]), rng)
    after = client.get(f"{API}/fairness").json()["finished"]
    # Dice the table never saw (a Boss's concealed roll left unseen) are never counted: the
    # game rolled from its deck, and its shown rolls are what its public log shows.
    log = client.get(f"{API}/games/{done['id']}/log").json()
    faces = [
        face
        for event in log["events"]
        if event["type"] == "resolved" and isinstance(event["outcome"], list)
        for face in event["outcome"]
    ]
    assert faces and all(isinstance(face, int) for face in faces)
    assert after["games"] == before["games"] + 1
    assert after["dice"] == before["dice"] + len(faces)
    for face in range(1, 7):
        assert after["counts"][str(face)] == before["counts"][str(face)] + faces.count(face)


def test_a_batch_committed_before_migration_0007_stays_verifiable(db_url: str) -> None:
    engine = create_engine(db_url)
    config = Config()
    config.set_main_option(
        "script_location", str(resources.files("dicehall.server.core").joinpath("migrations"))
    )
    path = Path(db_url.removeprefix("sqlite:///"))
    path.unlink(missing_ok=True)
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        command.upgrade(config, "0006")
    salt, sets = secrets.token_hex(32), [roll_set() for _ in range(5)]
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO dice_batches (id, salt, commitment, size, first_set, created_at, "
                "revealed) VALUES (1, :salt, :commitment, 5, 1, :at, 0)"
            ),
            {"salt": salt, "commitment": commitment_of(salt, sets), "at": now()},
        )
        for i, faces in enumerate(sets):
            conn.execute(
                text("INSERT INTO dice_sets (id, batch_id, faces, withheld) VALUES (:i, 1, :f, 0)"),
                {"i": i + 1, "f": faces},
            )
    migrate(engine)
    with engine.begin() as conn:
        batch = conn.execute(select(BATCHES).where(BATCHES.c.id == 1)).one()
        assert (batch.scheme, batch.root, batch.log_seq) == (1, None, None)
        conn.execute(update(BATCHES).where(BATCHES.c.id == 1).values(revealed=True))
    from sqlalchemy.orm import Session

    with Session(engine) as db:
        revealed = fairness.revealed_batch(db, 1)
    assert revealed is not None and revealed["sets"] == sets
    assert fairness.check_batch(revealed).ok
    engine.dispose()
