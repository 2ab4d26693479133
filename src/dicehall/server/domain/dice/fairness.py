"""Fairness figures: statistics over the dice of finished games (and of old revealed
batches), the public log's head, and checking a revealed scheme-1 batch."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from dicehall.engine.errors import InvalidInput
from dicehall.server.core.clock import aware
from dicehall.server.core.models import DiceBatch, DiceSet, GameFaces, GameRow
from dicehall.server.domain.dice import fairlog
from dicehall.server.domain.dice.pool import SET_SIZE, commitment_of


def face_counts(sets: Sequence[str]) -> list[int]:
    """How often each face 1..6 appears in ``sets``."""
    counts = [0] * 6
    for faces in sets:
        for ch in faces:
            counts[int(ch) - 1] += 1
    return counts


def chi_square(counts: Sequence[int]) -> tuple[float, float] | None:
    """Pearson's chi-square against fair dice and its p-value (None with no dice)."""
    total = sum(counts)
    if total == 0:
        return None
    expected = total / len(counts)
    statistic = sum((c - expected) ** 2 for c in counts) / expected
    return statistic, chi_square_survival(statistic, len(counts) - 1)


def chi_square_survival(x: float, degrees: int) -> float:
    """P(X >= x) for a chi-square variable with an odd number of ``degrees`` of freedom, in
    closed form (erfc plus a finite series): the site's p-value without importing SciPy's
    statistics into the server (0.7 s of its start-up)."""
    if degrees < 1 or degrees % 2 == 0:
        raise ValueError("closed form here for odd degrees of freedom only")
    if x <= 0:
        return 1.0
    term = math.sqrt(2 * x / math.pi) * math.exp(-x / 2)
    series = 0.0
    for k in range(1, degrees, 2):
        series += term
        term *= x / (k + 2)
    return min(1.0, math.erfc(math.sqrt(x / 2)) + series)


def fairness_report(db: Session) -> dict[str, Any]:
    """Every commitment, and face counts with chi-square over the revealed batches only.

    Dice of unrevealed batches are never counted: a count taken before and after an
    opponent's concealed roll would give that roll away. Withheld sets (dice the table never
    saw, such as folded Hold'em pockets) are never counted either, for the same reason.
    """
    batches = db.scalars(select(DiceBatch).order_by(DiceBatch.id)).all()
    revealed_ids = [b.id for b in batches if b.revealed]
    sets = (
        db.scalars(
            select(DiceSet.faces).where(
                DiceSet.batch_id.in_(revealed_ids), DiceSet.withheld.is_(False)
            )
        ).all()
        if revealed_ids
        else []
    )
    counts = face_counts(sets)
    stats = chi_square(counts)
    conn = db.connection()
    return {
        "batches": [
            {
                "id": b.id,
                "commitment": b.commitment,
                "size": b.size,
                "first_set": b.first_set,
                "created_at": aware(b.created_at).isoformat(),
                "revealed": b.revealed,
                "revealed_at": aware(b.revealed_at).isoformat() if b.revealed_at else None,
                "scheme": b.scheme,
                "root": b.root,
                "log_seq": b.log_seq,
            }
            for b in batches
        ],
        "finished": finished_dice(db),
        "log_head": fairlog.head(conn),
        "log_records": fairlog.length(conn),
        "revealed": {
            "batches": len(revealed_ids),
            "dice": sum(counts),
            "counts": {str(face): counts[face - 1] for face in range(1, 7)},
            "chi_square": None if stats is None else stats[0],
            "p_value": None if stats is None else stats[1],
        },
    }


def finished_dice(db: Session) -> dict[str, Any]:
    """Face counts and chi-square over every shown die of every finished game.

    A game's dice are public once it is finished (its proof shows them), and never before:
    a count taken before and after an opponent's concealed roll would give that roll away.
    Withheld sets (folded Hold'em pockets) are never counted. One aggregate query: each
    face's count is the characters a ``replace`` removes from the six-digit sets."""
    finished = (
        select(DiceSet.faces)
        .join(GameRow, GameRow.id == DiceSet.game_id)
        .where(GameRow.status == "finished", DiceSet.withheld.is_(False))
        .subquery()
    )
    faces = finished.c.faces
    row = db.execute(
        select(
            *(
                func.coalesce(
                    func.sum(func.length(faces) - func.length(func.replace(faces, str(f), ""))), 0
                )
                for f in range(1, 7)
            )
        )
    ).one()
    games = db.scalar(
        select(func.count(func.distinct(DiceSet.game_id)))
        .join(GameRow, GameRow.id == DiceSet.game_id)
        .where(GameRow.status == "finished")
    )
    # Games that rolled from their decks (scheme 3): counted once, when each ended.
    columns = (GameFaces.f1, GameFaces.f2, GameFaces.f3, GameFaces.f4, GameFaces.f5, GameFaces.f6)
    from_decks = db.execute(
        select(func.count(), *(func.coalesce(func.sum(c), 0) for c in columns))
        .join(GameRow, GameRow.id == GameFaces.game_id)
        .where(GameRow.status == "finished")
    ).one()
    games = int(games or 0) + int(from_decks[0])
    counts = [int(n) + int(m) for n, m in zip(row, from_decks[1:], strict=True)]
    stats = chi_square(counts)
    return {
        "games": games,
        "dice": sum(counts),
        "counts": {str(face): counts[face - 1] for face in range(1, 7)},
        "chi_square": None if stats is None else stats[0],
        "p_value": None if stats is None else stats[1],
    }


def revealed_batch(db: Session, batch_id: int) -> dict[str, Any] | None:
    """A revealed batch in the shape ``dicehall verify-dice`` checks; None while secret.

    Only scheme-1 batches are revealed whole, once every game that drew from them is over.
    Their one hash covers every set, so the sets the table never saw (a folded pocket) are
    shown too (listed as ``unseen``): kept back, they would leave the batch uncheckable."""
    batch = db.get(DiceBatch, batch_id)
    if batch is None or not batch.revealed:
        return None
    rows = db.execute(
        select(DiceSet.id, DiceSet.faces, DiceSet.game_id, DiceSet.withheld)
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
        "withheld": [],
        "unseen": [i for i, r in enumerate(rows) if r.withheld],
    }


#: What ``dicehall verify-dice`` cannot check, whatever the file says.
NOT_CHECKED = (
    "first_set, served_to (not covered by the commitment): that they are what the site recorded",
    "that the commitment was published before the batch was used: compare it with the "
    "commitment listed at GET /api/v1/fairness before the batch was revealed",
)


@dataclass(frozen=True)
class BatchCheck:
    """What checking a revealed batch found, what it checked and what it could not."""

    ok: bool
    batch: int | None
    sets: int
    commitment: str
    computed: str
    checked: tuple[str, ...]
    not_checked: tuple[str, ...] = NOT_CHECKED
    #: How many sets the site withheld (dice the table never saw); with any, no hash is checked.
    withheld: int = 0
    #: How many of the sets the table never saw (shown now that their games are over).
    unseen: int = 0

    @property
    def result(self) -> str:
        """OK, MISMATCH, or WITHHELD when the commitment could not be checked at all."""
        if self.withheld:
            return "WITHHELD"
        return "OK" if self.ok else "MISMATCH"

    def summary(self) -> str:
        """One sentence: OK, MISMATCH or WITHHELD, and why."""
        if self.withheld:
            return (
                f"WITHHELD: {self.withheld} of {self.sets} sets are withheld (dice the table "
                "never saw, such as folded Hold'em pockets); the commitment covers every set, "
                "so it was not checked"
            )
        if self.ok:
            unseen = (
                f" ({self.unseen} of them never seen at the table, shown now that their games "
                "are over)"
                if self.unseen
                else ""
            )
            return f"OK: {self.sets} sets match commitment {self.commitment}{unseen}"
        return f"MISMATCH: the sets hash to {self.computed}, not the committed {self.commitment}"

    def as_json(self) -> dict[str, Any]:
        """The check as JSON (``dicehall verify-dice --json``)."""
        return {
            "result": self.result,
            "ok": self.ok,
            "batch": self.batch,
            "sets": self.sets,
            "withheld": self.withheld,
            "unseen": self.unseen,
            "commitment": self.commitment,
            "computed": self.computed,
            "checked": list(self.checked),
            "not_checked": list(self.not_checked),
        }


def check_batch(data: object) -> BatchCheck:
    """Check a revealed batch (the shape :func:`revealed_batch` gives) against its commitment.

    Raises :class:`InvalidInput` with one line when a field is missing or malformed.
    """
    if not isinstance(data, dict):
        raise InvalidInput("a revealed batch must be a JSON object")
    salt, commitment, sets = data.get("salt"), data.get("commitment"), data.get("sets")
    if not isinstance(salt, str) or not isinstance(commitment, str):
        raise InvalidInput("a revealed batch needs 'salt' and 'commitment' as text")
    if not salt.isascii():
        # The commitment hashes the salt as ASCII; the site's salts are hexadecimal.
        raise InvalidInput(f"'salt' must be ASCII text, not {_shown(salt)}")
    if len(commitment) != 64 or any(ch not in _HEX for ch in commitment):
        raise InvalidInput(
            f"'commitment' must be 64 hexadecimal digits (a SHA-256), not {_shown(commitment)}"
        )
    if not isinstance(sets, list) or not all(s is None or isinstance(s, str) for s in sets):
        raise InvalidInput(
            "a revealed batch needs 'sets' as a list of six-digit strings (null if withheld)"
        )
    withheld = _check_withheld(data.get("withheld", []), sets)
    unseen = data.get("unseen", [])
    if not isinstance(unseen, list) or not all(
        _is_place(i) and i < len(sets) and sets[i] is not None for i in unseen
    ):
        raise InvalidInput("'unseen' must list places (0, 1, ...) of sets that are shown")
    for i, faces in enumerate(sets):
        if faces is not None and (len(faces) != SET_SIZE or any(c not in "123456" for c in faces)):
            raise InvalidInput(f"set {i} ({_shown(faces)}) is not six faces 1..6")
    shapes = ["'salt' is ASCII text", "'commitment' is 64 hexadecimal digits"]
    shapes.append(f"each of the {len(sets) - withheld} shown sets is six faces 1..6")
    batch = _optional_id(data, "batch")
    if _optional_id(data, "first_set") is not None:
        shapes.append("'first_set' is a positive whole number")
    if "served_to" in data:
        _check_served_to(data["served_to"], len(sets))
        shapes.append("'served_to' names one game (or none) per set")
    if withheld:
        return BatchCheck(
            False,
            batch,
            len(sets),
            commitment,
            "",
            ("shapes: " + ", ".join(shapes),),
            (
                "SHA-256 of the salt and the sets against the commitment: "
                f"{withheld} sets are withheld",
                *NOT_CHECKED,
            ),
            withheld,
        )
    computed = commitment_of(salt, [s for s in sets if s is not None])
    checked = (
        "SHA-256 of the salt and the sets, in order, against the commitment",
        "shapes: " + ", ".join(shapes),
    )
    return BatchCheck(
        computed == commitment.lower(),
        batch,
        len(sets),
        commitment,
        computed,
        checked,
        unseen=len(set(unseen)),
    )


def _check_withheld(withheld: object, sets: list[str | None]) -> int:
    """How many sets are withheld; 'withheld' must list exactly the null sets' places."""
    nulls = [i for i, faces in enumerate(sets) if faces is None]
    if not isinstance(withheld, list) or not all(_is_place(i) for i in withheld):
        raise InvalidInput("'withheld' must list the places (0, 1, ...) of withheld sets")
    if sorted(withheld) != nulls:
        raise InvalidInput(
            f"'withheld' lists {sorted(withheld)[:5]} but the null sets are at {nulls[:5]}"
        )
    return len(nulls)


def _is_place(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def verify_batch(data: object) -> tuple[bool, str]:
    """Check a revealed batch against its commitment: (ok, a sentence saying why)."""
    check = check_batch(data)
    return check.ok, check.summary()


_HEX = frozenset("0123456789abcdefABCDEF")


def _shown(text: str, limit: int = 40) -> str:
    # repr escapes control characters and lone surrogates, so the message prints anywhere.
    return repr(text if len(text) <= limit else text[:limit] + "...")


def _is_id(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _optional_id(data: dict[Any, Any], name: str) -> int | None:
    if name not in data:
        return None
    value = data[name]
    if not _is_id(value):
        raise InvalidInput(f"'{name}' must be a positive whole number")
    return int(value)


def _check_served_to(served_to: object, count: int) -> None:
    if not isinstance(served_to, list) or not all(g is None or _is_id(g) for g in served_to):
        raise InvalidInput("'served_to' must be a list of game ids (or null for none)")
    if len(served_to) != count:
        raise InvalidInput(
            f"'served_to' names {len(served_to)} games for {count} sets (one per set)"
        )
