"""Where two JSON values first differ: a key path and the two values, for a person to read.

Used where a stored record meets a fresh computation of it (``dicehall check`` replaying a
game against its snapshot, the golden playthroughs against the rules as they are now).
"""

from __future__ import annotations

import json
from typing import Any

#: Values longer than this are cut in a report.
SHOWN = 80


def first_difference(
    old: Any, new: Any, path: str = "$", *, old_name: str = "stored", new_name: str = "replayed"
) -> str | None:
    """The first place, keys in sorted order, where ``new`` differs from ``old``: e.g.
    ``"$.banked[0]: stored 550, replayed 500"``; None when they are equal (``True`` and
    ``1`` differ)."""
    if isinstance(old, dict) and isinstance(new, dict):
        for key in sorted(set(old) | set(new)):
            if key not in new:
                return f"{path}.{key}: only {old_name}"
            if key not in old:
                return f"{path}.{key}: only {new_name}"
            found = first_difference(
                old[key], new[key], f"{path}.{key}", old_name=old_name, new_name=new_name
            )
            if found is not None:
                return found
        return None
    if isinstance(old, list) and isinstance(new, list):
        for index, (a, b) in enumerate(zip(old, new, strict=False)):
            found = first_difference(a, b, f"{path}[{index}]", old_name=old_name, new_name=new_name)
            if found is not None:
                return found
        if len(old) != len(new):
            return f"{path}: {len(old)} items {old_name}, {len(new)} {new_name}"
        return None
    if old == new and type(old) is type(new):
        return None
    return f"{path}: {old_name} {_short(old)}, {new_name} {_short(new)}"


def _short(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= SHOWN else text[: SHOWN - 3] + "..."
