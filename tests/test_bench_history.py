"""``bench/history.py``: its players' games are shared out evenly, and a toy run is whole."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from bench import history


def test_every_player_gets_the_same_share_of_games() -> None:
    pairs = history.pairs_large(16, 120 * 4)
    per_player = Counter(player for pair in pairs for player in pair)
    assert set(per_player.values()) == {120 * 4 * 2 // 16}
    assert all(a != b for a, b in pairs)
    small = history.pairs_small(16, 48)
    assert all(pair[0] == 0 for pair in small) and len({pair[1] for pair in small}) == 15


def test_the_crowd_plays_among_the_players_games_in_turn() -> None:
    games = history.schedule(history.pairs_large(4, 60), 4, 10)
    assert len(games) == 60 + 5
    crowd = [index for index, (pair, _) in enumerate(games) if pair[0] >= 4]
    assert sorted(pair for pair, _ in games if pair[0] >= 4) == [
        (4, 5),
        (6, 7),
        (8, 9),
        (10, 11),
        (12, 13),
    ]
    assert crowd[0] > 0 and crowd[-1] < len(games) - 1, "spread among the others"
    mine = [kind for pair, kind in games if 0 in pair]
    assert mine.count("tenthousand") == 18 and mine.count("boss") == mine.count("boatzee") == 6


def test_each_players_newest_games_keep_their_events() -> None:
    pairs = history.pairs_large(4, 1000)
    kept = history._with_events(pairs)
    for player in range(4):
        mine = [index for index, pair in enumerate(pairs) if player in pair]
        assert set(mine[-history.EVENT_GAMES :]) <= kept
    assert 0 not in kept


@pytest.mark.slow
def test_a_toy_run_prints_every_endpoint(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--db", "sqlite", "--games", "48", "--small", "24", "--players", "2", "--crowd", "4"]
    assert history.main([*argv, "--requests", "2", "--rounds", "2", "--warmup", "1"]) == 0
    printed = json.loads(capsys.readouterr().out)
    sqlite = printed["backends"]["sqlite"]
    assert sqlite["sizes"]["small"]["player_games"] == 24
    assert sqlite["sizes"]["large"]["player_games"] == 48
    assert sqlite["sizes"]["large"]["rows"]["seat_results"] == 2 * (48 + 2)
    assert set(sqlite["endpoints"]) == set(history.ENDPOINTS)
    for row in [*sqlite["endpoints"].values(), *sqlite["extra"].values()]:
        assert row["small_p50_ms"] > 0 and row["large_p50_ms"] > 0
        assert len(row["per_round_ratios"]) == 2
        assert row["met"] == (row["ratio"] <= history.TARGET)
    assert printed["all_met"] == sqlite["met"]


def test_a_page_or_less_of_games_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        history.main(["--small", "20"])
    assert "more than a page" in capsys.readouterr().err
