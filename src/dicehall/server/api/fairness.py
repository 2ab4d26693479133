"""The fairness API: commitments, revealed batches, and statistics over revealed dice."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from dicehall.server.api.deps import DbDep
from dicehall.server.api.errors import ApiError
from dicehall.server.api.params import BatchId
from dicehall.server.api.schemas import FairnessReport, RevealedBatch, errors
from dicehall.server.domain import fairness

router = APIRouter(prefix="/api/v1", tags=["fairness"])


@router.get("/fairness", operation_id="fairness-report", response_model=FairnessReport)
def report(db: DbDep) -> dict[str, Any]:
    """Every batch's commitment; face counts and chi-square over revealed dice only."""
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
