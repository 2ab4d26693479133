"""``dicehall verify-dice``: one-line errors for any file, and an honest account of the check."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dicehall.server.domain.dice.pool import commitment_of
from tests.conftest import CliResult, CliRunner

SETS = ["123456", "666111", "245135"]
SALT = "ab" * 32


def batch(**changes: object) -> dict[str, Any]:
    """A revealed batch as the site serves it, with ``changes`` applied."""
    data: dict[str, Any] = {
        "batch": 1,
        "commitment": commitment_of(SALT, SETS),
        "salt": SALT,
        "first_set": 1,
        "sets": SETS,
        "served_to": [3, 3, 4],
    }
    data.update(changes)
    return data


def run_on(cli: CliRunner, tmp_path: Path, text: str | bytes, *flags: str) -> CliResult:
    path = tmp_path / "batch.json"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return cli("verify-dice", str(path), *flags)


def assert_one_line_error(result: CliResult, fragment: str) -> None:
    assert result.code == 2, result
    assert result.out == ""
    assert result.err.startswith("error: ") and result.err.count("\n") == 1, result.err
    assert fragment in result.err


def test_ok_says_what_was_checked_and_what_was_not(cli: CliRunner, tmp_path: Path) -> None:
    result = run_on(cli, tmp_path, json.dumps(batch()))
    assert result.code == 0
    lines = result.out.splitlines()
    assert lines[0] == f"OK: 3 sets match commitment {commitment_of(SALT, SETS)}"
    assert "checked: SHA-256 of the salt and the sets, in order, against the commitment" in lines
    assert any(line.startswith("checked: shapes: ") and "first_set" in line for line in lines)
    assert any(
        line.startswith("not checked: first_set, served_to (not covered by the commitment)")
        for line in lines
    )


def test_tampered_sets_are_a_mismatch(cli: CliRunner, tmp_path: Path) -> None:
    result = run_on(cli, tmp_path, json.dumps(batch(sets=["123456", "666111", "245136"])))
    assert result.code == 1
    assert result.out.startswith("MISMATCH: the sets hash to ")
    assert "not checked: first_set, served_to" in result.out


def test_tampered_first_set_and_served_to_are_not_claimed_as_verified(
    cli: CliRunner, tmp_path: Path
) -> None:
    # The commitment does not cover them: a changed value still matches, and the output
    # must say so rather than imply they were verified.
    result = run_on(cli, tmp_path, json.dumps(batch(first_set=999, served_to=[7, 8, 9])))
    assert result.code == 0
    assert "not checked: first_set, served_to (not covered by the commitment)" in result.out


def test_json_output(cli: CliRunner, tmp_path: Path) -> None:
    good = json.loads(run_on(cli, tmp_path, json.dumps(batch()), "--json").out)
    assert good["result"] == "OK" and good["ok"] is True and good["sets"] == 3
    assert good["batch"] == 1 and good["computed"] == good["commitment"]
    assert any("first_set, served_to" in line for line in good["not_checked"])
    bad = run_on(cli, tmp_path, json.dumps(batch(salt="cd" * 32)), "--json")
    assert bad.code == 1 and json.loads(bad.out)["result"] == "MISMATCH"


def test_non_ascii_salt(cli: CliRunner, tmp_path: Path) -> None:
    assert_one_line_error(run_on(cli, tmp_path, json.dumps(batch(salt="sél"))), "'salt'")


def test_lone_surrogate(cli: CliRunner, tmp_path: Path) -> None:
    # json.dumps writes the escape \ud800, which json.loads turns into a lone surrogate.
    assert_one_line_error(run_on(cli, tmp_path, json.dumps(batch(salt="\ud800"))), "'salt'")
    result = run_on(cli, tmp_path, json.dumps(batch(sets=["12345\ud800"])))
    assert_one_line_error(result, "is not six faces")
    result = run_on(cli, tmp_path, json.dumps(batch(commitment="\ud800" * 64)))
    assert_one_line_error(result, "'commitment'")


def test_deeply_nested_json(cli: CliRunner, tmp_path: Path) -> None:
    assert_one_line_error(run_on(cli, tmp_path, "[" * 100_000 + "]" * 100_000), "nested")
    deep = '{"salt": ' + "[" * 100_000 + "]" * 100_000 + "}"
    assert_one_line_error(run_on(cli, tmp_path, deep), "nested")


def test_undecodable_bytes(cli: CliRunner, tmp_path: Path) -> None:
    assert_one_line_error(run_on(cli, tmp_path, b'{"salt": "\xff\xfe\xfd"}'), "is not JSON")


def test_markup_in_a_file_name_prints_as_it_is(cli: CliRunner, tmp_path: Path) -> None:
    result = cli("verify-dice", str(tmp_path / "[/bold]x.json"))
    assert_one_line_error(result, "[/bold]x.json")


def test_malformed_first_set_and_served_to(cli: CliRunner, tmp_path: Path) -> None:
    cases: list[tuple[dict[str, Any], str]] = [
        (batch(first_set=-1), "'first_set'"),
        (batch(first_set="1"), "'first_set'"),
        (batch(first_set=True), "'first_set'"),
        (batch(first_set=None), "'first_set'"),
        (batch(served_to=[1, 2]), "'served_to' names 2 games for 3 sets"),
        (batch(served_to=[1, 2, 3, 4]), "'served_to' names 4 games for 3 sets"),
        (batch(served_to=[1, -2, 3]), "'served_to'"),
        (batch(served_to=[1, "2", 3]), "'served_to'"),
        (batch(served_to="1,2,3"), "'served_to'"),
        (batch(batch=-1), "'batch'"),
        (batch(commitment="zz" * 32), "'commitment'"),
        (batch(commitment="ab"), "'commitment'"),
    ]
    for data, fragment in cases:
        assert_one_line_error(run_on(cli, tmp_path, json.dumps(data)), fragment)


def test_unserved_sets_may_name_no_game(cli: CliRunner, tmp_path: Path) -> None:
    assert run_on(cli, tmp_path, json.dumps(batch(served_to=[None, 3, None]))).code == 0


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    field=st.sampled_from(["salt", "commitment", "sets", "first_set", "served_to", "batch"]),
    value=json_values,
)
def test_any_value_in_any_field_gives_a_verdict_or_one_line(
    cli: CliRunner, tmp_path: Path, field: str, value: object
) -> None:
    result = run_on(cli, tmp_path, json.dumps(batch(**{field: value})))
    if result.code == 2:
        assert result.err.startswith("error: ") and result.err.count("\n") == 1
    else:
        assert result.code in (0, 1) and result.err == ""
        assert "not checked: first_set, served_to" in result.out


def test_withheld_sets_are_said_to_leave_the_commitment_unchecked(
    cli: CliRunner, tmp_path: Path
) -> None:
    """A batch with a withheld set (a folded pocket's dice) cannot be hashed: never OK."""
    withheld = batch(sets=["123456", None, "245135"], withheld=[1])
    result = run_on(cli, tmp_path, json.dumps(withheld))
    assert result.code == 1
    assert result.out.startswith("WITHHELD: 1 of 3 sets are withheld")
    assert "not checked: SHA-256 of the salt and the sets against the commitment" in result.out
    as_json = json.loads(run_on(cli, tmp_path, json.dumps(withheld), "--json").out)
    assert (as_json["result"], as_json["ok"], as_json["withheld"]) == ("WITHHELD", False, 1)


def test_withheld_must_name_exactly_the_null_sets(cli: CliRunner, tmp_path: Path) -> None:
    for changes in (
        {"sets": ["123456", None, "245135"]},
        {"sets": ["123456", None, "245135"], "withheld": [0]},
        {"withheld": [1]},
        {"withheld": "1"},
        {"withheld": [True]},
    ):
        assert_one_line_error(run_on(cli, tmp_path, json.dumps(batch(**changes))), "withheld")


def test_sets_never_seen_at_the_table_are_shown_and_checked(cli: CliRunner, tmp_path: Path) -> None:
    """An old batch shows the sets its tables never saw once their games are over: the
    batch is then checked whole, and says how many of its sets were never seen."""
    shown = batch(unseen=[1])
    result = run_on(cli, tmp_path, json.dumps(shown))
    assert result.code == 0, result.out
    assert result.out.startswith("OK: ") and "1 of them never seen at the table" in result.out
    as_json = json.loads(run_on(cli, tmp_path, json.dumps(shown), "--json").out)
    assert (as_json["result"], as_json["unseen"]) == ("OK", 1)
    for bad in ([3], [-1], "1", [None]):
        assert_one_line_error(run_on(cli, tmp_path, json.dumps(batch(unseen=bad))), "unseen")
