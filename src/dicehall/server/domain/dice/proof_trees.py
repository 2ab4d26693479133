"""The dice sets and bag shuffles of one finished game, each with its Merkle audit path.

A path needs every leaf of its batch: each batch a game drew from is loaded whole (its
sets' faces and salts, or its shuffles' colours, salts and secrets) and its tree computed
in one pass, which also yields the paths of all of this game's leaves in it. Only the
game's own sets and shuffles are served; of any other, a proof holds at most a sibling
hash on a path (a salted leaf, or a node above leaves, which tells nothing of its dice).

Scheme-1 batches (committed before migration 0007, one hash over a whole batch) have no
tree: their sets are listed with their faces and checked once the batch is revealed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, select

from dicehall.fairness.leaves import dice_leaf, position_salt, shuffle_digests, shuffle_leaf
from dicehall.fairness.merkle import audit_paths
from dicehall.server.domain.dice.bags import BAG_BATCHES, SHUFFLES
from dicehall.server.domain.dice.pool import BATCHES, SETS


@dataclass
class Served:
    """What a proof reveals of its game's sources: entries and the batches behind them."""

    entries: list[dict[str, Any]] = field(default_factory=list)
    batches: list[dict[str, Any]] = field(default_factory=list)


class ProofError(Exception):
    """The stored sources of a finished game do not add up (never expected: a proof that
    would not verify is refused rather than served)."""


def _hexes(path: Iterable[bytes]) -> list[str]:
    return [node.hex() for node in path]


def _own_rows(
    rows: Iterable[Any], wanted: Iterable[int], game_id: int, what: str
) -> dict[int, Any]:
    """The rows of ``wanted`` numbers, each of which must have been served to ``game_id``."""
    found = {int(row.id): row for row in rows}
    for number in wanted:
        row = found.get(number)
        if row is None or row.game_id != game_id:
            raise ProofError(f"{what} {number} was not served to game {game_id}")
    return found


def dice_sets(conn: Connection, game_id: int, wanted: Mapping[int, bool]) -> Served:
    """The entries of the dice sets ``wanted`` (number -> hidden: its outcome was never
    shown) and of their batches, in serving order."""
    served = Served()
    if not wanted:
        return served
    rows = conn.execute(
        select(
            SETS.c.id, SETS.c.batch_id, SETS.c.faces, SETS.c.salt, SETS.c.withheld, SETS.c.game_id
        ).where(SETS.c.game_id == game_id)
    ).all()
    own = _own_rows(rows, wanted, game_id, "dice set")
    by_batch: dict[int, list[int]] = {}
    for number in sorted(wanted):
        by_batch.setdefault(int(own[number].batch_id), []).append(number)
    batches = conn.execute(select(BATCHES).where(BATCHES.c.id.in_(by_batch))).all()
    for batch in sorted(batches, key=lambda b: int(b.id)):
        numbers = by_batch[int(batch.id)]
        hidden = {n for n in numbers if wanted[n] or own[n].withheld}
        if batch.scheme == 1:
            served.entries.extend(_old_set(own[n], n in hidden) for n in numbers)
            served.batches.append(
                {
                    "kind": "dice",
                    "batch": int(batch.id),
                    "scheme": 1,
                    "commitment": batch.commitment,
                    "revealed": bool(batch.revealed),
                }
            )
            continue
        served.entries.extend(_dice_tree(conn, batch, numbers, hidden))
        served.batches.append(_batch_entry("dice", batch.id, batch.first_set, batch))
    served.entries.sort(key=lambda entry: int(entry["number"]))
    return served


def _old_set(row: Any, hidden: bool) -> dict[str, Any]:
    """A set of a scheme-1 batch: its faces (the batch's reveal checks them), or, for a
    withheld set, nothing but its place."""
    entry: dict[str, Any] = {"number": int(row.id), "batch": int(row.batch_id)}
    if hidden:
        entry["hidden"] = True
    else:
        entry["faces"] = row.faces
    entry["scheme"] = 1
    return entry


def _batch_entry(kind: str, batch_id: int, first: int, batch: Any) -> dict[str, Any]:
    return {
        "kind": kind,
        "batch": int(batch_id),
        "first": int(first),
        "size": int(batch.size),
        "root": batch.root,
        "log_seq": int(batch.log_seq),
    }


def _dice_tree(
    conn: Connection, batch: Any, numbers: list[int], hidden: set[int]
) -> list[dict[str, Any]]:
    """The entries of ``numbers`` (all of one scheme-2 batch), from the batch's whole tree."""
    members = conn.execute(
        select(SETS.c.id, SETS.c.faces, SETS.c.salt)
        .where(SETS.c.batch_id == batch.id)
        .order_by(SETS.c.id)
    ).all()
    first = int(batch.first_set)
    if len(members) != batch.size or any(int(m.id) != first + i for i, m in enumerate(members)):
        raise ProofError(f"dice batch {batch.id} does not hold sets {first} on, in order")
    leaves = [dice_leaf(bytes.fromhex(m.salt), int(m.id), m.faces) for m in members]
    root, paths = audit_paths(leaves, [n - first for n in numbers])
    if root.hex() != batch.root:
        raise ProofError(f"dice batch {batch.id}'s sets do not hash to its root")
    entries: list[dict[str, Any]] = []
    for number in numbers:
        index = number - first
        entry: dict[str, Any] = {"number": number, "batch": int(batch.id)}
        if number in hidden:
            entry.update(leaf=leaves[index].hex(), hidden=True)
        else:
            entry.update(faces=members[index].faces, salt=members[index].salt)
        entry["path"] = _hexes(paths[index])
        entries.append(entry)
    return entries


def bag_shuffles(conn: Connection, game_id: int, revealed: Mapping[int, set[int]]) -> Served:
    """The entries of the shuffles in ``revealed`` (shuffle -> the positions a shown draw
    took) and of their batches, in serving order. A position not in ``revealed`` shows only
    its digest; a shuffle's secret never leaves the database."""
    served = Served()
    if not revealed:
        return served
    rows = conn.execute(
        select(SHUFFLES.c.id, SHUFFLES.c.batch_id, SHUFFLES.c.game_id).where(
            SHUFFLES.c.game_id == game_id
        )
    ).all()
    own = _own_rows(rows, revealed, game_id, "bag shuffle")
    by_batch: dict[int, list[int]] = {}
    for number in sorted(revealed):
        by_batch.setdefault(int(own[number].batch_id), []).append(number)
    batches = conn.execute(select(BAG_BATCHES).where(BAG_BATCHES.c.id.in_(by_batch))).all()
    for batch in sorted(batches, key=lambda b: int(b.id)):
        numbers = by_batch[int(batch.id)]
        served.entries.extend(_shuffle_tree(conn, batch, numbers, revealed))
        served.batches.append(_batch_entry("bags", batch.id, batch.first_shuffle, batch))
    served.entries.sort(key=lambda entry: int(entry["number"]))
    return served


def _shuffle_tree(
    conn: Connection, batch: Any, numbers: list[int], revealed: Mapping[int, set[int]]
) -> list[dict[str, Any]]:
    """The entries of ``numbers`` (all of one bag batch), from the batch's whole tree."""
    members = conn.execute(
        select(SHUFFLES.c.id, SHUFFLES.c.colours, SHUFFLES.c.salt, SHUFFLES.c.secret)
        .where(SHUFFLES.c.batch_id == batch.id)
        .order_by(SHUFFLES.c.id)
    ).all()
    first = int(batch.first_shuffle)
    if len(members) != batch.size or any(int(m.id) != first + i for i, m in enumerate(members)):
        raise ProofError(f"bag batch {batch.id} does not hold shuffles {first} on, in order")
    digests = [shuffle_digests(bytes.fromhex(m.secret), m.colours) for m in members]
    leaves = [
        shuffle_leaf(bytes.fromhex(m.salt), int(m.id), d)
        for m, d in zip(members, digests, strict=True)
    ]
    root, paths = audit_paths(leaves, [n - first for n in numbers])
    if root.hex() != batch.root:
        raise ProofError(f"bag batch {batch.id}'s shuffles do not hash to its root")
    entries: list[dict[str, Any]] = []
    for number in numbers:
        index = number - first
        member = members[index]
        secret = bytes.fromhex(member.secret)
        positions: list[dict[str, str]] = []
        for position, colour in enumerate(member.colours):
            if position in revealed[number]:
                salt = position_salt(secret, position).hex()
                positions.append({"colour": colour, "salt": salt})
            else:
                positions.append({"digest": digests[index][position].hex()})
        entries.append(
            {
                "number": number,
                "batch": int(batch.id),
                "salt": member.salt,
                "path": _hexes(paths[index]),
                "positions": positions,
            }
        )
    return entries
