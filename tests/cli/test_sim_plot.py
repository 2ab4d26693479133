"""``dicehall sim --plot``: the picture of a simulation, and the Wilson interval of win shares."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
import pytest
from matplotlib.image import imread

from dicehall import games
from dicehall.cli.sim import SeatStats, SimReport, save_plot, simulate, wilson_interval
from dicehall.games.boss import BossOptions
from tests.conftest import CliResult, CliRunner

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def flat(text: str) -> str:
    return " ".join(text.split())


def bad(result: CliResult, message: str) -> None:
    assert result.code == 2, result.out + result.err
    assert message in flat(result.err)
    assert "Traceback" not in result.err + result.out


def check_png(path: Path) -> None:
    """A whole PNG of the expected size, with something drawn on it."""
    data = path.read_bytes()
    assert data[:8] == PNG_SIGNATURE
    length, kind = struct.unpack(">I4s", data[8:16])
    assert kind == b"IHDR" and length == 13
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (1300, 420)
    assert data[-12:] == b"\x00\x00\x00\x00IEND\xaeB`\x82"
    pixels = imread(path)
    assert pixels.shape[:2] == (420, 1300)
    assert float(np.std(pixels[..., :3])) > 0.05  # not a blank page


@pytest.mark.parametrize(
    ("game", "bots"),
    [
        ("boss", "odds,heuristic"),
        ("bullseye", "optimal,heuristic,random"),
        ("tenthousand", "heuristic,random"),
    ],
)
def test_the_picture_is_written_as_well_as_the_table(
    cli: CliRunner, tmp_path: Path, game: str, bots: str
) -> None:
    picture = tmp_path / f"{game}.png"
    result = cli("sim", game, "--bots", bots, "-n", "12", "--seed", "3", "--plot", str(picture))
    assert result.code == 0, result.err
    out = flat(result.out)
    assert "win share" in out and f"Picture saved to {picture}" in out
    check_png(picture)


def test_json_names_the_picture_and_keeps_its_shape(cli: CliRunner, tmp_path: Path) -> None:
    picture = tmp_path / "boss.PNG"
    args = ("sim", "boss", "--bots", "odds,random", "-n", "10", "--seed", "1", "--json")
    with_plot = json.loads(cli(*args, "--plot", str(picture)).out)
    without = json.loads(cli(*args).out)
    assert with_plot.pop("plot") == str(picture)
    assert with_plot == without  # the same numbers whether or not a picture is drawn
    check_png(picture)


def test_bad_picture_paths_fail_before_simulating(cli: CliRunner, tmp_path: Path) -> None:
    args = ("sim", "boss", "--bots", "odds,random", "-n", "5", "--plot")
    bad(cli(*args, str(tmp_path / "boss.jpg")), "give a file name ending in .png")
    bad(cli(*args, str(tmp_path / "nowhere" / "boss.png")), "there is no directory")
    folder = tmp_path / "folder.png"
    folder.mkdir()
    bad(cli(*args, str(folder)), "is a directory")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder.png"]


def test_a_picture_that_cannot_be_written(
    cli: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr("matplotlib.figure.Figure.savefig", refuse)
    picture = tmp_path / "boss.png"
    bad(
        cli("sim", "boss", "--bots", "odds,random", "-n", "3", "--plot", str(picture)),
        "cannot write",
    )


def test_save_plot_needs_the_scores(tmp_path: Path) -> None:
    entry = games.get("boss")
    report = simulate(entry, ["odds", "random"], 3, 0, BossOptions(), progress=False)
    with pytest.raises(ValueError, match="keep_scores"):
        save_plot(report, tmp_path / "x.png", "Boss Dice")
    kept = simulate(
        entry, ["odds", "random"], 3, 0, BossOptions(), progress=False, keep_scores=True
    )
    assert len(kept.scores) == len(kept.turns) == 3
    assert kept.as_json() == report.as_json()


def test_wilson_interval_values() -> None:
    low, high = wilson_interval(0.5, 100)
    assert low == pytest.approx(0.4038, abs=1e-4) and high == pytest.approx(0.5962, abs=1e-4)
    low, high = wilson_interval(1.0, 10)
    assert high == 1.0 and low == pytest.approx(10 / (10 + 1.96**2))
    low, high = wilson_interval(0.0, 10)
    assert low == 0.0 and high == pytest.approx(1.96**2 / (10 + 1.96**2))
    assert wilson_interval(0.3, 0) == (0.0, 1.0)


def test_a_seat_that_wins_every_game_keeps_an_interval() -> None:
    report = SimReport("boss", 20, 0, [SeatStats("odds", 20.0, 20.0), SeatStats("random")])
    seats = report.as_json()["seats"]
    low, high = seats[0]["win_share_95"]
    assert seats[0]["win_share"] == 1.0 and high == 1.0 and 0.8 < low < 1.0
    low, high = seats[1]["win_share_95"]
    assert low == 0.0 and 0.0 < high < 0.2
