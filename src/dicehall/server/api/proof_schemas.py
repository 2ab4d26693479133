"""The answer of ``GET /api/v1/games/{id}/proof``: a finished game's dice, each with what
proves it was committed before it was served (format ``dicehall-proof/1``; the scheme,
byte for byte, is in docs/site.md "Fair dice", and ``dicehall verify-game`` checks it)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from dicehall.server.api.schemas import BindingRecord, DeckRecord, GameResult, _Answer

_HEX = "hex, 64 digits"


def _path() -> Any:
    return Field(
        description="The Merkle audit path from the leaf up to its batch's root: sibling "
        f"hashes ({_HEX}), lowest first (RFC 9162)."
    )


class SeatDraw(_Answer):
    """A seat order the site drew (auto-match, tournaments, ladder challenges) with the
    faces of committed dice sets (the draw is in docs/site.md, "Fair dice")."""

    dice_sets: list[int] = Field(
        description="The sets the draw read, in order (each listed in `dice_sets`, shown)."
    )
    before: list[str] = Field(
        description="The seats' labels before the draw: handles, or `bot:NAME`."
    )
    after: list[str] = Field(description="Each seat's label as seated, seat 0 first.")


class KeySeatDraw(_Answer):
    """A seat order the site drew with the seat key (key 0) of the deck the game was then
    bound to, starting from the labels sorted (docs/site.md, "Scheme 3: decks and seeds")."""

    key: int = Field(description="The key the draw read: 0, the seat key (shown in `keys`).")
    before: list[str] = Field(
        description="The seats' labels, sorted, before the draw: handles, or `bot:NAME`."
    )
    after: list[str] = Field(description="Each seat's label as seated, seat 0 first.")


class RollSource(_Answer):
    """A roll, answered from consecutive dice sets (their faces in order, the first
    `count` of them, are the outcome)."""

    event: int = Field(description="The chance event's place in `events`, from 0.")
    dice_sets: list[int] = Field(description="The sets' global numbers, in order.")


class DrawSource(_Answer):
    """A bag draw, answered from its hand's committed shuffle: the colours at positions
    `offset` to `offset + count - 1` (a hand's draws are its shuffle's prefix, in order)."""

    event: int = Field(description="The chance event's place in `events`, from 0.")
    bag_shuffle: int = Field(description="The shuffle's global number.")
    offset: int = Field(description="The first position this draw took (0 to 19).")
    count: int = Field(description="How many dice it drew.")


class UncommittedSource(_Answer):
    """A chance event with no committed source: a Hold'em draw made before bags were
    committed (migration 0007), drawn at the moment it was needed."""

    event: int = Field(description="The chance event's place in `events`, from 0.")
    uncommitted: str = Field(description="Why it has no source.")


class ShownSet(_Answer):
    """A dice set the table saw: its faces and salt give its leaf."""

    number: int = Field(description="The set's global number (its place in serving order).")
    batch: int = Field(description="The dice batch that committed it.")
    faces: str = Field(description="Its six faces as digits, e.g. `352116`.")
    salt: str = Field(description=f"The leaf's own random salt ({_HEX}).")
    path: list[str] = _path()


class WithheldSet(_Answer):
    """A dice set the table never saw (a folded Hold'em pocket): its leaf hash only."""

    number: int = Field(description="The set's global number (its place in serving order).")
    batch: int = Field(description="The dice batch that committed it.")
    leaf: str = Field(description=f"The leaf hash ({_HEX}).")
    hidden: Literal[True]
    path: list[str] = _path()


class OldSet(_Answer):
    """A set of a batch committed before migration 0007 (scheme 1: one hash over the whole
    batch, checked by `dicehall verify-dice` once the batch is revealed)."""

    number: int = Field(description="The set's global number (its place in serving order).")
    batch: int = Field(description="The dice batch that committed it.")
    faces: str = Field(description="Its six faces as digits, e.g. `352116`.")
    scheme: Literal[1]


class OldWithheldSet(_Answer):
    """A set of a scheme-1 batch that the table never saw: its place only."""

    number: int = Field(description="The set's global number (its place in serving order).")
    batch: int = Field(description="The dice batch that committed it.")
    hidden: Literal[True]
    scheme: Literal[1]


class ShownPosition(_Answer):
    """A position of a shuffle that a shown draw took."""

    colour: str = Field(description="The die's colour: `r`, `k`, `w` or `y`.")
    salt: str = Field(description=f"The position's salt ({_HEX}).")


class HiddenPosition(_Answer):
    """A position the table never saw (a hidden pocket, or never drawn)."""

    digest: str = Field(description=f"The position's digest ({_HEX}).")


class ShuffleProof(_Answer):
    """A committed shuffle of the 20-dice bag that one of the game's hands drew from."""

    number: int = Field(description="The shuffle's global number (its place in serving order).")
    batch: int = Field(description="The bag batch that committed it.")
    salt: str = Field(description=f"The leaf's own random salt ({_HEX}).")
    path: list[str] = _path()
    positions: list[ShownPosition | HiddenPosition] = Field(
        description="Its 20 positions in drawing order: colour and salt where a shown draw "
        "took it, its digest only elsewhere."
    )


class MerkleBatch(_Answer):
    """A batch committed by a Merkle root, logged in the public log."""

    kind: Literal["dice", "bags"]
    batch: int = Field(description="The batch's id (dice and bag batches count apart).")
    first: int = Field(description="The global number of its first set or shuffle.")
    size: int = Field(description="How many sets or shuffles it holds.")
    root: str = Field(description=f"The Merkle root over its leaves ({_HEX}).")
    log_seq: int = Field(description="Its record's `seq` in the public log.")


class OldBatch(_Answer):
    """A dice batch committed before migration 0007 by one hash over the whole batch."""

    kind: Literal["dice"]
    batch: int = Field(description="The batch's id.")
    scheme: Literal[1]
    commitment: str = Field(description=f"SHA-256 of its salt and every set ({_HEX}).")
    revealed: bool = Field(description="Whether the whole batch is revealed yet.")


class ProofLogRecord(_Answer):
    """A record of the public log of batch commitments."""

    seq: int = Field(description="Its place in the log, from 1.")
    kind: Literal["dice", "bags"]
    batch: int = Field(description="The batch it commits.")
    first: int = Field(description="The global number of the batch's first set or shuffle.")
    size: int = Field(description="How many sets or shuffles the batch holds.")
    root: str = Field(description=f"The batch's Merkle root ({_HEX}).")
    prev: str = Field(description=f"The previous record's hash ({_HEX}; zeros for the first).")
    created_at: str = Field(description="When the batch was committed (ISO 8601).")
    hash: str = Field(description=f"SHA-256 of this record's canonical JSON ({_HEX}).")


class ProofTree(_Answer):
    """Where the proof's log records stand in the public log's Merkle tree."""

    checkpoint: str = Field(
        description="The log's latest checkpoint when the proof was served, signed by the "
        "site (a C2SP signed note)."
    )
    inclusion: dict[str, list[str]] = Field(
        description=f"Each log record's audit path in that checkpoint's tree, by `seq` ({_HEX})."
    )


class GameProof(_Answer):
    """A finished game's proof: its public log, each chance event's committed source with
    its leaf salt and Merkle path, the batches' roots and the public log from their records
    on. Nothing of another game appears but sibling hashes on the paths."""

    format: Literal["dicehall-proof/1"]
    game: str
    id: int
    seats: int = Field(description="How many seats the game had.")
    options: dict[str, Any]
    events: list[dict[str, Any]] = Field(
        description="Exactly the events of `/games/{id}/log`; outcomes never shown are "
        '`{"hidden": true, "count": n}`.'
    )
    result: GameResult
    seating: SeatDraw | None = Field(
        description="How the site drew the seat order; null when the players chose it."
    )
    chance: list[RollSource | DrawSource | UncommittedSource] = Field(
        description="One entry per chance event, in order: where its outcome came from."
    )
    dice_sets: list[ShownSet | WithheldSet | OldSet | OldWithheldSet] = Field(
        description="Every dice set the game's rolls (and its seat draw) used, in serving order."
    )
    bag_shuffles: list[ShuffleProof] = Field(
        description="Every bag shuffle the game's hands drew from, in serving order."
    )
    batches: list[MerkleBatch | OldBatch] = Field(
        description="Every batch those sets and shuffles came from."
    )
    log: list[ProofLogRecord | DeckRecord | BindingRecord] = Field(
        description="The public log's records from the first batch used up to the head when "
        "served (empty when no batch used is in the log)."
    )
    tree: ProofTree


class DeckPart(_Answer):
    """A deck bound to the game: what its `deck` record committed and where its `game`
    record bound it."""

    part: int = Field(description="Its place among the game's decks, from 0.")
    deck: int = Field(description="The deck's number.")
    first_key: int = Field(description="The game's first key it covers.")
    first_shuffle: int = Field(description="The game's first bag shuffle it covers.")
    keys: int = Field(description="How many keys the deck holds.")
    root: str = Field(description=f"The root over its key leaves ({_HEX}).")
    shuffles: int = Field(description="How many shuffles the deck holds.")
    shuffles_root: str | None = Field(description=f"The root over its shuffles ({_HEX}).")
    deck_seq: int = Field(description="The `seq` of the log record that committed it.")
    game_seq: int = Field(description="The `seq` of the log record that bound it to the game.")


class SeatSeed(_Answer):
    """A seat's seed, mixed into every roll and hand from the ones named on."""

    seat: int = Field(description="The seat, from 0.")
    seed: str = Field(description="The seed as sent (hex).")
    from_key: int = Field(description="The first roll (key) it counts for.")
    from_shuffle: int = Field(description="The first hand (shuffle) it counts for.")


class KeySource(_Answer):
    """A roll: its faces come from the game's key `key` and the seeds in force."""

    event: int = Field(description="The chance event's place in `events`, from 0.")
    key: int = Field(description="The game's key it used: the i-th roll uses key i.")


class HandSource(_Answer):
    """A bag draw: drawing positions `offset` to `offset + count - 1` of the game's hand
    `shuffle` (its committed shuffle read in the order the seeds draw)."""

    event: int = Field(description="The chance event's place in `events`, from 0.")
    shuffle: int = Field(description="The game's shuffle (hand) it drew from.")
    offset: int = Field(description="The first drawing position it took (0 to 19).")
    count: int = Field(description="How many dice it drew.")


class ShownKey(_Answer):
    """A key whose roll the table saw."""

    index: int = Field(description="The game's key number.")
    key: str = Field(description=f"The key ({_HEX}).")
    path: list[str] = _path()


class WithheldKey(_Answer):
    """A key whose roll the table never saw: its leaf hash only."""

    index: int = Field(description="The game's key number.")
    leaf: str = Field(description=f"The key's leaf hash ({_HEX}).")
    hidden: Literal[True]
    path: list[str] = _path()


class DeckShuffle(_Answer):
    """A committed bag shuffle of the game's deck, one per hand."""

    index: int = Field(description="The game's shuffle (hand) number.")
    salt: str = Field(description=f"The leaf's salt ({_HEX}).")
    positions: list[ShownPosition | HiddenPosition] = Field(
        description="Its 20 committed positions: colour and salt where a shown draw took "
        "it, its digest only elsewhere."
    )
    path: list[str] = _path()


class DeckGameProof(_Answer):
    """The proof of a game that rolled from its decks (scheme 3): its decks and their log
    records, the seats' seeds, each chance event's key or shuffle, each key and shuffle
    with its Merkle path. Check it with `dicehall verify-game`."""

    format: Literal["dicehall-proof/2"]
    game: str
    id: int
    seats: int = Field(description="How many seats the game had.")
    options: dict[str, Any]
    events: list[dict[str, Any]] = Field(description="Exactly the events of `/games/{id}/log`.")
    result: GameResult
    seating: KeySeatDraw | SeatDraw | None = Field(
        description="How the site drew the seat order; null when the players chose it."
    )
    chance: list[KeySource | HandSource] = Field(
        description="One entry per chance event, in order."
    )
    decks: list[DeckPart] = Field(description="The game's decks, in the order bound.")
    seeds: list[SeatSeed] = Field(description="The seats' seeds (a seat may have none).")
    keys: list[ShownKey | WithheldKey] = Field(description="Every key the game used, in order.")
    shuffles: list[DeckShuffle] = Field(description="Every shuffle the game used, in order.")
    dice_sets: list[ShownSet | WithheldSet | OldSet | OldWithheldSet] = Field(
        description="The dice sets of the seat draw, if the site drew the seats."
    )
    batches: list[MerkleBatch | OldBatch] = Field(description="The seat draw's batches.")
    log: list[ProofLogRecord | DeckRecord | BindingRecord] = Field(
        description="The public log's records from the first one used up to the head."
    )
    tree: ProofTree
