"""Parsing dice written by people: ``1,2,2,2,4,5``."""

from __future__ import annotations

from dicehall.engine.errors import InvalidInput


def parse_faces(
    text: str,
    *,
    count: int | None = None,
    min_count: int = 0,
    max_count: int | None = None,
    what: str = "dice",
) -> tuple[int, ...]:
    """Faces 1..6 from comma- or space-separated text; wrong faces or counts raise."""
    parts = [p for p in text.replace(",", " ").split() if p]
    faces: list[int] = []
    for part in parts:
        if not part.isdigit() or not 1 <= int(part) <= 6:
            raise InvalidInput(f"{what}: {part!r} is not a die face (1 to 6)")
        faces.append(int(part))
    n = len(faces)
    if count is not None and n != count:
        raise InvalidInput(f"{what}: expected {count} dice, got {n}")
    if n < min_count:
        raise InvalidInput(f"{what}: expected at least {min_count} dice, got {n}")
    if max_count is not None and n > max_count:
        raise InvalidInput(f"{what}: expected at most {max_count} dice, got {n}")
    return tuple(faces)
