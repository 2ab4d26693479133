"""``dicehall solve boss``, and the ``equilibrium`` bot from the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dicehall.games.boss.equilibrium_store import forget, load_or_solve
from tests.conftest import CliResult, CliRunner


def flat(text: str) -> str:
    """Output with Rich's line wrapping undone."""
    return " ".join(text.split())


def bad(result: CliResult, message: str) -> None:
    assert result.code == 2, result.out + result.err
    assert message in flat(result.err)
    assert "Traceback" not in result.err + result.out
    assert len(result.err.strip().splitlines()) <= 3


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data directory holding the solved equilibrium (solved once for the module)."""
    directory = tmp_path_factory.mktemp("dicehall-data")
    forget()  # another module may hold it in memory, stored elsewhere
    load_or_solve(directory=directory)
    return directory


@pytest.fixture(autouse=True)
def _use_data_dir(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DICEHALL_DATA", str(data_dir))


def test_solve_json(cli: CliRunner, data_dir: Path) -> None:
    result = cli("solve", "boss", "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert set(data) == {
        "boss_value",
        "fresh_hand_value",
        "come_up",
        "boss_win",
        "push",
        "boss_lose",
        "pick_up",
        "exploitability",
        "exploitability_hand",
        "public_states",
        "boss_chance",
        "cached",
        "seconds",
        "path",
    }
    assert data["boss_value"] == pytest.approx(0.7387457143, abs=1e-9)
    assert data["fresh_hand_value"] == 0.5
    assert data["exploitability"] < 0.001
    assert set(data["exploitability_hand"]) == {"boss", "opponent"}
    assert data["public_states"] == 10_049
    assert data["cached"] is True
    assert data["come_up"] + data["pick_up"] == pytest.approx(1)
    assert data["boss_win"] + data["push"] + data["boss_lose"] == pytest.approx(data["come_up"])
    assert Path(data["path"]).is_file() and Path(data["path"]).is_relative_to(data_dir)


def test_solve_text(cli: CliRunner) -> None:
    result = cli("solve", "boss")
    assert result.code == 0, result.err
    out = flat(result.out)
    assert "Value of being Boss: 0.738746" in out
    assert "Exploitability:" in out and "loaded from" in out
    assert "10,049 public states" in out


def test_solve_refresh_solves_again_into_the_data_directory(
    cli: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DICEHALL_DATA", str(tmp_path))
    result = cli("solve", "boss", "--refresh", "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["cached"] is False
    assert data["boss_value"] == pytest.approx(0.7387457143, abs=1e-9)
    assert Path(data["path"]).parent == tmp_path / "boss" and Path(data["path"]).is_file()


def test_solve_at_a_position(cli: CliRunner) -> None:
    args = ("solve", "boss", "--roll", "3,3,6,2,1", "--boss-kept", "6,6", "--boss", "6,6,4,4,1")
    result = cli(*args, "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["keeps"] == [{"keep": [3, 3], "chance": 1.0}]
    assert data["come_up"] == 1.0 and data["boss"] == [1, 4, 4, 6, 6]
    calls = {c["hand"]: c for c in data["calls"]}
    assert calls["a pair of 6s"]["come_up"] == 0.0
    assert calls["a pair of 6s"]["chance"] == pytest.approx(60 / 216)
    assert calls["three 6s"]["come_up"] == 1.0
    assert sum(c["chance"] for c in data["calls"]) == pytest.approx(1)
    text = flat(cli(*args).out)
    assert 'After "come up" the opponent keeps: 3 3 (100%).' in text
    assert "the Boss comes up 100% of the time" in text


def test_solve_bad_positions(cli: CliRunner) -> None:
    bad(cli("solve", "boss", "--roll", "3,3,6,2,1"), "needs --roll and --boss-kept")
    bad(cli("solve", "boss", "--boss-kept", "6,6"), "needs --roll and --boss-kept")
    bad(cli("solve", "boss", "--roll", "3,3,6,2", "--boss-kept", "6,6"), "expected 5 dice")
    bad(cli("solve", "boss", "--roll", "3,3,6,2,1", "--boss-kept", "6,5"), "Boss keeps exactly")
    bad(
        cli("solve", "boss", "--roll", "6,6,6,2,1", "--boss-kept", "5,5"),
        "would not be the opponent",
    )
    bad(
        cli("solve", "boss", "--roll", "3,3,6,2,1", "--boss-kept", "6,6", "--boss", "5,5,1,2,3"),
        "does not hold his kept dice",
    )


def test_sim_and_play_with_the_equilibrium_bot(cli: CliRunner) -> None:
    result = cli("sim", "boss", "--bots", "equilibrium,odds", "-n", "40", "--seed", "2", "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert [s["bot"] for s in data["seats"]] == ["equilibrium", "odds"]
    assert sum(s["win_share"] for s in data["seats"]) == pytest.approx(1)
    answers = "u\nnone\n" * 60
    played = cli("play", "boss", "--seats", "you,bot:equilibrium", "--seed", "5", input=answers)
    assert played.code == 0, played.err
    out = flat(played.out)
    assert "the match" in out and "equilibrium bot" in out
