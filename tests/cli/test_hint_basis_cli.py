"""``dicehall hint`` says what its figures rest on, in the words of the site's hint panel."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import CliRunner
from tests.games.boatzee.solved import solved, solved_dir

__all__ = ["solved", "solved_dir"]

CASES = [
    ("bullseye", "--target", "27", "--total", "12", "--throws", "1"),
    ("boss", "--roll", "3,3,6,2,1", "--boss-kept", "6,6"),
    ("boss", "--call", "--roll", "3,3,6,2,1", "--boss-kept", "6,6", "--boss", "6,6,5,5,1"),
    ("holdem", "--pocket", "6r,6k", "--board", "6w,2y,3r"),
    ("holdem", "--pocket", "6r,6k", "--opponents", "5"),
    ("tenthousand", "--roll", "1,2,2,2,4,5", "--turn", "100", "--solo"),
]


def _words(text: str) -> str:
    return " ".join(text.split())  # the terminal may wrap a long line


@pytest.mark.parametrize("args", CASES, ids=lambda args: " ".join(args[:2]))
def test_the_table_names_the_same_basis_as_the_json(cli: CliRunner, args: tuple[str, ...]) -> None:
    found = cli("hint", *args, "--json")
    assert found.code == 0, found.err
    hint = json.loads(found.out)
    table = cli("hint", *args)
    assert table.code == 0, table.err
    assert _words(hint["basis_text"]) in _words(table.out)


def test_boatzee_table_names_the_solved_tables(cli: CliRunner, solved: Path) -> None:
    args = ("boatzee", "--dice", "1,1,2,3,4", "--rolls-left", "2")
    hint = json.loads(cli("hint", *args, "--json").out)
    assert hint["basis"] == "exact"
    assert _words(hint["basis_text"]) in _words(cli("hint", *args).out)


def test_ten_thousand_against_an_opponent_says_its_own_basis(
    cli: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DICEHALL_DATA", str(tmp_path))  # the solve goes to a scratch directory
    args = ("tenthousand", "--roll", "1,2,2,2,4,5", "--banked", "300", "--opponent", "700")
    small = ("-o", "target=1500", "-o", "entry_threshold=500")
    out = _words(cli("hint", *args, *small).out)
    assert "Exact: the chance to win under best play by both" in out
