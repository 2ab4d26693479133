"""``verify_proof``: every check of a game's proof, in order, with the first failure named.

1. the public log's records chain; 2. each batch is what its record committed; 3. each dice
set and bag shuffle lies on its batch's tree; 4. a seat draw follows from its dice; 5. the
game replays through the rules from those dice to the recorded result. Optionally the
proof's events match a saved game log, and its log records a saved copy of the public log.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from typing import Any

from dicehall.fairness.chain import verify_chain
from dicehall.fairness.deck_check import FORMAT as DECK_FORMAT
from dicehall.fairness.deck_check import (
    chance_view,
    check_canonical_seating,
    check_deck_seating,
    check_keys,
    check_parts,
    check_seeds,
)
from dicehall.fairness.deck_check import check_shuffles as check_hands
from dicehall.fairness.proof_check import (
    check_batches,
    check_dice_sets,
    check_log,
    check_seating,
    check_shuffles,
)
from dicehall.fairness.proof_parts import (
    FORMAT,
    MalformedProof,
    ProofFailure,
    batches_of,
    by_number,
    field,
)
from dicehall.fairness.proof_replay import replay

#: Every key a proof has, and its JSON type (``seating`` may be null).
SHAPE: dict[str, type[Any]] = {
    "game": str,
    "id": int,
    "seats": int,
    "options": dict,
    "events": list,
    "result": dict,
    "chance": list,
    "dice_sets": list,
    "bag_shuffles": list,
    "batches": list,
    "log": list,
}


@dataclass(frozen=True)
class ProofReport:
    """What checking a proof found."""

    ok: bool
    failure: str | None
    checked: dict[str, int] = dataclass_field(default_factory=dict)
    notes: tuple[str, ...] = ()

    def lines(self) -> list[str]:
        """The report in words, one line each."""
        if not self.ok:
            return [f"FAILED: {self.failure}"]
        counts = ", ".join(f"{n} {what}" for what, n in self.checked.items())
        return [f"OK: {counts}; the replay reaches the recorded result", *self.notes]

    def as_json(self) -> dict[str, Any]:
        """The report as JSON (``--json``)."""
        return {
            "ok": self.ok,
            "failure": self.failure,
            "checked": self.checked,
            "notes": list(self.notes),
        }


def verify_proof(proof: Any, *, game_log: Any = None, chain: Any = None) -> ProofReport:
    """Check ``proof`` (parsed JSON). Raises :class:`MalformedProof` when it is not one."""
    if isinstance(proof, Mapping) and proof.get("format") == DECK_FORMAT:
        return _verify_deck_proof(proof, game_log, chain)
    if not isinstance(proof, Mapping) or proof.get("format") != FORMAT:
        raise MalformedProof(f"not a proof: its format must be {FORMAT!r} or {DECK_FORMAT!r}")
    for key, kind in SHAPE.items():
        field(proof, key, kind, "proof")
    try:
        log = check_log(proof)
        batches = batches_of(proof)
        check_batches(batches, log)
        sets = check_dice_sets(by_number(proof, "dice_sets"), batches)
        shuffles = check_shuffles(by_number(proof, "bag_shuffles"), batches)
        seated = check_seating(proof, sets)
        notes = replay(proof, sets, shuffles)
        _compare_saved(proof, log, game_log, chain)
    except ProofFailure as failure:
        return ProofReport(False, str(failure))
    if (stopped := _not_replayed(notes)) is not None:
        return stopped
    old = sum(1 for b in batches.values() if b.scheme == 1)
    if old:
        notes.append(
            f"{old} dice batch(es) use the old scheme: check them with dicehall verify-dice "
            "once revealed"
        )
    checked = {
        "log records": len(log),
        "batches": len(batches),
        "dice sets": len(sets),
        "bag shuffles": len(shuffles),
        "events": len(proof["events"]),
    }
    if seated:
        checked["seat draws"] = 1
    return ProofReport(True, None, checked, tuple(notes))


#: Every key a scheme-3 proof has, and its JSON type.
DECK_SHAPE: dict[str, type[Any]] = {
    **{key: kind for key, kind in SHAPE.items() if key not in ("bag_shuffles",)},
    "decks": list,
    "seeds": list,
    "keys": list,
    "shuffles": list,
}


def _verify_deck_proof(proof: Mapping[str, Any], game_log: Any, chain: Any) -> ProofReport:
    """Check a proof of a game that rolled from its decks (``dicehall-proof/2``)."""
    for key, kind in DECK_SHAPE.items():
        field(proof, key, kind, "proof")
    try:
        log = check_log(proof)
        parts = check_parts(proof, log)
        seeds = check_seeds(proof)
        keys = check_keys(proof, parts)
        hands = check_hands(proof, parts, seeds)
        view = chance_view(proof, keys, seeds, hands)
        batches = batches_of(proof)
        check_batches(batches, log)
        sets = check_dice_sets(by_number(proof, "dice_sets"), batches)
        check_canonical_seating(proof)
        seated = check_deck_seating(proof, keys) or check_seating(proof, sets)
        notes = replay({**proof, "chance": view}, sets, hands)
        _compare_saved(proof, log, game_log, chain)
    except ProofFailure as failure:
        return ProofReport(False, str(failure))
    if (stopped := _not_replayed(notes)) is not None:
        return stopped
    checked = {
        "log records": len(log),
        "decks": len(parts),
        "seeds": len(seeds),
        "keys": len(keys),
        "bag shuffles": len(hands),
        "events": len(proof["events"]),
    }
    if seated:
        checked["seat draws"] = 1
    return ProofReport(True, None, checked, tuple(notes))


def _compare_saved(
    proof: Mapping[str, Any], log: Mapping[int, Mapping[str, Any]], game_log: Any, chain: Any
) -> None:
    """The proof against a saved game log and a saved public log, where given."""
    if game_log is not None:
        _same_game(proof, game_log)
    if chain is not None:
        _in_chain(log, chain)


def _not_replayed(notes: list[str]) -> ProofReport | None:
    """The failure to report when the replay could not go to the end (it says why)."""
    for note in notes:
        if note.startswith("stopped"):
            failure = f"not replayed: {note} (the rest of the game is not checked)"
            return ProofReport(False, failure, notes=tuple(notes))
    return None


def _same_game(proof: Mapping[str, Any], game_log: Any) -> None:
    if not isinstance(game_log, Mapping):
        raise MalformedProof("the game log must be a JSON object")
    for key in ("game", "id", "seats", "options", "result"):
        if game_log.get(key) != proof.get(key):
            raise ProofFailure(f"game log: its {key} differs from the proof's")
    sources = ("dice_set", "dice_key")
    logged = [{k: v for k, v in e.items() if k not in sources} for e in game_log.get("events", [])]
    proved = [{k: v for k, v in e.items() if k not in sources} for e in proof["events"]]
    if logged != proved:
        raise ProofFailure("game log: its events differ from the proof's")


def _in_chain(log: Mapping[int, Mapping[str, Any]], chain: Any) -> None:
    records = chain.get("records") if isinstance(chain, Mapping) else chain
    if not isinstance(records, list) or not all(isinstance(r, Mapping) for r in records):
        raise MalformedProof('the public log must be a list of records or {"records": [...]}')
    broken = verify_chain(records)
    if broken is not None:
        raise ProofFailure(f"saved public log, {broken}")
    saved = {int(r["seq"]): r for r in records}
    for seq, record in log.items():
        if seq in saved and saved[seq] != record:
            raise ProofFailure(f"public log record {seq} differs from the saved public log")
        if seq not in saved and saved and seq <= max(saved):
            raise ProofFailure(f"public log record {seq} is missing from the saved public log")
