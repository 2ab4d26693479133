"""The proof of a finished game that rolled from its decks (scheme 3, ``dicehall-proof/2``).

For each chance event in order, the key or shuffle of the game it used; each key shown with
its audit path in its deck's tree (a roll the table never saw: only its leaf); each shuffle
with the committed positions its shown draws took (salt and colour) and the digests of the
others; each deck with its root and the records that committed it and bound it to the game;
the seats' seeds and from which roll and hand each counted. A deck's tree is rebuilt from
its secret (milliseconds), in the thread pool like every proof.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, select

from dicehall.fairness import decks as scheme
from dicehall.fairness.leaves import position_digest, position_salt
from dicehall.server.domain.dice.decks import DECKS, GAME_DECKS, GAME_SEEDS, mix_of
from dicehall.server.domain.dice.publiclog import is_hidden
from dicehall.server.domain.games.records import EVENTS

FORMAT = "dicehall-proof/2"


@dataclass
class DeckUses:
    """What a game's chance events took from its decks."""

    chance: list[dict[str, Any]] = field(default_factory=list)
    #: Keys used -> whether the roll was never shown.
    keys: dict[int, bool] = field(default_factory=dict)
    #: Shuffles used -> the drawing positions that shown draws took.
    shuffles: dict[int, set[int]] = field(default_factory=dict)


def deck_uses(
    events: Sequence[Mapping[str, Any]], keys: Sequence[int | None], hands: Sequence[int | None]
) -> DeckUses:
    """The keys and shuffles of ``events`` (public log events), from their stored columns."""
    found = DeckUses()
    drawn: dict[int, int] = {}
    for index, event in enumerate(events):
        if event.get("type") != "resolved":
            continue
        hidden = is_hidden(event)
        count = int(event["outcome"]["count"]) if hidden else len(event["outcome"])
        key, hand = keys[index], hands[index]
        if key is not None:
            found.keys[key] = hidden
            found.chance.append({"event": index, "key": key})
        elif hand is not None:
            offset = drawn.get(hand, 0)
            drawn[hand] = offset + count
            shown = found.shuffles.setdefault(hand, set())
            if not hidden:
                shown.update(range(offset, offset + count))
            found.chance.append({"event": index, "shuffle": hand, "offset": offset, "count": count})
        else:
            raise ValueError(f"event {index} of a deck game names neither key nor shuffle")
    return found


def deck_sources(
    conn: Connection,
    game_id: int,
    seats: int,
    events: Sequence[Mapping[str, Any]],
    seat_key: bool = False,
) -> dict[str, Any]:
    """The proof's deck part: ``chance``, ``decks``, ``seeds``, ``keys``, ``shuffles``
    (``seat_key``: the site drew the seats with key 0, which the keys then show)."""
    rows = conn.execute(
        select(EVENTS.c.dice_key, EVENTS.c.hand_shuffle)
        .where(EVENTS.c.game_id == game_id)
        .order_by(EVENTS.c.seq)
    ).all()
    uses = deck_uses(events, [r.dice_key for r in rows], [r.hand_shuffle for r in rows])
    if seat_key:
        uses.keys[0] = False
    parts = conn.execute(
        select(
            GAME_DECKS.c.part,
            GAME_DECKS.c.deck_id,
            GAME_DECKS.c.first_key,
            GAME_DECKS.c.first_shuffle,
            GAME_DECKS.c.log_seq.label("game_seq"),
            DECKS.c.secret,
            DECKS.c["keys"].label("key_count"),
            DECKS.c.shuffles,
            DECKS.c.root,
            DECKS.c.shuffles_root,
            DECKS.c.log_seq.label("deck_seq"),
        )
        .join(DECKS, DECKS.c.id == GAME_DECKS.c.deck_id)
        .where(GAME_DECKS.c.game_id == game_id)
        .order_by(GAME_DECKS.c.part)
    ).all()
    seeds = conn.execute(
        select(GAME_SEEDS).where(GAME_SEEDS.c.game_id == game_id).order_by(GAME_SEEDS.c.seat)
    ).all()
    seed_rows = [(s.seat, bytes.fromhex(s.seed), s.from_key, s.from_shuffle) for s in seeds]
    key_entries: list[dict[str, Any]] = []
    shuffle_entries: list[dict[str, Any]] = []
    spans = [scheme.Span(p.first_key, p.first_shuffle, p.key_count, p.shuffles) for p in parts]
    keys_of: dict[int, list[int]] = {}
    for index in sorted(uses.keys):
        keys_of.setdefault(_covered(spans, index, hand=False), []).append(index)
    for number, indices in sorted(keys_of.items()):
        key_entries += _keys(bytes.fromhex(parts[number].secret), parts[number], indices, uses.keys)
    for hand in sorted(uses.shuffles):
        part = parts[_covered(spans, hand, hand=True)]
        mix = mix_of(seed_rows, seats, shuffle=hand)
        order = scheme.drawing_order(game_id, hand, mix)
        shown = {order[q] for q in uses.shuffles[hand]}
        shuffle_entries.append(_shuffle(bytes.fromhex(part.secret), part, hand, shown))
    return {
        "chance": uses.chance,
        "decks": [
            {
                "part": int(p.part),
                "deck": int(p.deck_id),
                "first_key": int(p.first_key),
                "first_shuffle": int(p.first_shuffle),
                "keys": int(p.key_count),
                "root": p.root,
                "shuffles": int(p.shuffles),
                "shuffles_root": p.shuffles_root,
                "deck_seq": int(p.deck_seq),
                "game_seq": int(p.game_seq),
            }
            for p in parts
        ],
        "seeds": [
            {
                "seat": int(s.seat),
                "seed": s.seed,
                "from_key": int(s.from_key),
                "from_shuffle": int(s.from_shuffle),
            }
            for s in seeds
        ],
        "keys": key_entries,
        "shuffles": shuffle_entries,
    }


def _covered(spans: Sequence[scheme.Span], index: int, hand: bool) -> int:
    found = scheme.covering(spans, index, hand=hand)
    if found is None:
        raise ValueError(f"no deck of the game covers its {'shuffle' if hand else 'key'} {index}")
    return found


def _keys(
    secret: bytes, part: Any, indices: list[int], hidden: Mapping[int, bool]
) -> list[dict[str, Any]]:
    local = [i - part.first_key for i in indices]
    paths = scheme.key_paths(secret, part.key_count, local)
    entries: list[dict[str, Any]] = []
    for index, at in zip(indices, local, strict=True):
        key = scheme.dice_key(secret, at)
        entry: dict[str, Any] = {"index": index}
        if hidden[index]:
            entry.update(leaf=scheme.key_leaf(at, key).hex(), hidden=True)
        else:
            entry["key"] = key.hex()
        entry["path"] = [node.hex() for node in paths[at]]
        entries.append(entry)
    return entries


def _shuffle(secret: bytes, part: Any, hand: int, shown: set[int]) -> dict[str, Any]:
    local = hand - part.first_shuffle
    hand_secret = scheme.shuffle_secret(secret, local)
    colours = scheme.shuffle_colours(secret, local)
    positions: list[dict[str, str]] = []
    for position, colour in enumerate(colours):
        salt = position_salt(hand_secret, position)
        if position in shown:
            positions.append({"colour": colour, "salt": salt.hex()})
        else:
            positions.append({"digest": position_digest(salt, position, colour).hex()})
    (path,) = scheme.shuffle_paths(secret, part.shuffles, [local]).values()
    return {
        "index": hand,
        "salt": scheme.shuffle_salt(secret, local).hex(),
        "positions": positions,
        "path": [node.hex() for node in path],
    }
