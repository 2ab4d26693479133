"""``dicehall sim --plot``: the picture of a simulation, and the Wilson interval of win shares."""

from __future__ import annotations

import json
import struct
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from matplotlib.image import imread

from dicehall import games
from dicehall.cli.sim import SeatStats, SimReport, draw, save_plot, simulate, wilson_interval
from dicehall.games.boss import BossOptions
from dicehall.games.holdem.model import HoldemOptions
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


def drawn_bars(ax: Any) -> dict[str, dict[int, float]]:
    """Read the bars back from the axes: per series label, the value each bar stands at (the
    tick label of its slot, or its own centre on a number line) and its height."""
    labels = ax.get_xticklabels()
    ticks = {float(t): label.get_text() for t, label in zip(ax.get_xticks(), labels, strict=True)}
    out: dict[str, dict[int, float]] = {}
    for container in ax.containers:
        bars = out.setdefault(container.get_label(), {})
        for patch in container.patches:
            centre = patch.get_x() + patch.get_width() / 2
            tick = min(ticks, key=lambda t: abs(t - centre))
            if abs(tick - centre) < 0.5:  # inside the slot of a named value
                value = int(ticks[tick].replace("\N{MINUS SIGN}", "-"))
            else:
                value = round(centre)
                assert centre == pytest.approx(value)  # a bar centred on its value
            bars[value] = patch.get_height()
    return out


def shares(series: list[int]) -> dict[int, float]:
    counts = Counter(series)
    return {value: n / len(series) for value, n in counts.items()}


def test_score_bars_stand_at_their_values_and_heights() -> None:
    # Hold'em final stacks of three seats with 600 chips in play: 600 or 0, now and then 300.
    scores = [[600, 0, 0], [0, 600, 0], [600, 0, 0], [300, 300, 0], [600, 0, 0]]
    seats = [SeatStats("equity"), SeatStats("random"), SeatStats("random")]
    report = SimReport("holdem", 5, 0, seats, 90.0, scores, [12, 20, 12, 31, 15])
    figure = draw(report, "Hold'em Dice")
    _, score_axes, turn_axes = figure.axes
    drawn = drawn_bars(score_axes)
    assert set(drawn) == {"1: equity", "2: random", "3: random"}
    for i, label in enumerate(sorted(drawn)):
        wanted = shares([game[i] for game in scores])
        assert {v: h for v, h in drawn[label].items() if h} == pytest.approx(wanted)
    assert [t.get_text() for t in score_axes.get_xticklabels()] == ["0", "300", "600"]
    # One series (turns per game): bars centred on the values themselves.
    assert drawn_bars(turn_axes) == {"all games": pytest.approx(shares(report.turns))}


def test_holdem_stacks_from_a_simulation_are_drawn_where_they_are() -> None:
    entry = games.get("holdem")
    options = HoldemOptions(stack=200)
    report = simulate(
        entry, ["equity", "random", "random"], 30, 1, options, progress=False, keep_scores=True
    )
    drawn = drawn_bars(draw(report, "Hold'em Dice").axes[1])
    for i, seat in enumerate(report.as_json()["seats"]):
        wanted = shares([game[i] for game in report.scores])
        label = f"{seat['seat']}: {seat['bot']}"
        assert {v: h for v, h in drawn[label].items() if h} == pytest.approx(wanted)
