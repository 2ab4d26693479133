"""An unusable data directory is one clear error line (exit 2) for every command that needs
it, and a command never claims to have saved what it could not write."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import CliRunner

NEEDS_THE_DATA_DIRECTORY = [
    ("hint", "boatzee", "--dice", "1,1,2,3,4", "--rolls-left", "2"),
    ("hint", "tenthousand", "--roll", "1,5,2,3,4,6"),
    ("solve", "boatzee"),
    ("solve", "boss"),
    ("solve", "tenthousand"),
    ("sim", "boatzee", "--bots", "optimal", "-n", "1"),
    ("sim", "tenthousand", "--bots", "optimal,heuristic", "-n", "1"),
    ("play", "boatzee", "--seats", "you,bot:optimal"),
    ("serve",),
]


@pytest.mark.parametrize("args", NEEDS_THE_DATA_DIRECTORY, ids=" ".join)
def test_a_data_directory_that_is_a_file_is_one_clear_error(
    cli: CliRunner, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, args: tuple[str, ...]
) -> None:
    not_a_directory = tmp_path / "data"
    not_a_directory.write_text("a file, not a directory")
    monkeypatch.setenv("DICEHALL_DATA", str(not_a_directory))
    result = cli(*args, input="")
    assert result.code == 2, (result.out, result.err)
    assert result.err.count("\n") == 1, result.err
    assert f"error: DICEHALL_DATA ({not_a_directory}) is not a directory" in result.err
    assert "Traceback" not in result.out + result.err
    assert "saved" not in result.out


def test_commands_that_need_no_tables_do_not_ask_for_the_data_directory(
    cli: CliRunner, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    not_a_directory = tmp_path / "data"
    not_a_directory.write_text("")
    monkeypatch.setenv("DICEHALL_DATA", str(not_a_directory))
    assert cli("sim", "tenthousand", "--bots", "heuristic,random", "-n", "2").code == 0
    assert cli("hint", "tenthousand", "--roll", "1,5,2,3,4,6", "--solo").code == 0


def test_solve_boss_never_claims_a_save_it_could_not_make(
    cli: CliRunner, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from dicehall.games.boss import equilibrium_store

    def refused(*args: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setenv("DICEHALL_DATA", str(tmp_path))
    monkeypatch.setattr(equilibrium_store, "save", refused)
    equilibrium_store.forget()
    try:
        result = cli("solve", "boss")
    finally:
        equilibrium_store.forget()
    assert result.code == 0, result.err
    assert "saved to" not in result.out.replace("\n", " ").replace("could not be saved to", "")
    assert "solved, but it could not be saved to" in result.out.replace("\n", " ")


def test_a_file_that_cannot_be_written_is_one_line_naming_it(
    cli: CliRunner, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from dicehall.games.tenthousand import cache

    def refused(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied", str(tmp_path / "tables.npz"))

    monkeypatch.setenv("DICEHALL_DATA", str(tmp_path))
    monkeypatch.setattr(cache, "solution", refused)
    result = cli("solve", "tenthousand")
    assert result.code == 2
    assert result.err == f"error: Permission denied ({tmp_path / 'tables.npz'})\n"
