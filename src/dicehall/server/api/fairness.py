"""The fairness API: commitments, the public log, revealed old batches, and statistics."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from dicehall.server.api.deps import DbDep
from dicehall.server.api.errors import ApiError
from dicehall.server.api.params import BatchId, Digits
from dicehall.server.api.schemas import FairnessLog, FairnessReport, RevealedBatch, errors
from dicehall.server.domain.dice import fairlog, fairness

router = APIRouter(prefix="/api/v1", tags=["fairness"])


@router.get("/fairness", operation_id="fairness-report", response_model=FairnessReport)
def report(db: DbDep) -> dict[str, Any]:
    """Every batch's commitment, the public log's head, and face counts with chi-square over
    the dice of finished games (and of revealed old batches); never a game in progress."""
    return fairness.fairness_report(db)


@router.get(
    "/fairness/batches/{batch_id}",
    operation_id="fairness-batch",
    response_model=RevealedBatch,
    responses=errors(404, 422),
)
def batch(batch_id: BatchId, db: DbDep) -> dict[str, Any]:
    """A revealed batch: salt, sets in order, and the game each set went to."""
    found = fairness.revealed_batch(db, batch_id)
    if found is None:
        raise ApiError(
            404, "not_revealed", f"batch {batch_id} does not exist or is not revealed yet"
        )
    return found


@router.get(
    "/fairness/log",
    operation_id="fairness-log",
    response_model=FairnessLog,
    responses=errors(422),
)
def public_log(
    db: DbDep,
    start: Annotated[
        int,
        Query(alias="from", ge=1, le=2**31 - 1, description="The first record's seq."),
        Digits,
    ] = 1,
) -> dict[str, Any]:
    """The public, hash-chained log of every batch commitment, oldest first, at most
    500 records a page. Each record names the hash of the one before, so no record can be
    changed, dropped or reordered unnoticed: check a saved copy with `dicehall verify-log`."""
    conn = db.connection()
    records = fairlog.records(conn, start, fairlog.PAGE)
    total = fairlog.length(conn)
    last = records[-1]["seq"] if records else None
    return {
        "records": records,
        "head": fairlog.head(conn),
        "total": total,
        "next": None if last is None or last >= total else last + 1,
    }
