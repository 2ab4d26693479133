"""The public log of batch commitments: append a record, read records in order.

Appends run only while the caller holds the dice pool's cursor (every top-up does: dice
batches under their own cursor, bag batches take it first), so records are numbered without
gaps and each names the hash of the one before, on any number of processes.
"""

from __future__ import annotations

import json
from typing import Any, Literal, cast

from sqlalchemy import Connection, Table, func, insert, select

from dicehall.fairness.chain import GENESIS, canonical, record_hash
from dicehall.server.core.clock import now
from dicehall.server.core.models import FairnessRecord
from dicehall.server.domain.dice import logtree

LOG = cast(Table, FairnessRecord.__table__)
#: The most records one read returns.
PAGE = 500


def append(
    conn: Connection, kind: Literal["dice", "bags"], batch: int, first: int, size: int, root: str
) -> int:
    """Append the record of a newly committed batch; return its ``seq``."""
    fields = {"batch": batch, "first": first, "size": size, "root": root}
    return append_record(conn, kind, batch, fields)


def append_record(conn: Connection, kind: str, number: int, fields: dict[str, Any]) -> int:
    """Append a record of ``kind`` with ``fields`` (``number``: the batch or deck it is
    about, unique per kind); return its ``seq``."""
    last = conn.execute(select(LOG.c.seq, LOG.c.hash).order_by(LOG.c.seq.desc()).limit(1)).first()
    seq = 1 if last is None else last.seq + 1
    record: dict[str, Any] = {
        "seq": seq,
        "kind": kind,
        **fields,
        "prev": GENESIS if last is None else last.hash,
        "created_at": now().isoformat(),
    }
    body = canonical(record).decode("ascii")
    conn.execute(
        insert(LOG).values(seq=seq, kind=kind, batch_id=number, body=body, hash=record_hash(record))
    )
    logtree.add_leaf(conn, seq, body)  # the record's leaf in the Merkle tree, same transaction
    return seq


def records(conn: Connection, start: int = 1, limit: int = PAGE) -> list[dict[str, Any]]:
    """Records from ``start`` on, in order, each with its ``hash``."""
    rows = conn.execute(
        select(LOG.c.body, LOG.c.hash).where(LOG.c.seq >= start).order_by(LOG.c.seq).limit(limit)
    ).all()
    return [{**json.loads(row.body), "hash": row.hash} for row in rows]


def head(conn: Connection) -> dict[str, Any] | None:
    """The newest record, or None before the first batch."""
    row = conn.execute(select(LOG.c.body, LOG.c.hash).order_by(LOG.c.seq.desc()).limit(1)).first()
    return None if row is None else {**json.loads(row.body), "hash": row.hash}


def length(conn: Connection) -> int:
    """How many records the log holds."""
    return int(conn.execute(select(func.count()).select_from(LOG)).scalar_one())
