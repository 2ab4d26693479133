"""Replay every golden playthrough and compare it, step by step, with its stored file."""

from __future__ import annotations

import json
from typing import Any

import pytest

from dicehall.engine import jsondiff
from tests.golden.record import GOLDEN_DIR, SPECS, Spec, dumps, record

HINT = "if the change is intended, run `make golden` and review the diff before committing"


def first_difference(stored: Any, actual: Any, path: str = "$") -> str | None:
    """The key path of the first place ``actual`` differs from ``stored``, or None."""
    return jsondiff.first_difference(stored, actual, path, new_name="now")


def test_first_difference_names_the_path() -> None:
    """The helper reports the first differing key path, in sorted key order."""
    assert first_difference({"a": [1, {"b": 2}]}, {"a": [1, {"b": 2}]}) is None
    assert first_difference({"a": [1, {"b": 2}]}, {"a": [1, {"b": 3}]}) == (
        "$.a[1].b: stored 2, now 3"
    )
    assert first_difference({"a": 1, "z": 1}, {"a": 2, "z": 2}) == "$.a: stored 1, now 2"
    assert first_difference({"a": [1]}, {"a": [1, 2]}) == "$.a: 1 items stored, 2 now"
    assert first_difference({"a": 1}, {"b": 1}) == "$.a: only stored"
    assert first_difference([True], [1]) == "$[0]: stored true, now 1"


def test_every_spec_has_its_own_file() -> None:
    """Spec file names are unique, cover every game, and no stray golden file is left."""
    from dicehall.games import NAMES

    names = [spec.file_name for spec in SPECS]
    assert len(names) == len(set(names))
    assert {spec.game for spec in SPECS} == set(NAMES)
    stored = {path.name for path in GOLDEN_DIR.glob("*.json")}
    assert stored == set(names), f"golden files and specs differ; {HINT}"


def _compare(where: str, stored: Any, actual: Any, path: str, step: int | None = None) -> None:
    """Fail, naming the file, the step and the first differing key path, if they differ."""
    difference = first_difference(stored, actual, path)
    if difference is not None:
        at = "" if step is None else f"step {step} "
        pytest.fail(f"{where}: {at}differs at {difference}; {HINT}", pytrace=False)


@pytest.mark.parametrize("spec", SPECS, ids=[spec.file_name for spec in SPECS])
def test_playthrough_matches_golden_file(spec: Spec) -> None:
    """Replaying the spec gives exactly the stored events, views and legal actions."""
    where = f"tests/golden/{spec.file_name}"
    path = GOLDEN_DIR / spec.file_name
    assert path.exists(), f"{where} is missing; {HINT}"
    text = path.read_text()
    stored = json.loads(text)
    fresh = dumps(record(spec))
    actual = json.loads(fresh)  # JSON against JSON, exactly as it would be stored

    def header(data: dict[str, Any]) -> dict[str, Any]:
        return {key: value for key, value in data.items() if key not in ("steps", "result")}

    _compare(where, header(stored), header(actual), "$")
    old_steps, new_steps = stored.get("steps", []), actual["steps"]
    for index, (old, new) in enumerate(zip(old_steps, new_steps, strict=False)):
        _compare(where, old, new, f"steps[{index}]", step=index)
    if len(old_steps) != len(new_steps):
        pytest.fail(f"{where}: {len(old_steps)} steps stored, {len(new_steps)} now; {HINT}")
    _compare(where, stored.get("result"), actual["result"], "$.result")
    if text != fresh:
        pytest.fail(f"{where} is not laid out as the recorder writes it; {HINT}")
