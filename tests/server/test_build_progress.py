"""A slow bot's warm-up estimate follows its table build: the build writes its fraction done,
the driver reads it (and tells it to web processes without bot workers)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from dicehall.games.tenthousand import cache
from dicehall.server.core.clock import now
from dicehall.server.domain import bot_tables
from dicehall.server.workers import botwork
from dicehall.server.workers.botstatus import eta, eta_seconds
from dicehall.server.workers.buildprogress import BuildProgress


def test_a_ten_thousand_solve_writes_its_fraction_done(tmp_path: Path) -> None:
    path = str(tmp_path / "build.json")
    with botwork.reporting_to("tenthousand", path):
        assert cache._display is not None
        with cache._display("Solving") as progress:
            progress(1, 4)
            assert botwork.read_progress(path) == 0.25
            progress(2, 4)  # within PROGRESS_SECONDS of the last: not written
            assert botwork.read_progress(path) == 0.25
            progress(4, 4)  # the end always is
            assert botwork.read_progress(path) == 1.0
    assert cache._display is None, "the hook is taken away afterwards"
    assert botwork.read_progress(str(tmp_path / "none.json")) is None
    (tmp_path / "bad.json").write_text("{not json")
    assert botwork.read_progress(str(tmp_path / "bad.json")) is None


def test_games_that_tell_no_progress_write_nothing(tmp_path: Path) -> None:
    path = tmp_path / "build.json"
    with botwork.reporting_to("boss", str(path)):
        pass
    assert not path.exists()


def test_the_estimate_follows_the_build_once_it_has_told_enough() -> None:
    # What the build's pace says is left, else the declared 75 s less the time spent.
    assert eta_seconds(75, 20.0, 60.4) == 60
    assert eta_seconds(75, 20.0, None) == 55
    assert eta_seconds(75, 100.0, None) == 1
    assert eta_seconds(75, 20.0, -3.0) == 1
    moment = now()
    # A worker told 40 s left 10 s ago: 30 s left now (whatever the time since the start).
    told = bot_tables.Warmth(
        moment - timedelta(seconds=70), None, 0.5, 40.0, moment - timedelta(seconds=10)
    )
    assert eta("tenthousand", "optimal", told, moment) == 30
    # Declared 30 s for Ten Thousand's optimal bot on an idle machine.
    untold = bot_tables.Warmth(moment - timedelta(seconds=10), None)
    assert eta("tenthousand", "optimal", untold, moment) == 20
    assert eta("tenthousand", "optimal", None, moment) == 30


def test_the_time_left_is_the_builds_pace_since_its_first_report() -> None:
    progress = BuildProgress()
    key = ("tenthousand", "optimal", "{}")
    progress.open()
    try:
        path = Path(str(progress.path(key)))
        assert progress.left_s(key, 100.0) is None  # nothing told yet
        # Its first report comes 30 s into the build, 10% done: the pace starts here.
        path.write_text('{"fraction": 0.1}')
        assert progress.left_s(key, 130.0) is None
        path.write_text('{"fraction": 0.4}')
        # 0.3 done in 20 s: 0.6 left takes 40 s (not 60 s, as from the build's start).
        assert progress.left_s(key, 150.0) == pytest.approx(40.0)
        path.write_text('{"fraction": 1.0}')
        assert progress.left_s(key, 170.0) is None
    finally:
        progress.close()


def test_the_driver_tells_each_change_once_and_forgets_ended_builds() -> None:
    progress = BuildProgress()
    key = ("tenthousand", "optimal", "{}")
    assert progress.path(key) is None
    progress.open()
    try:
        path = progress.path(key)
        assert path is not None
        assert progress.moved([key]) == []
        Path(path).write_text('{"fraction": 0.4}')
        assert progress.moved([key]) == [(key, 0.4)]
        assert progress.moved([key]) == []
        progress.forget(key)
        assert not Path(path).exists() and progress.fraction(key) is None
    finally:
        progress.close()
