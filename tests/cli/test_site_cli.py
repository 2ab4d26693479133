"""``dicehall verify-dice`` on good, tampered and malformed batches."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dicehall import games
from dicehall.server.domain.dice.pool import commitment_of
from tests.conftest import CliRunner


def write(tmp_path: Path, data: object) -> str:
    path = tmp_path / "batch.json"
    path.write_text(json.dumps(data))
    return str(path)


def test_verify_dice(cli: CliRunner, tmp_path: Path) -> None:
    sets = ["123456", "666111", "245135"]
    salt = "ab" * 32
    batch = {"batch": 1, "salt": salt, "commitment": commitment_of(salt, sets), "sets": sets}
    ok = cli("verify-dice", write(tmp_path, batch))
    assert ok.code == 0 and "OK: 3 sets" in ok.out
    tampered = cli(
        "verify-dice", write(tmp_path, {**batch, "sets": ["123456", "666111", "245136"]})
    )
    assert tampered.code == 1 and "MISMATCH" in tampered.out
    bad = cli("verify-dice", write(tmp_path, {**batch, "sets": ["1234567"]}))
    assert bad.code == 2 and "not six faces" in bad.err
    missing = cli("verify-dice", str(tmp_path / "nope.json"))
    assert missing.code == 2 and "cannot read" in missing.err
    (tmp_path / "junk.json").write_text("{junk")
    junk = cli("verify-dice", str(tmp_path / "junk.json"))
    assert junk.code == 2 and "not JSON" in junk.err


def test_solve_all_builds_every_slow_bot_of_the_installed_games(
    cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Two games whose slow bots build in seconds stand for every installed game.
    monkeypatch.setattr(games, "available", lambda: ("boss", "bullseye"))
    built = cli("solve", "--all", "--json")
    assert built.code == 0, built.err
    tables = json.loads(built.out)["tables"]
    assert [(t["game"], t["bot"]) for t in tables] == [
        ("boss", "equilibrium"),
        ("bullseye", "optimal"),
        ("bullseye", "potmax"),
    ]
    assert all(t["seconds"] >= 0 for t in tables)
    words = cli("solve", "--all")
    assert words.code == 0 and "boss equilibrium: ready in" in words.out
    helped = cli("solve", "--help")
    assert helped.code == 0 and "--all" in helped.out
