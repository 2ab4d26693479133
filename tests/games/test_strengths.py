"""The bot ladder's table: the shipped one is whole and current, and bad tables are refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dicehall import games
from dicehall.games import strengths


def test_the_shipped_table_rates_every_bot_of_every_rating_kind() -> None:
    ladders = strengths.ladders()
    # dicehall's own kinds (the bench plays no plug-in game).
    own = {kind.name for name in games.NAMES for kind in games.get(name).rated_kinds()}
    assert set(ladders) == own, "run python bench/bot_ladder.py --write"
    for kind, ladder in ladders.items():
        entry = games.get(ladder.game)
        assert {s.bot for s in ladder.bots} == set(entry.bots), (
            f"{kind}: the table is stale (bots added or gone): run "
            f"python bench/bot_ladder.py --kinds {kind} --write"
        )
        assert [s.place for s in ladder.bots] == list(range(1, len(ladder.bots) + 1))
        for found in ladder.bots:
            assert found.rating_low <= found.rating <= found.rating_high
            assert found.win_share_low <= found.win_share <= found.win_share_high
            assert 0 < found.games <= ladder.games
        assert ladder.command.startswith("python bench/bot_ladder.py")


def test_random_is_the_weakest_bot_on_every_ladder() -> None:
    for ladder in strengths.ladders().values():
        assert ladder.bots[-1].bot == "random", ladder.kind


def test_boatzee_has_a_ladder_per_column_count_and_strength_reads_the_first() -> None:
    kinds = [ladder.kind for ladder in strengths.ladders_of("boatzee")]
    assert kinds == ["boatzee", "boatzee-double", "boatzee-triple"]
    found = strengths.strength("boatzee", "random")
    assert found is not None and found.kind == "boatzee"
    assert strengths.strength("boatzee", "no such bot") is None


def test_a_missing_table_is_no_ladders(tmp_path: Path) -> None:
    assert strengths.read_ladders(tmp_path / "absent.json") == {}


@pytest.mark.parametrize(
    "text",
    ["not json", json.dumps({"version": 99, "kinds": {}}), json.dumps({"version": 1})],
)
def test_a_broken_table_is_refused_with_its_path(tmp_path: Path, text: str) -> None:
    path = tmp_path / "bot_ladder.json"
    path.write_text(text)
    with pytest.raises(ValueError, match=r"bot ladder table .*bot_ladder\.json is unreadable"):
        strengths.read_ladders(path)


def test_a_table_row_missing_a_figure_is_refused(tmp_path: Path) -> None:
    data = json.loads(strengths.LADDER_PATH.read_text())
    kind = next(iter(data["kinds"].values()))
    del next(iter(kind["bots"].values()))["rating_low"]
    path = tmp_path / "bot_ladder.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match="rating_low"):
        strengths.read_ladders(path)


def test_line_and_json_carry_the_figures() -> None:
    found = strengths.ladders()["boss"].bots[0]
    assert str(found.rating) in found.line() and f"{found.games} ladder games" in found.line()
    assert found.to_json()["rating_high"] == found.rating_high
