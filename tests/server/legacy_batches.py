"""Dice batches committed the old way (scheme 1: one SHA-256 over a salt and every set,
revealed whole once spent and all its games ended), as every batch was before migration 0007.

``make_legacy`` turns the batches a new site has committed, none served yet, into exactly
what the old code wrote: a salt and :func:`~dicehall.server.domain.dice.pool.commitment_of`,
scheme 1, no root, no per-set salt and no record in the public log (the old code kept no
log). The log's other records (bag batches, decks) are chained again without them, so the log a
test serves still verifies. The tests of the old behaviour thus run on a fresh database."""

from __future__ import annotations

import json
import secrets
from typing import Any

from sqlalchemy import Connection, delete, insert, select, update

from dicehall.fairness.chain import GENESIS, canonical, record_hash
from dicehall.server.domain.dice import logtree
from dicehall.server.domain.dice.bags import BAG_BATCHES
from dicehall.server.domain.dice.decks import DECKS, GAME_DECKS
from dicehall.server.domain.dice.fairlog import LOG
from dicehall.server.domain.dice.pool import BATCHES, SETS, commitment_of
from dicehall.server.domain.services import Services


def make_legacy(services: Services) -> list[int]:
    """Rewrite every committed dice batch as a scheme-1 batch; their ids."""
    with services.write_conn() as conn:
        # The log is appended to only under the pool's cursor (a top-up may be under way).
        services.pool.hold_cursor(conn)
        ids = [int(i) for i in conn.execute(select(BATCHES.c.id).order_by(BATCHES.c.id)).scalars()]
        for batch_id in ids:
            sets = list(
                conn.execute(
                    select(SETS.c.faces).where(SETS.c.batch_id == batch_id).order_by(SETS.c.id)
                ).scalars()
            )
            assert not conn.execute(
                select(SETS.c.id).where(SETS.c.batch_id == batch_id, SETS.c.game_id.is_not(None))
            ).first(), "make_legacy runs before any die is served"
            salt = secrets.token_hex(32)
            conn.execute(
                update(BATCHES)
                .where(BATCHES.c.id == batch_id)
                .values(
                    scheme=1,
                    salt=salt,
                    commitment=commitment_of(salt, sets),
                    root=None,
                    log_seq=None,
                )
            )
            conn.execute(update(SETS).where(SETS.c.batch_id == batch_id).values(salt=None))
        _drop_dice_records(conn, set(ids))
    return ids


def _drop_dice_records(conn: Connection, batches: set[int]) -> None:
    """Remove the log records of ``batches`` and chain the others again, renumbered in
    order, with each bag batch's ``log_seq`` following its record."""
    rows = conn.execute(select(LOG.c.body).order_by(LOG.c.seq)).scalars().all()
    kept: list[dict[str, Any]] = [json.loads(body) for body in rows]
    kept = [r for r in kept if not (r["kind"] == "dice" and r["batch"] in batches)]
    conn.execute(delete(LOG))
    prev = GENESIS
    for seq, record in enumerate(kept, start=1):
        record = {**record, "seq": seq, "prev": prev}
        prev = record_hash(record)
        number = record["deck"] if record["kind"] in ("deck", "game") else record["batch"]
        conn.execute(
            insert(LOG).values(
                seq=seq,
                kind=record["kind"],
                batch_id=number,
                body=canonical(record).decode("ascii"),
                hash=prev,
            )
        )
        if record["kind"] == "game":
            conn.execute(
                update(GAME_DECKS).where(GAME_DECKS.c.deck_id == number).values(log_seq=seq)
            )
            continue
        table = {"bags": BAG_BATCHES, "deck": DECKS}.get(record["kind"], BATCHES)
        conn.execute(update(table).where(table.c.id == number).values(log_seq=seq))
    # The log's Merkle tree, over the records as they are now.
    conn.execute(delete(logtree.TREE))
    logtree.catch_up(conn)
