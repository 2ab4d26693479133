"""The public log's signed checkpoints, the site's log key, and witnesses' cosignatures.

The log key (Ed25519) is made on first need and kept in the ``site_secrets`` table, so every
process and machine serving the same database signs alike (and a backup keeps it); its name
is the log's origin, ``<host of site_url>/dicehall-log``. A checkpoint names the tree of every
record logged so far. A witness posts its cosignature of a checkpoint the site signed; the
site keeps each witness key's latest and serves them with the checkpoint they cosigned.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta
from typing import Any, cast

from sqlalchemy import Connection, Table, delete, insert, select

from dicehall.fairness.checkpoint import Checkpoint, open_checkpoint, origin_of
from dicehall.fairness.note import (
    COSIGNATURE_V1,
    ED25519,
    NoteError,
    Signer,
    VerifierKey,
    split_note,
    verify_cosignature,
)
from dicehall.server.core.clock import now
from dicehall.server.core.models import LogCosignature
from dicehall.server.domain.dice import logtree
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.services import Services
from dicehall.server.domain.site_secrets import table_secret
from dicehall.server.infra.ratelimit import bucket, network

COSIGNATURES = cast(Table, LogCosignature.__table__)
#: The secret (in ``site_secrets``) that seeds the log key.
LOG_KEY = "log_key"
#: The most witnesses' cosignatures served with one checkpoint (the latest received).
SERVED = 20
#: How far ahead of the site's clock a cosignature's time may be.
SKEW = timedelta(minutes=10)
#: An empty tree's root (RFC 9162: the hash of nothing).
EMPTY_ROOT = hashlib.sha256(b"").digest()


def log_signer(services: Services) -> Signer:
    """The site's log key (blocking: made and stored on first need)."""
    seed = table_secret(services, LOG_KEY, lambda: Signer.generate("x").seed.hex())
    return Signer(origin_of(services.settings.site_url), ED25519, bytes.fromhex(seed))


def checkpoint_at(conn: Connection, origin: str, size: int | None = None) -> Checkpoint:
    """The checkpoint of the first ``size`` records (all of them by default)."""
    size = logtree.tree_size(conn) if size is None else size
    root = EMPTY_ROOT if size == 0 else logtree.root(conn, size)
    return Checkpoint(origin, size, root)


def signed_checkpoint(conn: Connection, signer: Signer, *, cosigned: bool = False) -> str:
    """The latest checkpoint as a signed note; with ``cosigned``, the latest one a witness
    cosigned instead (the latest if none has), followed by witnesses' cosignatures of it."""
    if not cosigned:
        return checkpoint_at(conn, signer.name).sign(signer)
    # Never past the log (a restore from an older backup may keep later cosignatures).
    size = conn.execute(
        select(COSIGNATURES.c.size)
        .where(COSIGNATURES.c.size <= logtree.tree_size(conn))
        .order_by(COSIGNATURES.c.size.desc())
        .limit(1)
    ).scalar()
    if size is None:
        return checkpoint_at(conn, signer.name).sign(signer)
    lines = conn.execute(
        select(COSIGNATURES.c.line)
        .where(COSIGNATURES.c.size == size)
        .order_by(COSIGNATURES.c.received_at.desc())
        .limit(SERVED)
    ).scalars()
    return checkpoint_at(conn, signer.name, size).sign(signer) + "".join(lines)


def check_cosign_rate(services: Services, address: str) -> None:
    """Count one cosignature posted from ``address``; refused (429) past the limit."""
    wait = services.limiter.hit([bucket("write-cosignature", "ip", network(address))])
    if wait is not None:
        raise Refused(
            "too_many",
            "rate_limited",
            f"too many cosignatures in a minute; try again in {wait} seconds",
            retry_after=wait,
        )


def _invalid(message: str) -> Refused:
    return Refused("invalid", "invalid_cosignature", message)


def accept_cosignature(
    conn: Connection, signer: Signer, note: str, witness_key: str
) -> dict[str, Any]:
    """Keep a witness's cosignature of a checkpoint this site signed (caller commits).

    Refused (422 ``invalid_cosignature``) unless the note is a checkpoint of this log with
    this site's valid signature and a root that is the log's at that size, and carries a
    valid ``cosignature/v1`` by ``witness_key``. A cosignature of a smaller tree than the
    one kept for that key changes nothing."""
    try:
        key = VerifierKey.parse(witness_key)
        if key.kind != COSIGNATURE_V1:
            raise NoteError("a witness's key has type 0x04 (cosignature/v1)")
        checkpoint = open_checkpoint(note, signer.verifier)
        text, lines = split_note(note)
        theirs = [line for line in lines if (line.name, line.id) == (key.name, key.id)]
        if not theirs:
            raise NoteError(f"the note has no cosignature by {key.name}")
        stamp = verify_cosignature(text, theirs[0], key)
    except NoteError as exc:
        raise _invalid(str(exc)) from exc
    size = logtree.tree_size(conn)
    if checkpoint.size > size or checkpoint_at(conn, signer.name, checkpoint.size) != checkpoint:
        raise _invalid("the checkpoint is not one of this log's")
    if stamp > (now() + SKEW).timestamp():
        raise _invalid("the cosignature's time is in the future")
    cosigned_at = datetime.fromtimestamp(stamp, UTC)
    kept = conn.execute(
        select(COSIGNATURES.c.size).where(COSIGNATURES.c.witness_key == key.text())
    ).scalar()
    stored = kept is None or kept <= checkpoint.size
    if stored:
        conn.execute(delete(COSIGNATURES).where(COSIGNATURES.c.witness_key == key.text()))
        conn.execute(
            insert(COSIGNATURES).values(
                witness_key=key.text(),
                size=checkpoint.size,
                line=theirs[0].text(),
                cosigned_at=cosigned_at,
                received_at=now(),
            )
        )
    return {"witness": key.text(), "size": checkpoint.size, "stored": stored}


def proof_tree(conn: Connection, signer: Signer, seqs: list[int]) -> dict[str, Any]:
    """A proof's ``"tree"`` part: the latest signed checkpoint and the audit path of each
    log record ``seqs`` names in its tree (what ``dicehall verify-game --checkpoint``
    checks, with :func:`dicehall.fairness.tlog_check.check_records_in_checkpoint`)."""
    checkpoint = checkpoint_at(conn, signer.name)
    inclusion = {
        str(seq): [h.hex() for h in logtree.inclusion(conn, seq, checkpoint.size)[1]]
        for seq in sorted(set(seqs))
    }
    return {"checkpoint": checkpoint.sign(signer), "inclusion": inclusion}
