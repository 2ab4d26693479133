"""A finished game's proof: everything needed to check its dice offline, and nothing more.

The proof (format ``dicehall-proof/1``, see docs/site.md "Fair dice") holds the game's
public log exactly as ``/games/{id}/log`` gives it, and for each chance event in order the
committed source it was answered from: a roll's dice sets (``sets_needed`` consecutive sets
from the one the event names), or a draw's bag shuffle with the offset and count it took (a
hand's draws are its shuffle's prefix, in order). Then each of those sets and shuffles with
its leaf salt and Merkle audit path (:mod:`~dicehall.server.domain.dice.proof_trees`), each batch
with its root and its record's place in the public log, and the log's records from the
first one used up to the head, so the chain can be checked from there.

A roll the table never saw (a folded Hold'em pocket) gives only its sets' leaf hashes, a
draw the table never saw only its positions' digests. A finished game's proof never
changes but for the log's head; it is built on request from the stored rows, in the thread
pool: a few queries and one pass over each batch the game drew from.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, select

from dicehall.engine.chance import Roll
from dicehall.fairness.note import Signer
from dicehall.server.core.models import User
from dicehall.server.domain.dice import fairlog
from dicehall.server.domain.dice.checkpoints import proof_tree
from dicehall.server.domain.dice.deck_proofs import FORMAT as DECK_FORMAT
from dicehall.server.domain.dice.deck_proofs import deck_sources
from dicehall.server.domain.dice.proof_trees import bag_shuffles, dice_sets
from dicehall.server.domain.dice.publiclog import is_hidden
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.games.chance import sets_needed
from dicehall.server.domain.games.privacy import watchable
from dicehall.server.domain.games.reading import event_log
from dicehall.server.domain.games.records import EVENTS, GAMES, SeatInfo

FORMAT = "dicehall-proof/1"
#: Why a draw has no source: Hold'em bags were drawn at the moment of the draw until then.
UNCOMMITTED = "drawn before committed bags (migration 0007)"


@dataclass
class ChanceSources:
    """What a game's chance events were answered from."""

    #: One entry per chance event, in order (the proof's ``chance``).
    chance: list[dict[str, Any]] = field(default_factory=list)
    #: Every dice set used -> whether its outcome was never shown.
    sets: dict[int, bool] = field(default_factory=dict)
    #: Every bag shuffle used -> the positions that shown draws took.
    draws: dict[int, set[int]] = field(default_factory=dict)


def chance_sources(
    events: Sequence[dict[str, Any]],
    dice_set: Sequence[int | None],
    bag_shuffle: Sequence[int | None],
) -> ChanceSources:
    """The sources of the chance events among ``events`` (public log events), given each
    event's stored ``dice_set`` and ``bag_shuffle`` columns."""
    found = ChanceSources()
    drawn: dict[int, int] = {}  # shuffle -> how many of its positions earlier draws took
    for index, event in enumerate(events):
        if event.get("type") != "resolved":
            continue
        outcome = event["outcome"]
        hidden = is_hidden(event)
        count = int(outcome["count"]) if hidden else len(outcome)
        first_set, shuffle = dice_set[index], bag_shuffle[index]
        if first_set is not None:
            numbers = list(range(first_set, first_set + sets_needed(Roll(count))))
            for number in numbers:
                found.sets[number] = found.sets.get(number, False) or hidden
            found.chance.append({"event": index, "dice_sets": numbers})
        elif shuffle is not None:
            offset = drawn.get(shuffle, 0)
            drawn[shuffle] = offset + count
            shown = found.draws.setdefault(shuffle, set())
            if not hidden:
                shown.update(range(offset, offset + count))
            found.chance.append(
                {"event": index, "bag_shuffle": shuffle, "offset": offset, "count": count}
            )
        else:
            found.chance.append({"event": index, "uncommitted": UNCOMMITTED})
    return found


def game_proof(
    conn: Connection, game_id: int, user: User | None, signer: Signer | None = None
) -> dict[str, Any]:
    """The proof of finished game ``game_id``, for whoever may read its log (a private
    game is a 404 to anyone else; a game not finished is a 409 ``not_finished``). With the
    log's ``signer``, its ``tree``: a signed checkpoint and each log record's audit path in
    it, so that the proof and a witnessed checkpoint are all a check needs."""
    proof = _game_proof(conn, game_id, user)
    if signer is not None:
        proof["tree"] = proof_tree(conn, signer, [int(r["seq"]) for r in proof["log"]])
    return proof


def _game_proof(conn: Connection, game_id: int, user: User | None) -> dict[str, Any]:
    record, seats = watchable(conn, game_id, None if user is None else user.id)
    if record.status != "finished":
        raise Refused(
            "conflict",
            "not_finished",
            f"this game is {record.status}: its proof is published once it is finished",
        )
    log = event_log(conn, game_id, user)
    from_deck = conn.execute(select(GAMES.c.next_key).where(GAMES.c.id == game_id)).scalar()
    if from_deck is not None:
        return _deck_game_proof(conn, game_id, seats, log)
    rows = conn.execute(
        select(EVENTS.c.dice_set, EVENTS.c.bag_shuffle)
        .where(EVENTS.c.game_id == game_id)
        .order_by(EVENTS.c.seq)
    ).all()
    sources = chance_sources(
        log["events"],
        [None if r.dice_set is None else int(r.dice_set) for r in rows],
        [None if r.bag_shuffle is None else int(r.bag_shuffle) for r in rows],
    )
    drawn = seat_draw(conn, game_id, seats)
    wanted = dict(sources.sets)
    for number in [] if drawn is None else drawn["dice_sets"]:
        wanted.setdefault(number, False)
    dice = dice_sets(conn, game_id, wanted)
    bags = bag_shuffles(conn, game_id, sources.draws)
    batches = dice.batches + bags.batches
    return {
        "format": FORMAT,
        "game": log["game"],
        "id": log["id"],
        "seats": log["seats"],
        "options": log["options"],
        "events": log["events"],
        "result": log["result"],
        "seating": drawn,
        "chance": sources.chance,
        "dice_sets": dice.entries,
        "bag_shuffles": bags.entries,
        "batches": batches,
        "log": log_from(conn, [b["log_seq"] for b in batches if "log_seq" in b]),
    }


def _deck_game_proof(
    conn: Connection, game_id: int, seats: Sequence[SeatInfo], log: dict[str, Any]
) -> dict[str, Any]:
    """The proof of a game that rolled from its decks (``dicehall-proof/2``)."""
    drawn = seat_draw(conn, game_id, seats)
    seat_key = drawn is not None and "key" in drawn
    deck_part = deck_sources(conn, game_id, int(log["seats"]), log["events"], seat_key)
    wanted = {number: False for number in ([] if drawn is None else drawn.get("dice_sets", []))}
    dice = dice_sets(conn, game_id, wanted)
    used = [d["deck_seq"] for d in deck_part["decks"]]
    used += [b["log_seq"] for b in dice.batches if "log_seq" in b]
    return {
        "format": DECK_FORMAT,
        "game": log["game"],
        "id": log["id"],
        "seats": log["seats"],
        "options": log["options"],
        "events": log["events"],
        "result": log["result"],
        "seating": drawn,
        **deck_part,
        "dice_sets": dice.entries,
        "batches": dice.batches,
        "log": log_from(conn, used),
    }


def seat_draw(conn: Connection, game_id: int, seats: Sequence[SeatInfo]) -> dict[str, Any] | None:
    """How the site drew the game's seat order (auto-match, tournaments, ladders), or None
    when the players chose it: the dice sets read, the seats' labels (a handle, or
    ``bot:name``) before the draw, and each seat's label as seated."""
    stored = conn.execute(select(GAMES.c.seat_draw).where(GAMES.c.id == game_id)).scalar()
    if stored is None:
        return None
    draw = json.loads(stored)
    after = [seat_label(s) for s in sorted(seats, key=lambda s: s.seat)]
    if "key" in draw:  # the seat key of the game's deck
        return {"key": int(draw["key"]), "before": list(draw["before"]), "after": after}
    return {
        "dice_sets": [int(n) for n in draw["sets"]],
        "before": list(draw["before"]),
        "after": after,
    }


def seat_label(seat: SeatInfo) -> str:
    """A seat as a seat draw names it: the user's handle, or ``bot:name``."""
    if seat.bot is not None and seat.user_id is None:
        return f"bot:{seat.bot}"
    return seat.user_id or ""


def log_from(conn: Connection, used: Sequence[int]) -> list[dict[str, Any]]:
    """The public log's records from the smallest of ``used`` up to the head (none when
    no batch of the proof is in the log)."""
    if not used:
        return []
    start = min(used)
    head = fairlog.head(conn)
    end = start if head is None else int(head["seq"])
    return fairlog.records(conn, start, max(1, end - start + 1))
