"""``bench/bot_ladder.py``: its schedule is fair to every seat, and a small run is whole."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from bench import bot_ladder

from dicehall.games import strengths


def test_every_bot_sits_at_every_place_equally() -> None:
    lineups = bot_ladder.lineups("bullseye", ["a", "b", "c", "d"], 6, seed=1)
    assert len(lineups) == 4 * 6
    places = Counter((bot, seat) for lineup in lineups for seat, bot in enumerate(lineup.bots))
    assert set(places.values()) == {6}
    assert len({lineup.seed for lineup in lineups}) == len(lineups)
    duel = bot_ladder.lineups("boss", ["a", "b", "c"], 4, seed=1)
    assert Counter(lineup.bots for lineup in duel)[("a", "b")] == 2


def test_a_small_run_prints_and_merges_its_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = tmp_path / "ladder.json"
    table.write_text(strengths.LADDER_PATH.read_text())
    assert bot_ladder.main(["--kinds", "boss", "--games", "4", "--write", str(table)]) == 0
    printed = json.loads(capsys.readouterr().out)
    boss = printed["kinds"]["boss"]
    assert boss["games"] == 6 * 4 and boss["seats"] == 2
    assert sum(row["games"] for row in boss["bots"].values()) == 2 * boss["games"]
    assert sum(row["win_share"] * row["games"] for row in boss["bots"].values()) == (
        pytest.approx(boss["games"])
    )
    # Listed strongest first: by share of the wins, as every reader of the table ranks them.
    assert list(boss["bots"]) == strengths.ranked(boss["bots"])
    shares = [row["win_share"] for row in boss["bots"].values()]
    assert shares == sorted(shares, reverse=True)
    stored = strengths.read_ladders(table)
    assert stored["boss"].games == 24 and "--games 4" in stored["boss"].command
    assert set(stored) == set(strengths.ladders()), "the other kinds are kept"


def test_a_bad_count_of_games_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        bot_ladder.main(["--games", "0"])
    assert "--games must be at least 1" in capsys.readouterr().err
