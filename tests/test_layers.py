"""The site's layers import in one direction only (see CONTRIBUTING.md):
core <- domain <- workers <- {http, api, web}, and web never imports api."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SERVER = Path(__file__).resolve().parents[1] / "src/dicehall/server"

#: What each layer may import from the server package (besides itself).
ALLOWED: dict[str, set[str]] = {
    "core": set(),
    "domain": {"core"},
    "workers": {"core", "domain"},
    "http": {"core", "domain", "workers"},
    "api": {"core", "domain", "workers", "http"},
    "web": {"core", "domain", "workers", "http"},
}
#: Web frameworks stay out of the layers below the HTTP ones.
FRAMEWORKS = ("fastapi", "starlette", "uvicorn")


def imports_of(path: Path) -> set[str]:
    """Every module name ``path`` imports (absolute imports)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_a_layer_imports_only_the_layers_below_it(layer: str) -> None:
    wrong = []
    for path in sorted((SERVER / layer).rglob("*.py")):
        for name in imports_of(path):
            parts = name.split(".")
            if parts[:2] != ["dicehall", "server"] or len(parts) < 3:
                continue
            target = parts[2]
            if target in ALLOWED and target != layer and target not in ALLOWED[layer]:
                wrong.append(f"{path.relative_to(SERVER)} imports {name}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("layer", ["core", "domain", "workers"])
def test_no_web_framework_below_the_http_layers(layer: str) -> None:
    wrong = [
        f"{path.relative_to(SERVER)} imports {name}"
        for path in sorted((SERVER / layer).rglob("*.py"))
        for name in imports_of(path)
        if name.split(".")[0] in FRAMEWORKS
    ]
    assert not wrong, "\n".join(wrong)


def test_every_server_module_sits_in_a_layer() -> None:
    loose = sorted(p.name for p in SERVER.glob("*.py") if p.name != "__init__.py")
    # The composition root: it wires the layers together.
    assert loose == ["app.py", "asgi.py"]
