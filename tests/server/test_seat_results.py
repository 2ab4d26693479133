"""``seat_results``: written as each game ends, one row per person's seat, and rebuilt by
migration 0008 from the games already stored exactly as the site writes them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from alembic import command
from alembic.config import Config
from fastapi.testclient import TestClient
from sqlalchemy import select

from dicehall.server.core.db import at_head
from dicehall.server.domain.games import quotas
from dicehall.server.domain.games.seat_results import SEAT_RECORDS, SEAT_RESULTS, outcomes
from dicehall.server.domain.history import find_player
from dicehall.server.domain.services import Services
from tests.server.conftest import MakeUser
from tests.server.test_history import lost_game, start_vs_bot, won_game

ALEMBIC_INI = Path(__file__).resolve().parents[2] / "alembic.ini"


@pytest.fixture(autouse=True)
def _many_creates(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(quotas, "CREATES_PER_MINUTE", 10_000)


def rows(services: Services, table: Any = SEAT_RESULTS) -> list[tuple[Any, ...]]:
    with services.read_conn() as conn:
        found = conn.execute(select(table).order_by(*table.primary_key)).all()
    return [tuple(row) for row in found]


@pytest.mark.both_databases
def test_the_migration_rebuilds_what_the_site_wrote(
    client: TestClient, make_user: MakeUser, services: Services
) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    with services.read_conn() as conn:
        alice_pk, bob_pk = (find_player(conn, name).pk for name in ("alice", "bob"))
    lost = lost_game(client, alice, "tenthousand")
    won = won_game(client, alice, bob, "bob")
    start_vs_bot(client, alice, "boatzee")  # in progress: no row
    written, counted = rows(services), rows(services, SEAT_RECORDS)
    # The counts kept as games end are the counts of the rows.
    assert counted == [
        (alice_pk, "tenthousand", "loss", False, 1),
        (alice_pk, "tenthousand", "win", False, 1),
        (bob_pk, "tenthousand", "loss", False, 1),
    ]
    by_game = {(row[0], row[1]): row for row in written}
    # The person's seat only (not the bot's), with the outcome and the game's own flags.
    assert {key: by_game[key][4] for key in by_game} == {
        (lost, 0): "loss",
        (won, 0): "win",
        (won, 1): "loss",
    }
    config = Config(str(ALEMBIC_INI))
    # The write engine: BEGIN IMMEDIATE on SQLite, so a background top-up writing in
    # between makes the migration wait its turn rather than fail.
    with services.write_engine.begin() as conn:
        config.attributes["connection"] = conn
        command.downgrade(config, "0007")
    assert not at_head(services.engine)
    with services.write_engine.begin() as conn:
        config.attributes["connection"] = conn
        command.upgrade(config, "head")
    assert rows(services) == written
    assert rows(services, SEAT_RECORDS) == counted


def test_outcomes_and_scores_come_from_the_stored_result() -> None:
    result = '{"winners": [1], "scores": [120, 350, 90], "turns": 7}'
    assert outcomes(result, 3) == [("loss", 120), ("win", 350), ("loss", 90)]
    assert outcomes('{"winners": [0, 2], "scores": [5, 1, 5], "turns": 1}', 3)[0] == ("draw", 5)
    assert outcomes(None, 2) == [(None, None), (None, None)]
    assert outcomes('{"winners": [0]}', 2) == [("win", None), ("loss", None)]
