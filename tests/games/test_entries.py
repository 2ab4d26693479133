"""Every game is one declared entry, found through the ``dicehall.games`` entry points;
importing a game's rules or entry loads no solver stack."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from dicehall import games
from dicehall.games.entry import GameEntry, LazyBots
from tests.conftest import CliRunner

HEAVY = ("scipy", "numba", "matplotlib", "numpy", "fastapi", "sqlalchemy", "uvicorn")


@pytest.mark.parametrize("target", [f"dicehall.games.{n}.rules" for n in games.NAMES])
def test_importing_a_games_rules_loads_no_solver_stack(target: str) -> None:
    code = f"import sys, {target}; print([m for m in {HEAVY!r} if m in sys.modules])"
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert json.loads(loaded.replace("'", '"')) == []


def test_every_entry_loads_no_solver_stack_until_a_bot_or_hint_is_asked_for() -> None:
    code = (
        "import sys; from dicehall import games\n"
        "entries = [games.get(n) for n in games.NAMES]\n"
        "names = [sorted(e.bots) for e in entries]\n"
        f"print([m for m in {HEAVY!r} if m in sys.modules])"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert json.loads(loaded.replace("'", '"')) == []


@pytest.mark.parametrize("name", games.NAMES)
def test_each_game_declares_one_entry(name: str) -> None:
    entry = games.get(name)
    assert isinstance(entry, GameEntry) and entry.name == name
    assert entry.blurb and entry.rules
    assert "random" in entry.bots
    assert set(entry.slow_bots) <= set(entry.bots)
    for slow in entry.slow_bots.values():
        assert slow.fallback in entry.bots
    assert entry.seat_hint() is not None


def test_lazy_bots_import_their_module_only_when_asked() -> None:
    bots = LazyBots("dicehall.games.no_such_module", {"clever": "CleverBot"})
    assert sorted(bots.with_random()) == ["clever", "random"]
    assert len(bots) == 1
    with pytest.raises(ModuleNotFoundError):
        bots["clever"]


@pytest.mark.usefixtures("installed_pig")
def test_an_installed_game_appears_through_its_entry_point(cli: CliRunner) -> None:
    assert games.available()[: len(games.NAMES)] == games.NAMES
    assert "pig" in games.available()
    entry = games.get("Pig")
    assert entry.game.title and entry.blurb.startswith("The smallest")
    # The command line offers it like the five.
    shown = cli("rules", "pig")
    assert shown.code == 0 and "never roll" not in shown.err
    assert "hold to bank the rest" in shown.out


def test_without_the_distribution_the_game_is_gone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(games._EXTRA, "pig", raising=False)
    games.refresh()
    assert "pig" not in games.available()


def test_asking_whether_a_game_has_a_bot_imports_no_bot_module() -> None:
    """Listing a game's bots (the API's kinds, the new-game form, seat checks) must not
    import their modules: some load solvers and their numeric stacks."""
    import subprocess
    import sys

    script = (
        "import sys\n"
        "from dicehall import games\n"
        "for name in games.available():\n"
        "    entry = games.get(name)\n"
        "    entry.ranked_bots(); entry.autopilot_bot(); 'heuristic' in entry.bots\n"
        "loaded = [m for m in sys.modules\n"
        "          if m.startswith('dicehall.games.') and m.endswith('.bots') or m == 'numba']\n"
        "print(','.join(sorted(loaded)))\n"
    )
    found = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert found == "", found
