"""Id sequences: how far a table's ids have gone, and moving them past a value.

A restore uses these so that no id handed out after the backup is handed out again: SQLite's
``AUTOINCREMENT`` keeps the highest id in ``sqlite_sequence``; PostgreSQL keeps it in the
column's sequence. A SQLite table without ``AUTOINCREMENT`` hands out ``max(id) + 1`` and
cannot be moved without a row (:func:`can_move` says so).
"""

from __future__ import annotations

from sqlalchemy import Connection, Table, func, select, text

from dicehall.server.core.models import Base


def never_reuse_tables() -> list[Table]:
    """The tables whose ids must never be handed out twice (``NEVER_REUSE_IDS``)."""
    return [
        table
        for table in Base.metadata.sorted_tables
        if table.dialect_options["sqlite"].get("autoincrement")
    ]


def _max_id(conn: Connection, table: str) -> int:
    column = Base.metadata.tables[table].c.id
    return int(conn.execute(select(func.max(column))).scalar() or 0)


def _pg_sequence(conn: Connection, table: str) -> str | None:
    name = conn.execute(text("SELECT pg_get_serial_sequence(:t, 'id')"), {"t": table}).scalar()
    return None if name is None else str(name)


def can_move(conn: Connection, table: str) -> bool:
    """Whether :func:`move_past` can move ``table``'s ids without inserting a row."""
    if conn.dialect.name == "sqlite":
        return bool(Base.metadata.tables[table].dialect_options["sqlite"].get("autoincrement"))
    return _pg_sequence(conn, table) is not None


def last_id(conn: Connection, table: str) -> int:
    """The highest id ``table`` has handed out (0 before its first row)."""
    highest = _max_id(conn, table)
    if conn.dialect.name == "sqlite":
        seq = conn.execute(
            text("SELECT seq FROM sqlite_sequence WHERE name = :t"), {"t": table}
        ).scalar()
        return max(highest, int(seq or 0))
    sequence = _pg_sequence(conn, table)
    if sequence is None:
        return highest
    row = conn.execute(text(f"SELECT last_value, is_called FROM {sequence}")).one()
    return max(highest, int(row.last_value) if row.is_called else int(row.last_value) - 1)


def move_past(conn: Connection, table: str, value: int) -> int:
    """Make ``table``'s next id greater than ``value`` (never lower it); return the highest id
    now counted as handed out. Raises ValueError where it cannot (:func:`can_move`)."""
    if not can_move(conn, table):
        raise ValueError(f"the ids of {table} cannot be moved without a row")
    target = max(value, last_id(conn, table))
    if conn.dialect.name == "sqlite":
        updated = conn.execute(
            text("UPDATE sqlite_sequence SET seq = :v WHERE name = :t"), {"v": target, "t": table}
        ).rowcount
        if not updated:
            conn.execute(
                text("INSERT INTO sqlite_sequence (name, seq) VALUES (:t, :v)"),
                {"v": target, "t": table},
            )
        return target
    sequence = _pg_sequence(conn, table)
    if target > 0:
        conn.execute(text("SELECT setval(:s, :v, true)"), {"s": sequence, "v": target})
    return target
