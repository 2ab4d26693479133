"""Fairness figures over revealed dice only, and checking a revealed batch."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from scipy.stats import chisquare
from sqlalchemy import select
from sqlalchemy.orm import Session

from dicehall.engine.errors import InvalidInput
from dicehall.server.models import DiceBatch, DiceSet
from dicehall.server.pool import SET_SIZE, commitment_of


def face_counts(sets: Sequence[str]) -> list[int]:
    """How often each face 1..6 appears in ``sets``."""
    counts = [0] * 6
    for faces in sets:
        for ch in faces:
            counts[int(ch) - 1] += 1
    return counts


def chi_square(counts: Sequence[int]) -> tuple[float, float] | None:
    """Pearson's chi-square against fair dice and its p-value (None with no dice)."""
    if sum(counts) == 0:
        return None
    result = chisquare(list(counts))
    return float(result.statistic), float(result.pvalue)


def fairness_report(db: Session) -> dict[str, Any]:
    """Every commitment, and face counts with chi-square over the revealed batches only.

    Dice of unrevealed batches are never counted: a count taken before and after an
    opponent's concealed roll would give that roll away.
    """
    batches = db.scalars(select(DiceBatch).order_by(DiceBatch.id)).all()
    revealed_ids = [b.id for b in batches if b.revealed]
    sets = (
        db.scalars(select(DiceSet.faces).where(DiceSet.batch_id.in_(revealed_ids))).all()
        if revealed_ids
        else []
    )
    counts = face_counts(sets)
    stats = chi_square(counts)
    return {
        "batches": [
            {
                "id": b.id,
                "commitment": b.commitment,
                "size": b.size,
                "first_set": b.first_set,
                "created_at": b.created_at.isoformat(),
                "revealed": b.revealed,
                "revealed_at": b.revealed_at.isoformat() if b.revealed_at else None,
            }
            for b in batches
        ],
        "revealed": {
            "batches": len(revealed_ids),
            "dice": sum(counts),
            "counts": {str(face): counts[face - 1] for face in range(1, 7)},
            "chi_square": None if stats is None else stats[0],
            "p_value": None if stats is None else stats[1],
        },
    }


def revealed_batch(db: Session, batch_id: int) -> dict[str, Any] | None:
    """A revealed batch in the shape ``dicehall verify-dice`` checks; None while secret."""
    batch = db.get(DiceBatch, batch_id)
    if batch is None or not batch.revealed:
        return None
    rows = db.execute(
        select(DiceSet.id, DiceSet.faces, DiceSet.game_id)
        .where(DiceSet.batch_id == batch_id)
        .order_by(DiceSet.id)
    ).all()
    return {
        "batch": batch.id,
        "commitment": batch.commitment,
        "salt": batch.salt,
        "first_set": batch.first_set,
        "sets": [r.faces for r in rows],
        "served_to": [r.game_id for r in rows],
    }


def verify_batch(data: object) -> tuple[bool, str]:
    """Check a revealed batch against its commitment: (ok, a sentence saying why)."""
    if not isinstance(data, dict):
        raise InvalidInput("a revealed batch must be a JSON object")
    salt, commitment, sets = data.get("salt"), data.get("commitment"), data.get("sets")
    if not isinstance(salt, str) or not isinstance(commitment, str):
        raise InvalidInput("a revealed batch needs 'salt' and 'commitment' as text")
    if not isinstance(sets, list) or not all(isinstance(s, str) for s in sets):
        raise InvalidInput("a revealed batch needs 'sets' as a list of six-digit strings")
    for i, faces in enumerate(sets):
        if len(faces) != SET_SIZE or any(ch not in "123456" for ch in faces):
            raise InvalidInput(f"set {i} ({faces!r}) is not six faces 1..6")
    actual = commitment_of(salt, sets)
    if actual != commitment.lower():
        return False, f"MISMATCH: the sets hash to {actual}, not the committed {commitment}"
    return True, f"OK: {len(sets)} sets match commitment {commitment}"
