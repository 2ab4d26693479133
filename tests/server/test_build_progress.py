"""A slow bot's warm-up estimate follows its table build: the build writes its fraction done,
the driver reads it (and tells it to web processes without bot workers)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

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
    # Declared 75 s; 20 s in and a quarter done: 60 s left at the pace so far.
    assert eta_seconds(75, 20.0, 0.25) == 60
    # Too little told yet, or nothing: the declared cold start less the time spent.
    assert eta_seconds(75, 20.0, 0.01) == 55
    assert eta_seconds(75, 20.0, None) == 55
    assert eta_seconds(75, 100.0, None) == 1
    moment = now()
    report = bot_tables.Warmth(moment - timedelta(seconds=30), None, 0.5)
    assert eta("tenthousand", "optimal", report, moment) == 30
    assert eta("tenthousand", "optimal", None, moment) == 75


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
