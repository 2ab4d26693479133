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


def test_every_ladder_ranks_by_share_of_the_wins() -> None:
    """Issue 36: Bull's Eye's ``potmax`` (rated higher) was placed above ``optimal``, which
    wins more of the same games. Strongest first means by share of the wins, everywhere."""
    for kind, ladder in strengths.ladders().items():
        shares = [s.win_share for s in ladder.bots]
        assert shares == sorted(shares, reverse=True), kind
    bullseye = [s.bot for s in strengths.ladders()["bullseye"].bots]
    assert bullseye.index("optimal") < bullseye.index("potmax")
    # The stored table lists them in the same order (bench/bot_ladder.py writes it so).
    stored = json.loads(strengths.LADDER_PATH.read_text())["kinds"]
    for kind, ladder in strengths.ladders().items():
        assert list(stored[kind]["bots"]) == [s.bot for s in ladder.bots], kind


def test_equal_shares_are_ranked_by_rating_then_name() -> None:
    rows = {
        "b": {"win_share": 0.4, "mu": 30.0},
        "a": {"win_share": 0.4, "mu": 30.0},
        "hi": {"win_share": 0.4, "mu": 31.0},
        "top": {"win_share": 0.5, "mu": 20.0},
    }
    assert strengths.ranked(rows) == ["top", "hi", "a", "b"]


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
    # The share, the figure the ladder ranks by, with its interval beside the rating.
    share = (
        f"wins {100 * found.win_share:.1f}% ({100 * found.win_share_low:.1f} .. "
        f"{100 * found.win_share_high:.1f}%) of {found.games}"
    )
    assert found.short().startswith(share) and found.line().startswith(share)
    assert f"rated {found.rating} ({found.rating_low} .. {found.rating_high})" in found.short()
    assert found.to_json()["rating_high"] == found.rating_high
