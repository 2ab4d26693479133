"""The move transaction: apply a move, roll the dice, let quick bots act within a budget, store
the events and the new version; idempotency keys; withholding dice the table never saw."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, NamedTuple, cast

from sqlalchemy import Connection, Table, insert, select, update

from dicehall.engine import codec, step
from dicehall.engine.bots import Bot
from dicehall.engine.chance import Draw, Outcome, Roll
from dicehall.engine.events import Acted, Event, Resolved, decode_event
from dicehall.engine.game import Chance, Finished, ToAct
from dicehall.server.core.clock import now
from dicehall.server.core.models import GameFaces, TurnTime, User
from dicehall.server.domain import jobs, notifications
from dicehall.server.domain.dice.decks import DeckUse
from dicehall.server.domain.dice.pool import SETS, DicePool
from dicehall.server.domain.dice.publiclog import hidden_outcomes_of, is_hidden, public_events
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.games import notice_texts
from dicehall.server.domain.games.chance import (
    deck_source,
    is_draw,
    old_source,
    resolve_chance,
    sets_needed,
)
from dicehall.server.domain.games.game_over import tell_game_over
from dicehall.server.domain.games.pace import Clock, Pace
from dicehall.server.domain.games.records import (
    EVENTS,
    FIND_KEY,
    GAMES,
    INSERT_EVENTS,
    INSERT_KEY,
    MAX_ADVANCE_DICE_SETS,
    MAX_ADVANCE_STEPS,
    SEATS,
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
from dicehall.server.domain.games.seat_results import record_results
from dicehall.server.domain.people.settings import reminders_in, reminders_of
from dicehall.server.domain.ratings.ladder_results import settle_game
from dicehall.server.domain.ratings.store import rate_game
from dicehall.server.domain.singularity import moments
from dicehall.server.domain.tournaments.results import ENDED
from dicehall.server.domain.tournaments.results import settle_game as settle_table

# -- moves -----------------------------------------------------------------------------------


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
    names = {s.seat: name for s in seats if (name := s.acting_bot(entry)) is not None}
    dice_budget = min(MAX_ADVANCE_DICE_SETS, max(1, pool.batch_size // 2))
    source: list[int | DeckUse | None] = [None]

    def chance(request: Roll | Draw) -> Outcome | None:
        nonlocal dice_budget
        needed = sets_needed(request)
        if needed > dice_budget:
            return None  # this request's dice are spent: the bot driver goes on
        dice_budget -= needed
        event, source[0] = resolve_chance(conn, pool, record.id, request, steps)
        return event.outcome

    def bot(seat: int) -> Bot | None:
        name = names.get(seat)
        if name is None or name in entry.slow_bots:
            return None  # a person, or a bot that thinks too long for a request
        return quick_bot(record.kind, name)

    def logged(_before: Any, event: Event, _after: Any) -> None:
        steps.append((event, source[0] if isinstance(event, Resolved) else None))

    state, _ = step.advance(
        entry.game, state, chance, bot, on_event=logged, max_steps=MAX_ADVANCE_STEPS
    )
    return state


def bot_due(record: GameRecord, seats: list[SeatInfo], state: Any) -> bool:
    """Whether the game waits on a bot or on dice rather than on a person."""
    entry = entry_of(record.kind)
    turn = entry.game.turn(state)
    if isinstance(turn, Chance):
        return True
    return isinstance(turn, ToAct) and seats[turn.seat].acting_bot(entry) is not None


TURN_TIMES = cast(Table, TurnTime.__table__)
GAME_FACES = cast(Table, GameFaces.__table__)


def clock_after(
    conn: Connection,
    record: GameRecord,
    seats: list[SeatInfo],
    waiting_on: int | None,
    moment: Any,
    others_moved: bool = False,
    mover: int | None = None,
) -> Clock:
    """The game's clock once the turn is ``waiting_on``'s (None: no person's), with the
    turn that ended recorded for its player's profile and the new turn's player told.

    ``others_moved``: other seats moved since (quick bots in the same request), so a seat
    to act again starts a new turn. ``mover``: the seat that moved last (None: the seat
    whose clock ran), named in the notice."""
    pace = Pace.loads(record.pace)
    clock = Clock.loads(record.clock) if record.clock else Clock.start(pace, record.seats)
    if others_moved and clock.running is not None and clock.running == waiting_on:
        settled = clock_after(conn, record, seats, None, moment)
        record = replace(record, clock=settled.dumps())
        clock = settled
    new = clock.pass_to(pace, waiting_on, moment)
    if new is clock:
        return clock
    ended = clock.running
    if ended is not None and clock.since is not None and seats[ended].user_pk is not None:
        conn.execute(
            insert(TURN_TIMES).values(
                user_pk=seats[ended].user_pk,
                game_id=record.id,
                seconds=clock.used(moment),
                at=moment,
            )
        )
    people = sum(1 for s in seats if s.user_pk is not None)
    if waiting_on is not None and people > 1:
        user_pk = seats[waiting_on].user_pk
        assert user_pk is not None
        left = None if pace is None else new.remaining(waiting_on, moment)
        moved = ended if mover is None else mover
        text = notice_texts.your_turn(record, seats, waiting_on, moved, left)
        notifications.add(conn, user_pk, "your_turn", record.id, text, playing=True)
    return new


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
                    "dice_set": old_source(source, is_draw(event), hand=False),
                    "bag_shuffle": old_source(source, is_draw(event), hand=True),
                    "dice_key": deck_source(source, hand=False),
                    "hand_shuffle": deck_source(source, hand=True),
                    "created_at": moment,
                }
                for i, (event, source) in enumerate(steps)
            ],
        )
    turn = game.turn(state)
    finished = isinstance(turn, Finished)
    waiting_on = turn.seat if isinstance(turn, ToAct) and seats[turn.seat].is_person else None
    movers = [e.seat for e, _ in steps if isinstance(e, Acted) and e.seat != waiting_on]
    others_moved = bool(movers)
    mover = movers[-1] if movers else None
    clock = clock_after(conn, record, seats, waiting_on, moment, others_moved, mover)
    timed = record.pace is not None
    reminders = (
        clock.reminders(_reminders(conn, seats[clock.running]))
        if timed and clock.running is not None
        else []
    )
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
        clock=clock.dumps(),
        deadline=clock.deadline() if timed else None,
        ended_at=moment if finished else None,
    )
    write_game(conn, new, reminders[0] if reminders else None)
    if finished:
        withhold_unshown_dice(conn, record)
    if new.bot_due:
        jobs.wake(conn, jobs.BOTS, announce_bot_due)
    return new


def _reminders(conn: Connection, seat: SeatInfo) -> list[str]:
    """The seat's player's clock reminders (from the seat as read, else asked for)."""
    if seat.settings is not None or seat.user_pk is None:
        return reminders_in(seat.settings)
    return reminders_of(conn, seat.user_pk)


def write_game(conn: Connection, new: GameRecord, remind_at: Any = None) -> None:
    """Write a game's row as ``new`` says (the one statement every change goes through)."""
    conn.execute(
        UPDATE_GAME,
        {
            "b_game": new.id,
            "b_status": new.status,
            "b_version": new.version,
            "b_snapshot": new.snapshot,
            "b_to_act": new.to_act,
            "b_result": new.result,
            "b_events": new.event_count,
            "b_updated": new.updated_at,
            "b_bot_due": new.bot_due,
            "b_clock": new.clock,
            "b_deadline": new.deadline,
            "b_remind_at": remind_at,
            "b_ended_at": new.ended_at,
        },
    )
    if new.status == "finished":
        record_results(conn, new)
        if new.rating_kind is not None:
            rate_game(conn, new)
        moments.game_ended(conn, new)
    if new.ladder:
        settle_game(conn, new)
    if new.status in ENDED:
        settle_table(conn, new)
        tell_game_over(conn, new)


def withhold_unshown_dice(conn: Connection, record: GameRecord) -> None:
    """Mark the dice sets of the outcomes the table never saw (folded Hold'em pockets) as
    withheld, so that no batch reveal or statistic ever shows them; for a game that rolled
    from its decks, count the faces the table saw instead (the fairness statistics)."""
    from_deck = conn.execute(select(GAMES.c.next_key).where(GAMES.c.id == record.id)).scalar()
    if hidden_outcomes_of(record.kind) is None and from_deck is None:
        return
    rows = conn.execute(
        select(EVENTS.c.data, EVENTS.c.dice_set)
        .where(EVENTS.c.game_id == record.id)
        .order_by(EVENTS.c.seq)
    ).all()
    game = entry_of(record.kind).game
    events = [decode_event(game, json.loads(r.data)) for r in rows]
    shown = public_events(record.kind, load_options(record), record.seats, events)
    if from_deck is not None:
        count_shown_faces(conn, record.id, shown)
        return
    withheld = [
        r.dice_set
        for r, event in zip(rows, shown, strict=True)
        if r.dice_set is not None and is_hidden(event)
    ]
    if withheld:
        conn.execute(update(SETS).where(SETS.c.id.in_(withheld)).values(withheld=True))


def count_shown_faces(conn: Connection, game_id: int, shown: Sequence[dict[str, Any]]) -> None:
    """Store how often each face came up in the game's shown rolls (``shown``: its public
    events; draws and hidden rolls are not counted)."""
    counts = [0] * 6
    for event in shown:
        outcome = event.get("outcome")
        if event.get("type") == "resolved" and isinstance(outcome, list):
            for face in outcome:
                if isinstance(face, int) and 1 <= face <= 6:
                    counts[face - 1] += 1
    conn.execute(
        insert(GAME_FACES).values(game_id=game_id, **{f"f{i + 1}": n for i, n in enumerate(counts)})
    )


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


class Applied(NamedTuple):
    """A move applied: the game, its seats, and whether the mover was away (the caller
    then ends the absence, see :func:`apply_move`)."""

    record: GameRecord
    seats: list[SeatInfo]
    was_away: bool


def apply_move(
    conn: Connection,
    pool: DicePool,
    user: User,
    record: GameRecord,
    action_data: object,
    expected_version: int,
    key: str | None,
) -> Applied:
    """Apply a player's action and everything that follows it. Caller commits.

    Any move ends the mover's announced absence (the seats answered show it ended), but not
    here: ending it locks every game it held, and doing so while this game's row is held
    could deadlock with another transaction of the mover's (another move, ``I am back``)
    that locked those games first. With ``was_away`` the caller ends it (see
    :func:`~dicehall.server.domain.games.absence.come_back`) once this one has committed."""
    if record.status == "waiting":
        raise Refused("conflict", "not_started", "this game is waiting for players")
    if record.status == "finished":
        raise Refused("conflict", "finished", "this game is over", version=record.version)
    if record.status != "active":
        raise Refused("conflict", record.status, f"this game is {record.status}")
    seats = seats_of(conn, record.id)
    mine = [s.seat for s in seats if s.user_pk == user.id]
    if not mine:
        raise Refused("forbidden", "not_your_game", "you have no seat in this game")
    seat = seats[mine[0]]
    if seat.status == "autopilot":
        raise Refused(
            "conflict",
            "autopilot",
            "the autopilot plays your seat since you ran out of time; take it back first",
        )
    if seat.forfeited:
        raise Refused("conflict", seat.status, "you have left this game")
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
    # Checked once: the log keeps the action as the rules state it, never figures a client
    # left out, and the rules apply that one.
    action = entry.game.legal_action(before, mine[0], sent)
    state = entry.game.apply(before, mine[0], action)
    steps: list[Step] = [(Acted(mine[0], action), None)]
    if not seat.moved:
        conn.execute(
            update(SEATS)
            .where(SEATS.c.game_id == record.id, SEATS.c.seat == seat.seat)
            .values(moved=True)
        )
        seats[seat.seat] = replace(seat, moved=True)
    if seat.away_until is not None:
        for other in seats:
            if other.user_pk == user.id:
                seats[other.seat] = replace(other, away_until=None)
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
    # The seat shows who is away, unlike the user of a request, whose row may have been
    # read without it.
    return Applied(new, seats, seat.away_until is not None)
