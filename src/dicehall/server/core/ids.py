"""Row ids: the range every supported database can store."""

from __future__ import annotations

#: The largest id any table can hold on every supported database (PostgreSQL ``integer``).
DB_ID_MAX = 2**31 - 1


def in_id_range(value: int) -> bool:
    """Whether ``value`` can be the id of a stored row."""
    return 1 <= value <= DB_ID_MAX


def id_in(text: str) -> int | None:
    """The row id ``text`` spells (ASCII digits, in range, surrounding spaces allowed), or
    None: never an error, whatever a form or a query string holds."""
    digits = text.strip()
    if not (digits.isascii() and digits.isdigit()) or len(digits) > 10:
        return None
    value = int(digits)
    return value if in_id_range(value) else None
