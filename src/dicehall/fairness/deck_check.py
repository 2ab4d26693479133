"""Checking a proof of a game that rolled from its decks (``dicehall-proof/2``, scheme 3).

In order: the log's records chain; each deck is what its ``deck`` record committed, and a
later ``game`` record bound it to this game (no other record binds this game or its decks);
the seeds are well formed; the ``i``-th roll used key ``i`` and the ``j``-th hand shuffle
``j``, each once, none skipped, as the game's log says; every key and shuffle lies on its
deck's tree; each shown roll's faces and each shown draw's colours follow from the key or
shuffle and the seeds in force. The replay (:mod:`.proof_replay`) then plays the game.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from dicehall.fairness import decks as scheme
from dicehall.fairness.leaves import shuffle_leaf
from dicehall.fairness.merkle import root_from_path
from dicehall.fairness.proof_check import read_positions
from dicehall.fairness.proof_parts import (
    MalformedProof,
    ProofFailure,
    field,
    hex_bytes,
    path_of,
)
from dicehall.fairness.seating import NotEnoughDice, shuffle_by_dice

FORMAT = "dicehall-proof/2"


@dataclass(frozen=True)
class Part:
    """A deck bound to the game, and the keys and shuffles of the game it covers."""

    part: int
    deck: int
    first_key: int
    first_shuffle: int
    keys: int
    root: bytes
    shuffles: int
    shuffles_root: bytes | None


@dataclass(frozen=True)
class Seed:
    """A seat's seed and the first roll and hand it counts for."""

    seat: int
    seed: bytes
    from_key: int
    from_shuffle: int


def check_parts(proof: Mapping[str, Any], log: Mapping[int, Mapping[str, Any]]) -> list[Part]:
    """The game's decks, each checked against the records that committed and bound it."""
    game_id = field(proof, "id", int, "proof")
    entries = field(proof, "decks", list, "proof")
    if not entries:
        raise ProofFailure("the proof names no deck")
    raw: list[dict[str, Any]] = []
    for i, entry in enumerate(entries):
        where = f"decks[{i}]"
        item: dict[str, Any] = {
            key: field(entry, key, int, where)
            for key in (
                "part",
                "deck",
                "first_key",
                "first_shuffle",
                "keys",
                "shuffles",
                "deck_seq",
                "game_seq",
            )
        }
        item["root"] = field(entry, "root", str, where)
        item["shuffles_root"] = entry.get("shuffles_root")
        if item["part"] != i:
            raise MalformedProof(f"{where}.part must be {i}")
        raw.append(item)
    bound_seqs = set()
    parts: list[Part] = []
    for i, item in enumerate(raw):
        deck = item["deck"]
        committed = log.get(item["deck_seq"])
        if committed is None or committed.get("kind") != "deck" or committed.get("deck") != deck:
            raise ProofFailure(f"deck {deck}: log record {item['deck_seq']} does not commit it")
        for key in ("keys", "root", "shuffles", "shuffles_root"):
            if committed.get(key) != item[key]:
                raise ProofFailure(
                    f"deck {deck}: its {key} is not what record {item['deck_seq']} committed"
                )
        bound = log.get(item["game_seq"])
        expected = {
            "kind": "game",
            "game": game_id,
            "deck": deck,
            "first_key": item["first_key"],
            "first_shuffle": item["first_shuffle"],
        }
        if bound is None or any(bound.get(k) != v for k, v in expected.items()):
            raise ProofFailure(
                f"deck {deck}: log record {item['game_seq']} does not bind it to game "
                f"{game_id} from key {item['first_key']} and shuffle {item['first_shuffle']}"
            )
        if item["game_seq"] <= item["deck_seq"]:
            raise ProofFailure(f"deck {deck}: it was bound before it was committed")
        if i == 0 and (item["first_key"], item["first_shuffle"]) != (0, 0):
            raise ProofFailure("the first deck must cover the game from its first key and shuffle")
        if i and item["game_seq"] <= raw[i - 1]["game_seq"]:
            raise ProofFailure(f"deck {deck}: bound before the deck it follows")
        bound_seqs.add(item["game_seq"])
        shuffles_root = item["shuffles_root"]
        parts.append(
            Part(
                i,
                deck,
                item["first_key"],
                item["first_shuffle"],
                item["keys"],
                hex_bytes(item["root"], 32, f"deck {deck} root"),
                item["shuffles"],
                None
                if shuffles_root is None
                else hex_bytes(shuffles_root, 32, f"deck {deck} shuffles_root"),
            )
        )
    decks = {p.deck for p in parts}
    for seq, record in log.items():
        if record.get("kind") != "game" or seq in bound_seqs:
            continue
        if record.get("game") == game_id:
            raise ProofFailure(f"log record {seq} binds another deck to this game")
        if record.get("deck") in decks:
            raise ProofFailure(f"log record {seq} binds deck {record.get('deck')} to another game")
    return parts


def check_seeds(proof: Mapping[str, Any]) -> list[Seed]:
    """The seats' seeds, one at most per seat."""
    seats = field(proof, "seats", int, "proof")
    found: dict[int, Seed] = {}
    for i, entry in enumerate(field(proof, "seeds", list, "proof")):
        where = f"seeds[{i}]"
        seat = field(entry, "seat", int, where)
        if not 0 <= seat < seats or seat in found:
            raise MalformedProof(f"{where}: seat {seat} is not a seat, or has two seeds")
        try:
            seed = scheme.parse_seed(field(entry, "seed", str, where))
        except ValueError as exc:
            raise MalformedProof(f"{where}: {exc}") from None
        found[seat] = Seed(
            seat,
            seed,
            field(entry, "from_key", int, where),
            field(entry, "from_shuffle", int, where),
        )
    return list(found.values())


def mix_for(
    seeds: Sequence[Seed], seats: int, *, key: int | None = None, shuffle: int | None = None
) -> bytes:
    """The seeds in force for roll ``key`` or hand ``shuffle``."""
    by_seat: list[bytes | None] = [None] * seats
    for s in seeds:
        if (key is not None and s.from_key <= key) or (
            shuffle is not None and s.from_shuffle <= shuffle
        ):
            by_seat[s.seat] = s.seed
    return scheme.seed_mix(by_seat)


def _covering(parts: Sequence[Part], index: int, hand: bool) -> Part:
    spans = [scheme.Span(p.first_key, p.first_shuffle, p.keys, p.shuffles) for p in parts]
    found = scheme.covering(spans, index, hand=hand)
    if found is None:
        what = "shuffle" if hand else "key"
        raise ProofFailure(f"{what} {index}: no deck of the game covers it")
    return parts[found]


def check_keys(proof: Mapping[str, Any], parts: Sequence[Part]) -> dict[int, bytes | None]:
    """Each key on its deck's tree: the keys by index (None: withheld, its leaf only)."""
    found: dict[int, bytes | None] = {}
    for i, entry in enumerate(field(proof, "keys", list, "proof")):
        where = f"keys[{i}]"
        index = field(entry, "index", int, where)
        if index in found:
            raise ProofFailure(f"key {index} is shown twice")
        part = _covering(parts, index, hand=False)
        local = index - part.first_key
        if entry.get("hidden") is True:
            key = None
            leaf = hex_bytes(field(entry, "leaf", str, where), 32, f"{where}.leaf")
        else:
            key = hex_bytes(field(entry, "key", str, where), 32, f"{where}.key")
            leaf = scheme.key_leaf(local, key)
        if root_from_path(leaf, local, part.keys, path_of(entry, where)) != part.root:
            raise ProofFailure(f"key {index}: its path does not lead to deck {part.deck}'s root")
        found[index] = key
    return found


def check_shuffles(
    proof: Mapping[str, Any], parts: Sequence[Part], seeds: Sequence[Seed]
) -> dict[int, list[str | None]]:
    """Each shuffle on its deck's tree; each hand's colours in drawing order (None: a
    position shown only by its digest)."""
    game_id, seats = field(proof, "id", int, "proof"), field(proof, "seats", int, "proof")
    found: dict[int, list[str | None]] = {}
    for i, entry in enumerate(field(proof, "shuffles", list, "proof")):
        where = f"shuffles[{i}]"
        index = field(entry, "index", int, where)
        if index in found:
            raise ProofFailure(f"shuffle {index} is shown twice")
        part = _covering(parts, index, hand=True)
        if part.shuffles_root is None:
            raise ProofFailure(f"shuffle {index}: deck {part.deck} has no shuffles")
        local = index - part.first_shuffle
        digests, committed = read_positions(entry, where)
        salt = hex_bytes(field(entry, "salt", str, where), 32, f"{where}.salt")
        leaf = shuffle_leaf(salt, local, digests)
        if root_from_path(leaf, local, part.shuffles, path_of(entry, where)) != (
            part.shuffles_root
        ):
            raise ProofFailure(
                f"shuffle {index}: its path does not lead to deck {part.deck}'s shuffles root"
            )
        order = scheme.drawing_order(game_id, index, mix_for(seeds, seats, shuffle=index))
        found[index] = [committed[position] for position in order]
    return found


def _withheld(event: Mapping[str, Any]) -> bool:
    outcome = event.get("outcome")
    return isinstance(outcome, Mapping) and outcome.get("hidden") is True


def chance_view(
    proof: Mapping[str, Any],
    keys: Mapping[int, bytes | None],
    seeds: Sequence[Seed],
    hands: Mapping[int, Any],
) -> list[dict[str, Any]]:
    """The proof's chance list as the replay reads it: each roll's faces from its key and
    the seeds (None when withheld), each draw by its shuffle. Keys are taken once each, in
    order, none skipped; hands likewise; each as the game's log names it."""
    game_id, seats = field(proof, "id", int, "proof"), field(proof, "seats", int, "proof")
    events = field(proof, "events", list, "proof")
    view: list[dict[str, Any]] = []
    next_key, next_hand = scheme.SEAT_KEYS, 0
    for i, entry in enumerate(field(proof, "chance", list, "proof")):
        where = f"chance[{i}]"
        index = field(entry, "event", int, where)
        if not 0 <= index < len(events) or not isinstance(events[index], Mapping):
            raise MalformedProof(f"{where}: no event {index}")
        event = events[index]
        if "key" in entry:
            key_index = field(entry, "key", int, where)
            if key_index < next_key:
                raise ProofFailure(f"event {index}: key {key_index} is used twice")
            if key_index > next_key:
                raise ProofFailure(f"event {index}: key {next_key} is skipped (never used)")
            next_key += 1
            logged = event.get("dice_key", key_index)
            if logged != key_index and not (logged is None and _withheld(event)):
                raise ProofFailure(
                    f"event {index}: the game's log says key {event.get('dice_key')}, "
                    f"the proof key {key_index}"
                )
            if key_index not in keys:
                raise ProofFailure(f"event {index}: key {key_index} is not in the proof")
            key = keys[key_index]
            outcome = event.get("outcome")
            faces: list[int] | None = None
            if key is not None and isinstance(outcome, list):
                mix = mix_for(seeds, seats, key=key_index)
                faces = list(scheme.roll_faces(key, game_id, key_index, mix, len(outcome)))
            elif key is None and isinstance(outcome, list):
                raise ProofFailure(f"event {index}: a roll the table saw, but its key is withheld")
            view.append({"event": index, "faces": faces})
        elif "shuffle" in entry:
            hand = field(entry, "shuffle", int, where)
            if hand == next_hand:
                next_hand += 1
            elif hand != next_hand - 1:
                raise ProofFailure(f"event {index}: it draws from shuffle {hand}, out of order")
            view.append(
                {
                    "event": index,
                    "bag_shuffle": hand,
                    "offset": field(entry, "offset", int, where),
                    "count": field(entry, "count", int, where),
                }
            )
        else:
            raise MalformedProof(f"{where} names neither a key nor a shuffle")
    used = set(range(scheme.SEAT_KEYS, next_key))
    seating = proof.get("seating")
    if isinstance(seating, Mapping) and "key" in seating:
        used.add(0)
    if set(keys) != used:
        extra = sorted(set(keys) - used)
        missing = sorted(used - set(keys))
        if extra:
            raise ProofFailure(f"key {extra[0]} is in the proof but nothing used it")
        raise ProofFailure(f"key {missing[0]} was used but is not in the proof")
    drawn = set(range(next_hand))
    if set(hands) != drawn:
        if set(hands) - drawn:
            unused = min(set(hands) - drawn)
            raise ProofFailure(f"shuffle {unused} is in the proof but no hand drew from it")
        raise ProofFailure(f"shuffle {min(drawn - set(hands))} is drawn from but not shown")
    return view


def check_canonical_seating(proof: Mapping[str, Any]) -> None:
    """A seat draw starts from the seats' labels in sorted order (so that the site could
    not arrange the start to suit the dice it knew were next)."""
    seating = proof.get("seating")
    if seating is None:
        return
    before = field(seating, "before", list, "seating")
    if before != sorted(before):
        raise ProofFailure("seat draw: it did not start from the seats' labels in sorted order")


def check_deck_seating(proof: Mapping[str, Any], keys: Mapping[int, bytes | None]) -> bool:
    """A seat order drawn with the seat key (key 0 of the game's first deck) follows from
    it (False: the players chose the order, or it was drawn with dice sets)."""
    seating = proof.get("seating")
    if not isinstance(seating, Mapping) or "key" not in seating:
        return False
    if field(seating, "key", int, "seating") != 0:
        raise ProofFailure("seat draw: it must read the seat key, key 0")
    seat_key = keys.get(0)
    if seat_key is None:
        raise ProofFailure("seat draw: the seat key (key 0) is not shown in the proof")
    before = field(seating, "before", list, "seating")
    after = field(seating, "after", list, "seating")
    count = 64
    while True:
        try:
            drawn = shuffle_by_dice(before, scheme.seat_faces(seat_key, count))
            break
        except NotEnoughDice:
            count *= 4
    if drawn != after:
        raise ProofFailure(f"seat draw: the seat key seats {drawn}, but the game seated {after}")
    return True
