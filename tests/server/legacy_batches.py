"""Dice batches committed the old way (scheme 1: one SHA-256 over a salt and every set,
revealed whole once spent and all its games ended), as every batch was before migration 0007.

``make_legacy`` turns the batches a new site has committed, none served yet, into exactly
what the old code wrote, so the tests of the old behaviour run on a fresh database."""

from __future__ import annotations

import secrets

from sqlalchemy import select, update

from dicehall.server.domain.pool import BATCHES, SETS, commitment_of
from dicehall.server.domain.services import Services


def make_legacy(services: Services) -> list[int]:
    """Rewrite every committed dice batch as a scheme-1 batch; their ids."""
    with services.write_conn() as conn:
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
    return ids
