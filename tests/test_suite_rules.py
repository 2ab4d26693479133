"""Rules of the build and of the test suite itself: the environment is exactly the lock, and
no test sleeps to synchronise (it waits for a condition through ``tests/waiting.py``)."""

from __future__ import annotations

import ast
import importlib.metadata
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.table_store import ROOT

TESTS = ROOT / "tests"
#: The one module that may sleep: between the tries of a wait.
POLLING_HELPER = TESTS / "waiting.py"


def _uv() -> str:
    found = ROOT / ".tools/bin/uv"
    if found.exists():
        return str(found)
    on_path = shutil.which("uv")
    assert on_path, "uv is missing: `make setup` installs it in .tools"
    return on_path


def locked_packages() -> dict[str, str]:
    """What uv.lock installs for ``--extra dev`` on this interpreter and platform."""
    exported = subprocess.run(
        [_uv(), "export", "--frozen", "--extra", "dev", "--no-hashes", "--no-emit-project",
         "--no-header", "--format", "requirements.txt"],
        cwd=ROOT, capture_output=True, text=True, check=True,
        env={**os.environ, "UV_PYTHON_DOWNLOADS": "never"},
    ).stdout  # fmt: skip
    wanted: dict[str, str] = {}
    for line in exported.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        requirement = Requirement(line)
        if requirement.marker is not None and not requirement.marker.evaluate():
            continue
        (pin,) = requirement.specifier
        assert pin.operator == "==", line
        wanted[canonicalize_name(requirement.name)] = pin.version
    return wanted


def installed_packages() -> dict[str, str]:
    """Every distribution in this interpreter's environment but the project itself."""
    found: dict[str, str] = {
        canonicalize_name(dist.metadata["Name"]): dist.version
        for dist in importlib.metadata.distributions()
    }
    found.pop("dicehall", None)
    return found


def test_the_environment_is_exactly_the_lock() -> None:
    assert sys.prefix != sys.base_prefix, "the tests run in the project's venv"
    wanted, installed = locked_packages(), installed_packages()
    assert len(wanted) > 50  # the export read the lock
    missing = {name: v for name, v in wanted.items() if installed.get(name) != v}
    extra = {name: v for name, v in installed.items() if name not in wanted}
    assert not missing, f"the lock names these, not installed at that version: {missing}"
    assert not extra, f"installed, but not in the lock: {extra}"


def sleeps_in(path: Path, root: Path = ROOT) -> list[str]:
    """Every call of a function named ``sleep`` in ``path`` but ``asyncio.sleep(0)``, which
    only lets the event loop run other tasks."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.attr if isinstance(node.func, ast.Attribute) else None
        if isinstance(node.func, ast.Name):
            name = node.func.id
        if name != "sleep":
            continue
        yields = (
            len(node.args) == 1
            and isinstance(node.args[0], ast.Constant)
            and node.args[0].value == 0
        )
        if not yields:
            found.append(f"{path.relative_to(root)}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_no_test_sleeps_outside_the_polling_helper() -> None:
    found = [
        line
        for path in sorted(TESTS.rglob("*.py"))
        if path != POLLING_HELPER
        for line in sleeps_in(path)
    ]
    assert not found, "wait for a condition with tests.waiting instead:\n" + "\n".join(found)


def test_the_sleep_finder_finds_each_spelling(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        # Spelled through a name, so that a grep of the tests finds no sleep here either.
        "import asyncio, time\nfrom time import {nap}\n"
        "async def f():\n"
        "    time.{nap}(0.2)\n    {nap}(3)\n    await asyncio.{nap}(0.3)\n"
        "    await asyncio.{nap}(0)\n".format(nap="sleep")
    )
    found = sleeps_in(sample, tmp_path)
    assert [line.split(":")[1] for line in found] == ["4", "5", "6"]


STUCK_IN_NATIVE_CODE = """
import numba
import pytest


@numba.njit("f8(f8)", cache=False)  # compiled as the module is collected, not in the test
def spin(x):
    while x < 1e300:  # hours of float work that LLVM cannot skip, and no Python in between
        x = x * 1.0000000001 + 1e-12
    return x


@pytest.fixture
def stuck():
    return spin(1.0)


def test_behind_a_stuck_setup(stuck):
    assert stuck
"""


def test_the_suite_runs_under_the_hard_time_limit(request: pytest.FixtureRequest) -> None:
    assert request.config.pluginmanager.hasplugin("tests.hard_timeout")
    assert request.config.getini("timeout_method") == "thread"


def test_a_setup_stuck_in_native_code_fails_at_the_time_limit(tmp_path: Path) -> None:
    # The suite's own settings (pyproject.toml), with the limit cut to a few seconds.
    (tmp_path / "test_stuck.py").write_text(STUCK_IN_NATIVE_CODE)
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-c", str(ROOT / "pyproject.toml"), "--rootdir",
         str(tmp_path), "-p", "no:cacheprovider", "-p", "tests.hard_timeout",
         "-o", "timeout=3", "-o", "hard_timeout_grace=1", str(tmp_path)],
        capture_output=True, text=True, timeout=90, cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    out = run.stdout + run.stderr
    assert run.returncode != 0, out
    assert "Timeout (0:00:04)!" in out, out
    assert "in stuck" in out, out  # the stack of the stuck setup is shown
