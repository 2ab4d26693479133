"""A finished game's public log: Hold'em pockets that were folded or never shown down stay
hidden forever; shown-down pockets, the board and every action are there as played."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from dicehall import games
from dicehall.engine import Seeded, play_out
from dicehall.engine.bots import RandomBot
from dicehall.engine.events import (
    Acted,
    Event,
    Resolved,
    apply_event,
    decode_event,
    encode_event,
)
from dicehall.games.boss.rules import PickUp as BossPickUp
from dicehall.games.holdem import GAME
from dicehall.games.holdem.model import Fold, HoldemOptions, HoldemState
from dicehall.server.core.models import DiceSet, EventRow
from dicehall.server.domain.dice.publiclog import is_hidden, public_events
from dicehall.server.domain.services import Services
from tests.server.conftest import MakeUser
from tests.server.test_five_games import API, play


def holdem_game(seed: int, seats: int, stack: int = 30) -> tuple[HoldemOptions, list[Event]]:
    """A whole Hold'em game between random bots, with seeded dice."""
    options = GAME.options({"stack": stack})
    bots = [RandomBot(random.Random(seed * 10 + s)) for s in range(seats)]
    _, _, events = play_out(GAME, seats, options, bots, Seeded(seed))
    return options, events


@dataclass
class Pocket:
    """One seat's pocket in one hand, the events that dealt it, and how the hand ended."""

    hand: int
    seat: int
    dice: tuple[str, ...] = ()
    events: list[int] = field(default_factory=list)
    folded: bool = False
    shown: bool = False


def pockets_of(options: HoldemOptions, seats: int, events: list[Event]) -> list[Pocket]:
    """Every pocket dealt, found by watching the state's pockets fill (the colour draw is
    the chance event just before the face roll that fills one)."""
    state: HoldemState = GAME.start(seats, options)
    found: dict[tuple[int, int], Pocket] = {}
    last_chance = -1
    for index, event in enumerate(events):
        before = state
        state = apply_event(GAME, state, event)
        if isinstance(event, Acted) and isinstance(event.action, Fold):
            found[(before.hand, event.seat)].folded = True
        if isinstance(event, Resolved):
            for seat in range(seats):
                if not before.pockets[seat] and state.pockets[seat]:
                    pocket = Pocket(state.hand, seat, state.pockets[seat], [last_chance, index])
                    found[(state.hand, seat)] = pocket
            last_chance = index
        if state.last is not None and state.last != before.last:
            for showing in state.last.showdown:
                pocket = found[(state.last.hand, showing.seat)]
                assert showing.pocket == pocket.dice
                pocket.shown = True
    return list(found.values())


def check_public_log(options: HoldemOptions, seats: int, events: list[Event]) -> list[Pocket]:
    """The public log hides exactly the unshown pockets and shows all else as played."""
    public = public_events("holdem", options, seats, events)
    pockets = pockets_of(options, seats, events)
    hidden = {i for p in pockets if not p.shown for i in p.events}
    assert len(public) == len(events)
    for index, (event, shown) in enumerate(zip(events, public, strict=True)):
        if index in hidden:
            assert isinstance(event, Resolved)
            assert shown == {"type": "resolved", "outcome": {"hidden": True, "count": 2}}
            assert is_hidden(shown)
        else:
            # Shown-down pockets, the board, re-rolls and every action, exactly as played.
            assert shown == encode_event(event)
            assert not is_hidden(shown)
    for pocket in pockets:
        if pocket.folded:
            assert not pocket.shown, "a folded pocket reached a showdown"
        colours, faces = (public[i]["outcome"] for i in pocket.events)
        if pocket.shown:
            assert [f"{f}{c}" for f, c in zip(faces, colours, strict=True)] == list(pocket.dice)
        else:
            assert colours == faces == {"hidden": True, "count": 2}
    return pockets


def hands_of(pockets: list[Pocket]) -> dict[int, list[Pocket]]:
    """The pockets grouped by hand."""
    hands: dict[int, list[Pocket]] = {}
    for pocket in pockets:
        hands.setdefault(pocket.hand, []).append(pocket)
    return hands


def test_a_folded_pocket_is_never_in_the_public_log() -> None:
    # The first seeded game with a hand where one seat folded and two others showed down.
    for seed in range(50):
        options, events = holdem_game(seed, seats=3)
        for hand in hands_of(check_public_log(options, 3, events)).values():
            if any(p.folded for p in hand) and sum(p.shown for p in hand) >= 2:
                break
        else:
            continue
        break
    else:
        pytest.fail("no seeded game had a fold beside a showdown")
    folded = [p for p in hand if p.folded]
    public = public_events("holdem", options, 3, events)
    for pocket in folded:
        for index in pocket.events:
            assert public[index]["outcome"] == {"hidden": True, "count": 2}
    shown = [p for p in hand if p.shown]
    for pocket in shown:
        colours, faces = (public[i]["outcome"] for i in pocket.events)
        assert [f"{f}{c}" for f, c in zip(faces, colours, strict=True)] == list(pocket.dice)


def test_an_uncontested_winner_pocket_is_never_shown_either() -> None:
    for seed in range(50):
        options, events = holdem_game(seed, seats=2)
        hands = hands_of(check_public_log(options, 2, events))
        won_uncontested = [
            p for ps in hands.values() if any(q.folded for q in ps) for p in ps if not p.folded
        ]
        if won_uncontested:
            assert not any(p.shown for p in won_uncontested)
            return
    pytest.fail("no seeded heads-up game had a fold")


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    seats=st.integers(2, 6),
    stack=st.sampled_from([10, 30, 60]),
)
def test_public_log_hides_exactly_the_unshown_pockets(seed: int, seats: int, stack: int) -> None:
    options, events = holdem_game(seed, seats, stack)
    check_public_log(options, seats, events)


def test_a_hand_cut_short_shows_none_of_its_pockets() -> None:
    options, events = holdem_game(3, seats=3)
    # Cut just after the first hand's pockets are dealt (before any showdown).
    first_bet = next(i for i, e in enumerate(events) if isinstance(e, Acted))
    public = public_events("holdem", options, 3, events[:first_bet])
    assert public and all(is_hidden(e) for e in public)


def test_dice_sets_are_withheld_with_their_outcomes() -> None:
    options, events = holdem_game(1, seats=3)
    sets = list(range(100, 100 + len(events)))
    public = public_events("holdem", options, 3, events, dice_sets=sets)
    for index, event in enumerate(public):
        assert event["dice_set"] == (None if is_hidden(event) else sets[index])
    with pytest.raises(ValueError, match="dice sets"):
        public_events("holdem", options, 3, events, dice_sets=sets[:-1])


@pytest.mark.parametrize("kind", ["tenthousand", "boatzee", "bullseye"])
def test_games_without_hidden_dice_show_everything(kind: str) -> None:
    game = games.get(kind).game
    extra: dict[str, Any] = {"bullseye": {"rounds": 1, "allow_two_seats": True}}
    options = game.options(extra.get(kind, {}))
    bots = [RandomBot(random.Random(s)) for s in range(2)]
    _, _, events = play_out(game, 2, options, bots, Seeded(5))
    public = public_events(kind, options, 2, events)
    assert public == [encode_event(e) for e in events]


def test_the_log_endpoint_of_a_finished_holdem_game_hides_unshown_pockets(
    client: TestClient, make_user: MakeUser, services: Services
) -> None:
    alice = make_user("alice")
    created = client.post(
        f"{API}/games",
        json={
            "game": "holdem",
            "options": {"stack": 30},
            "seats": ["me", "bot:random"],
        },
        headers=alice,
    )
    assert created.status_code == 201, created.text
    final = play(client, services, {0: alice}, created.json(), random.Random(7))
    assert final["status"] == "finished"
    log = client.get(f"{API}/games/{final['id']}/log").json()

    with services.sessions() as db:
        rows = db.execute(
            select(EventRow.data, EventRow.dice_key)
            .where(EventRow.game_id == final["id"])
            .order_by(EventRow.seq)
        ).all()
    events = [decode_event(GAME, json.loads(row.data)) for row in rows]
    options = GAME.options({"stack": 30})
    expected = public_events("holdem", options, 2, events, dice_keys=[row.dice_key for row in rows])
    assert log["events"] == expected
    pockets = pockets_of(options, 2, events)
    assert any(not p.shown for p in pockets), "every pocket was shown down; pick another seed"
    for pocket in pockets:
        for index in pocket.events:
            assert is_hidden(log["events"][index]) is not pocket.shown


@pytest.mark.usefixtures("old_scheme")  # old batches serve only games from before decks
def test_a_revealed_batch_marks_the_dice_of_unshown_pockets_unseen(
    client: TestClient, make_user: MakeUser, services: Services
) -> None:
    """Fold means never shown: not in the log, nor in the counts of old batches nor in those
    of finished games; an old scheme-1 batch, whose one hash covers every set, shows them
    once its games are over, marked ``unseen``, so that it can be checked whole."""
    from tests.server.legacy_batches import make_legacy

    make_legacy(services)
    alice = make_user("alice")
    hidden_sets: set[int] = set()
    shown_sets: set[int] = set()
    for seed in range(6):
        created = client.post(
            f"{API}/games",
            json={"game": "holdem", "options": {"stack": 30}, "seats": ["me", "bot:random"]},
            headers=alice,
        )
        final = play(client, services, {0: alice}, created.json(), random.Random(seed))
        log = client.get(f"{API}/games/{final['id']}/log").json()
        with services.sessions() as db:
            served = db.scalars(
                select(EventRow.dice_set).where(
                    EventRow.game_id == final["id"], EventRow.dice_set.is_not(None)
                )
            ).all()
        public = {e["dice_set"] for e in log["events"] if e["dice_set"] is not None}
        shown_sets |= public
        hidden_sets |= {s for s in served if s is not None} - public
    assert hidden_sets, "no pocket went unshown in six games"
    with services.write_conn() as conn:
        services.pool.reveal_ready(conn)
    report = client.get(f"{API}/fairness").json()
    revealed = [b for b in report["batches"] if b["revealed"]]
    # Only old batches are revealed whole; a new one never is (each game's proof shows its dice).
    assert revealed and all(b["scheme"] == 1 for b in revealed)
    seen_hidden = seen_shown = withheld_count = 0
    for record in revealed:
        batch = client.get(f"{API}/fairness/batches/{record['id']}").json()
        assert batch["withheld"] == []
        withheld_count += len(batch["unseen"])
        for place, faces in enumerate(batch["sets"]):
            set_id = batch["first_set"] + place
            if set_id in hidden_sets:
                assert faces is not None and place in batch["unseen"]
                seen_hidden += 1
            elif set_id in shown_sets:
                assert faces is not None
                seen_shown += 1
    assert seen_hidden and seen_shown
    total_sets = sum(b["size"] for b in revealed)
    assert report["revealed"]["dice"] == 6 * (total_sets - withheld_count)
    # Every finished game's shown sets count, no hidden pocket's (no game is in progress).
    with services.sessions() as db:
        served_sets = db.scalars(select(DiceSet.id).where(DiceSet.game_id.is_not(None))).all()
    assert hidden_sets <= set(served_sets)
    assert report["finished"]["dice"] == 6 * (len(served_sets) - len(hidden_sets))


@settings(max_examples=30, deadline=None, derandomize=True, database=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_a_boss_bluff_that_was_picked_up_is_never_in_the_public_log(seed: int) -> None:
    game = games.get("boss").game
    options = game.options({"horses": 3})
    bots = [RandomBot(random.Random(seed + s)) for s in range(2)]
    _, _, events = play_out(game, 2, options, bots, Seeded(seed))
    public = public_events("boss", options, 2, events)
    state = game.start(2, options)
    concealed: int | None = None
    for index, event in enumerate(events):
        if isinstance(event, Resolved) and state.phase == "boss_roll":
            concealed = index
        elif isinstance(event, Acted) and concealed is not None:
            picked_up = isinstance(event.action, BossPickUp)
            assert is_hidden(public[concealed]) is picked_up
            concealed = None
        elif not (isinstance(event, Resolved) and index == concealed):
            assert public[index] == encode_event(event)
        state = apply_event(game, state, event)
