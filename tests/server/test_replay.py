"""The replay of a game that is over: one frame per event, each as
a spectator may know it once the game is over (folded Hold'em pockets and a Boss's
picked-up concealed roll never appear), the position after it, and the scores so far, the
last ones the result's; refused while the game is in play, and for a private game to
anyone but its players."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from dicehall import games
from dicehall.engine import codec
from dicehall.engine.events import Acted, Event, Resolved, apply_event, decode_event
from dicehall.games.boss.rules import PickUp
from dicehall.server.core.models import EventRow
from dicehall.server.domain.services import Services
from tests.server.conftest import Headers, MakeUser
from tests.server.test_five_games import API, SHORT, play
from tests.server.test_public_log import pockets_of

HIDDEN_POCKET = {"hidden": True, "count": 2}


def replay_of(client: TestClient, game_id: int, headers: Headers | None = None) -> Any:
    answer = client.get(f"{API}/games/{game_id}/replay", headers=headers or {})
    assert answer.status_code == 200, answer.text
    return answer.json()


def stored_events(services: Services, kind: str, game_id: int) -> list[Event]:
    game = games.get(kind).game
    with services.sessions() as db:
        rows = db.scalars(
            select(EventRow.data).where(EventRow.game_id == game_id).order_by(EventRow.seq)
        ).all()
    return [decode_event(game, json.loads(data)) for data in rows]


def against_a_bot(
    client: TestClient, services: Services, me: Headers, kind: str, seed: int, bot: str = ""
) -> Any:
    """A short game of ``kind`` against a bot, played to the end with random moves."""
    options, default_bot = SHORT[kind]
    created = client.post(
        f"{API}/games",
        json={"game": kind, "options": options, "seats": ["me", f"bot:{bot or default_bot}"]},
        headers=me,
    )
    assert created.status_code == 201, created.text
    final = play(client, services, {0: me}, created.json(), random.Random(seed), spectator=False)
    assert final["status"] == "finished"
    return final


def check_frames(client: TestClient, services: Services, final: Any) -> Any:
    """The replay of a finished game: a frame per event, each told as the public log tells
    it, each view a spectator's view of the replayed state, the last standing the result's."""
    replay = replay_of(client, final["id"])
    log = client.get(f"{API}/games/{final['id']}/log").json()
    frames = replay["frames"]
    assert len(frames) == len(log["events"]) > 0
    assert [f["index"] for f in frames] == list(range(len(frames)))
    for frame, public in zip(frames, log["events"], strict=True):
        public = {k: v for k, v in public.items() if k not in ("dice_set", "dice_key")}
        assert frame["event"] == public
        assert frame["seat"] == (public["seat"] if public["type"] == "acted" else None)
    assert any(f["lines"] for f in frames)
    game = games.get(final["game"]).game
    events = stored_events(services, final["game"], final["id"])
    state = game.start(len(final["seats"]), codec.decode(final["options"], game.options_type))
    for frame, event in zip(frames, events, strict=True):
        state = apply_event(game, state, event)
        assert frame["view"] == codec.encode(game.view(state, None))
    assert replay["id"] == final["id"] and replay["game"] == final["game"]
    assert replay["seats"] == final["seats"]
    assert replay["result"] == final["result"] and replay["ranking"] == final["ranking"]
    last = frames[-1]["standing"]
    if last is not None:
        assert last["scores"] == final["result"]["scores"]
        assert last["noun"] == game.turn_noun
    return replay


@pytest.mark.parametrize("kind", sorted(SHORT))
def test_a_finished_game_replays_event_by_event(
    kind: str, client: TestClient, make_user: MakeUser, services: Services
) -> None:
    alice = make_user("alice")
    final = against_a_bot(client, services, alice, kind, seed=11)
    replay = check_frames(client, services, final)
    # Every roll shown to the table is told with its dice as they fell...
    rolls = [
        f
        for f in replay["frames"]
        if f["event"]["type"] == "resolved" and isinstance(f["event"]["outcome"], list)
    ]
    untold = [f for f in rolls if not any(line["dice"] for line in f["lines"])]
    assert rolls and len(untold) < len(rolls)
    if kind == "boss":
        # ... but a Boss's roll under the cup, told at its showdown (or never: picked up),
        assert all("under the cup" in f["lines"][0]["text"] for f in untold)
    elif kind != "holdem":  # (whose pockets are told at their showdown)
        assert not untold


def test_a_game_in_play_has_no_replay_yet(client: TestClient, make_user: MakeUser) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    created = client.post(
        f"{API}/games", json={"game": "boss", "seats": ["me", "bob"]}, headers=alice
    ).json()
    waiting = client.get(f"{API}/games/{created['id']}/replay", headers=alice)
    assert waiting.status_code == 409 and waiting.json()["code"] == "in_progress"
    game = client.post(f"{API}/games/{created['id']}/accept", headers=bob).json()
    for headers in (alice, bob, {}):
        answer = client.get(f"{API}/games/{game['id']}/replay", headers=headers)
        assert answer.status_code == 409, answer.text
        assert answer.json()["code"] == "in_progress"
    missing = client.get(f"{API}/games/999999/replay")
    assert missing.status_code == 404
    assert client.get(f"{API}/games/0/replay").status_code == 422


def test_a_resigned_game_and_an_aborted_one_replay(
    client: TestClient, make_user: MakeUser, services: Services
) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    body = {
        "game": "tenthousand",
        "seats": ["me", "bob"],
        "options": {"target": 5000, "entry_threshold": 0},
    }
    created = client.post(f"{API}/games", json=body, headers=alice).json()
    game = client.post(f"{API}/games/{created['id']}/accept", headers=bob).json()
    assert not any(s["moved"] for s in game["seats"])
    aborted = client.post(
        f"{API}/games/{game['id']}/abort",
        json={"expected_version": game["version"]},
        headers=bob,
    ).json()
    assert aborted["status"] == "aborted"
    replay = replay_of(client, game["id"])
    assert replay["result"] is None and replay["ranking"] is None
    assert len(replay["frames"]) == len(stored_events(services, "tenthousand", game["id"]))

    created = client.post(f"{API}/games", json=body, headers=alice).json()
    game = client.post(f"{API}/games/{created['id']}/accept", headers=bob).json()
    players = {0: alice, 1: bob}
    mover = game["to_act"]
    mine = client.get(f"{API}/games/{game['id']}", headers=players[mover]).json()
    moved = client.post(
        f"{API}/games/{game['id']}/actions",
        json={"action": mine["legal"][0], "expected_version": mine["version"]},
        headers=players[mover],
    )
    assert moved.status_code == 200, moved.text
    after = moved.json()
    assert after["seats"][mover]["moved"] and not after["seats"][1 - mover]["moved"]
    resigned = client.post(
        f"{API}/games/{game['id']}/resign",
        json={"expected_version": after["version"]},
        headers=players[mover],
    ).json()
    assert resigned["status"] == "finished" and resigned["result"]["winners"] == [1 - mover]
    replay = check_frames(client, services, resigned)
    assert replay["ranking"] == [1 - mover, mover]
    assert replay["seats"][mover]["status"] == "resigned"


def test_a_private_game_replays_only_for_its_players(
    client: TestClient, make_user: MakeUser, services: Services
) -> None:
    alice, eve = make_user("alice"), make_user("eve")
    created = client.post(
        f"{API}/games",
        json={
            "game": "tenthousand",
            "options": SHORT["tenthousand"][0],
            "seats": ["me", "bot:heuristic"],
            "private": True,
        },
        headers=alice,
    )
    assert created.status_code == 201, created.text
    final = play(client, services, {0: alice}, created.json(), random.Random(2), spectator=False)
    for headers in (eve, {}):
        answer = client.get(f"{API}/games/{final['id']}/replay", headers=headers)
        assert answer.status_code == 404, answer.text
        assert answer.json()["code"] == "not_found"
    assert replay_of(client, final["id"], alice)["frames"]


def test_a_folded_holdem_pocket_is_in_no_frame(
    client: TestClient, make_user: MakeUser, services: Services
) -> None:
    alice = make_user("alice")
    for seed in range(8):
        final = against_a_bot(client, services, alice, "holdem", seed)
        events = stored_events(services, "holdem", final["id"])
        holdem = games.get("holdem").game
        options = codec.decode(final["options"], holdem.options_type)
        pockets = pockets_of(options, 2, events)
        if any(p.folded for p in pockets):
            break
    else:
        pytest.fail("nobody folded in eight games")
    frames = check_frames(client, services, final)["frames"]
    unshown = [p for p in pockets if not p.shown]
    assert any(p.folded for p in unshown)
    for pocket in unshown:
        for index in pocket.events:
            assert frames[index]["event"]["outcome"] == HIDDEN_POCKET
            assert all(not line["dice"] for line in frames[index]["lines"])
    shown = {(p.hand, p.seat): p.dice for p in pockets if p.shown}
    for frame in frames:
        view = frame["view"]
        assert view["pocket"] == [] and "pockets" not in view
        # A pocket is in a view only as a showdown's, and only one that was shown down.
        if view["last"] is not None:
            for showing in view["last"]["showdown"]:
                key = (view["last"]["hand"], showing["seat"])
                assert tuple(showing["pocket"]) == shown[key]


def _picked_up_rolls(events: list[Any], options: Any) -> tuple[list[int], dict[int, Any]]:
    """Indices of concealed rolls the Boss picked up, and of those shown down (with the
    action that followed); a Boss who kept a full house rolled nothing concealed."""
    game = games.get("boss").game
    state = game.start(2, options)
    concealed: int | None = None
    picked: list[int] = []
    shown: dict[int, Any] = {}
    for index, event in enumerate(events):
        if isinstance(event, Resolved) and state.phase == "boss_roll":
            concealed = index
        elif isinstance(event, Acted) and concealed is not None:
            if isinstance(event.action, PickUp):
                picked.append(concealed)
            else:
                shown[concealed] = event
            concealed = None
        state = apply_event(game, state, event)
    return picked, shown


def test_a_picked_up_boss_roll_is_in_no_frame(
    client: TestClient, make_user: MakeUser, services: Services
) -> None:
    alice = make_user("alice")
    game = games.get("boss").game
    for seed in range(20):
        final = against_a_bot(client, services, alice, "boss", seed, bot="random")
        events = stored_events(services, "boss", final["id"])
        options = codec.decode(final["options"], game.options_type)
        picked, shown = _picked_up_rolls(events, options)
        if picked:
            break
    else:
        pytest.fail("nobody picked up a concealed roll in twenty games")
    frames = check_frames(client, services, final)["frames"]
    for index in shown:
        assert frames[index]["event"] == {
            "type": "resolved",
            "outcome": list(event_outcome(events[index])),
        }
    for index in picked:
        outcome = frames[index]["event"]["outcome"]
        assert outcome == {"hidden": True, "count": len(event_outcome(events[index]))}
        assert all(not line["dice"] for line in frames[index]["lines"])
    assert all(frame["view"]["concealed"] is None for frame in frames)


def event_outcome(event: Event) -> Any:
    assert isinstance(event, Resolved)
    return codec.encode(event.outcome)
