"""The move transaction: apply a move, roll the dice, let quick bots act within a budget, store
the events and the new version; idempotency keys; withholding dice the table never saw."""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from sqlalchemy import Connection, select, update

from dicehall.engine import codec
from dicehall.engine.chance import Draw, Roll
from dicehall.engine.events import Acted, Resolved, decode_event
from dicehall.engine.game import Chance, Finished, Game, ToAct
from dicehall.server.core.clock import now
from dicehall.server.core.models import User
from dicehall.server.core.txn import after_commit
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.games.records import (
    EVENTS,
    FIND_KEY,
    INSERT_EVENTS,
    INSERT_KEY,
    MAX_ADVANCE_DICE_SETS,
    MAX_ADVANCE_STEPS,
    STATES,
    UPDATE_GAME,
    GameRecord,
    SeatInfo,
    Step,
    entry_of,
    load_options,
    load_state,
    quick_bot,
    seats_of,
)
from dicehall.server.domain.pool import SET_SIZE, SETS, DicePool
from dicehall.server.domain.publiclog import hidden_outcomes_of, is_hidden, public_events

# -- moves -----------------------------------------------------------------------------------


def resolve_chance(
    conn: Connection, pool: DicePool, game_id: int, request: Roll | Draw
) -> tuple[Resolved, int | None]:
    if isinstance(request, Draw):
        items = list(request.population)
        drawn = [items.pop(secrets.randbelow(len(items))) for _ in range(request.count)]
        return Resolved(tuple(drawn)), None
    if request.sides != 6:  # pragma: no cover - every game rolls six-sided dice
        raise AssertionError("the pool serves six-sided dice only")
    served = pool.take(conn, sets_needed(request), game_id)
    faces = tuple(f for s in served for f in s.faces)[: request.count]
    return Resolved(faces), served[0].set_id


def advance(
    conn: Connection,
    pool: DicePool,
    record: GameRecord,
    seats: list[SeatInfo],
    state: Any,
    steps: list[Step],
) -> Any:
    """Resolve chance and let quick bots act until a human or a slow bot must act, the game
    ends, or this request's budget of steps and dice is spent (the bot driver goes on)."""
    entry = entry_of(record.kind)
    game: Game[Any, Any, Any, Any] = entry.game
    bots = {s.seat: s.bot for s in seats if s.bot is not None}
    dice_budget = min(MAX_ADVANCE_DICE_SETS, max(1, pool.batch_size // 2))
    for _ in range(MAX_ADVANCE_STEPS):
        turn = game.turn(state)
        if isinstance(turn, Chance):
            needed = sets_needed(turn.request)
            if needed > dice_budget:
                return state
            dice_budget -= needed
            event, set_id = resolve_chance(conn, pool, record.id, turn.request)
            state = game.resolve(state, event.outcome)
            steps.append((event, set_id))
        elif isinstance(turn, ToAct) and turn.seat in bots:
            if bots[turn.seat] in entry.slow_bots:
                return state
            bot = quick_bot(record.kind, bots[turn.seat])
            legal = game.legal(state, turn.seat)
            action = bot.choose(game.view(state, turn.seat), legal)
            state = game.act(state, turn.seat, action)
            steps.append((Acted(turn.seat, action), None))
        else:
            return state
    return state


def sets_needed(request: Roll | Draw) -> int:
    return max(1, -(-request.count // SET_SIZE)) if isinstance(request, Roll) else 0


def bot_due(record: GameRecord, seats: list[SeatInfo], state: Any) -> bool:
    """Whether the game waits on a bot or on dice rather than on a person."""
    turn = entry_of(record.kind).game.turn(state)
    if isinstance(turn, Chance):
        return True
    return isinstance(turn, ToAct) and seats[turn.seat].bot is not None


def store(
    conn: Connection, record: GameRecord, seats: list[SeatInfo], state: Any, steps: list[Step]
) -> GameRecord:
    """Append the events and write the new snapshot and version; return the new record."""
    game = entry_of(record.kind).game
    moment = now()
    if steps:
        conn.execute(
            INSERT_EVENTS,
            [
                {
                    "game_id": record.id,
                    "seq": record.event_count + i,
                    "data": codec.dumps(event),
                    "dice_set": dice_set,
                    "created_at": moment,
                }
                for i, (event, dice_set) in enumerate(steps)
            ],
        )
    turn = game.turn(state)
    finished = isinstance(turn, Finished)
    new = replace(
        record,
        status="finished" if finished else "active",
        version=record.version + 1,
        snapshot=codec.dumps(state),
        to_act=turn.seat if isinstance(turn, ToAct) else None,
        result=codec.dumps(turn.result) if isinstance(turn, Finished) else None,
        event_count=record.event_count + len(steps),
        updated_at=moment,
        bot_due=not finished and bot_due(record, seats, state),
    )
    conn.execute(
        UPDATE_GAME,
        {
            "b_game": record.id,
            "b_status": new.status,
            "b_version": new.version,
            "b_snapshot": new.snapshot,
            "b_to_act": new.to_act,
            "b_result": new.result,
            "b_events": new.event_count,
            "b_updated": moment,
            "b_bot_due": new.bot_due,
        },
    )
    if finished:
        withhold_unshown_dice(conn, record)
    after_commit(conn, lambda: STATES.put((new.kind, new.snapshot), state))
    if new.bot_due:
        after_commit(conn, announce_bot_due)
    return new


def withhold_unshown_dice(conn: Connection, record: GameRecord) -> None:
    """Mark the dice sets of the outcomes the table never saw (folded Hold'em pockets) as
    withheld, so that no batch reveal or statistic ever shows them."""
    if hidden_outcomes_of(record.kind) is None:
        return
    rows = conn.execute(
        select(EVENTS.c.data, EVENTS.c.dice_set)
        .where(EVENTS.c.game_id == record.id)
        .order_by(EVENTS.c.seq)
    ).all()
    game = entry_of(record.kind).game
    events = [decode_event(game, json.loads(r.data)) for r in rows]
    shown = public_events(record.kind, load_options(record), record.seats, events)
    withheld = [
        r.dice_set
        for r, event in zip(rows, shown, strict=True)
        if r.dice_set is not None and is_hidden(event)
    ]
    if withheld:
        conn.execute(update(SETS).where(SETS.c.id.in_(withheld)).values(withheld=True))


_bot_due_listeners: set[Callable[[], None]] = set()


def listen_bot_due(listener: Callable[[], None]) -> None:
    """Call ``listener`` after each commit that leaves a game waiting on a bot or dice."""
    _bot_due_listeners.add(listener)


def unlisten_bot_due(listener: Callable[[], None]) -> None:
    """Stop calling ``listener``."""
    _bot_due_listeners.discard(listener)


def announce_bot_due() -> None:
    for listener in list(_bot_due_listeners):
        listener()


def request_hash(game_id: int, action_data: object, expected_version: int) -> str:
    """What an idempotency key is bound to: the game and the request's body."""
    body = {"game": game_id, "action": action_data, "expected_version": expected_version}
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(canonical.encode("ascii")).hexdigest()


def find_replay(conn: Connection, user: User, key: str, bound_to: str) -> int | None:
    """The game a move with this idempotency key was already applied to, if any.

    The key must have been used with the same game and body (``bound_to``, from
    :func:`request_hash`): reusing it for anything else is a 422, never a replay.
    """
    found = conn.execute(FIND_KEY, {"b_user": user.id, "b_key": key}).first()
    if found is None:
        return None
    if found.request_hash != bound_to:
        raise Refused(
            "invalid",
            "key_reused",
            "this Idempotency-Key was already used for another request; use a new key per move",
        )
    return int(found.game_id)


def apply_move(
    conn: Connection,
    pool: DicePool,
    user: User,
    record: GameRecord,
    action_data: object,
    expected_version: int,
    key: str | None,
) -> tuple[GameRecord, list[SeatInfo]]:
    """Apply a player's action and everything that follows it. Caller commits."""
    if record.status == "waiting":
        raise Refused("conflict", "not_started", "this game is waiting for players")
    if record.status == "finished":
        raise Refused("conflict", "finished", "this game is over", version=record.version)
    seats = seats_of(conn, record.id)
    mine = [s.seat for s in seats if s.user_pk == user.id]
    if not mine:
        raise Refused("forbidden", "not_your_game", "you have no seat in this game")
    if expected_version != record.version:
        raise Refused(
            "conflict",
            "stale",
            f"the game has moved on (version {record.version}, you sent {expected_version})",
            version=record.version,
        )
    entry = entry_of(record.kind)
    sent = codec.decode(action_data, entry.game.action_type, "$.action")
    before = load_state(record)
    state = entry.game.act(before, mine[0], sent)
    # The log keeps the action as the rules state it, never figures a client left out.
    action = entry.game.legal_action(before, mine[0], sent)
    steps: list[Step] = [(Acted(mine[0], action), None)]
    state = advance(conn, pool, record, seats, state, steps)
    new = store(conn, record, seats, state, steps)
    if key is not None:
        conn.execute(
            INSERT_KEY,
            {
                "user_pk": user.id,
                "key": key,
                "game_id": record.id,
                "version": new.version,
                "request_hash": request_hash(record.id, action_data, expected_version),
                "created_at": now(),
            },
        )
    return new, seats
