"""Singularity: the moments written as games and tournaments end (Boatzees, a record beaten,
a Hold'em pot, a tournament's winner), what is left out (private games, members who hide,
anyone across an ignore), the counts, the API's shape, and the push that says when to ask
again. The dice are chosen by serving every roll one face."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Connection, select
from time_machine import TimeMachineFixture

from dicehall.engine.chance import Draw, Roll
from dicehall.engine.events import Resolved
from dicehall.games.highlights import Highlight
from dicehall.server.app import create_app
from dicehall.server.core.clock import now
from dicehall.server.domain.games import quotas
from dicehall.server.domain.services import Services
from dicehall.server.domain.singularity import counts
from dicehall.server.domain.singularity.moments import HIGHLIGHTS
from dicehall.server.domain.tournaments import job
from dicehall.server.infra.push import LocalBroker, RedisBroker, TooManySockets
from tests.live import add_user
from tests.server.conftest import Headers, MakeUser, jobless_services
from tests.server.test_redis_isolation import REDIS_URL, need_redis

API = "/api/v1"


@pytest.fixture(autouse=True)
def _many_creates(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(quotas, "CREATES_PER_MINUTE", 10_000)


@pytest.fixture
def services(db_url: str) -> Iterator[Services]:
    """The site with its periodic jobs off (the tournament test runs its job by hand)."""
    try:
        yield from jobless_services(db_url)
    finally:
        counts.forget()


@pytest.fixture
def client(services: Services) -> Iterator[TestClient]:
    with TestClient(create_app(services=services)) as test_client:
        yield test_client


class Faces:
    """Every roll the site serves shows :attr:`face` on every die (None: the pool's own)."""

    def __init__(self) -> None:
        self.face: int | None = None


@pytest.fixture
def faces(services: Services, monkeypatch: pytest.MonkeyPatch) -> Faces:
    chosen = Faces()
    resolve = services.pool.decks.resolve

    def served(conn: Connection, game_id: int, request: Roll | Draw, bags: bool) -> Any:
        found = resolve(conn, game_id, request, bags)
        if chosen.face is None or found is None or not isinstance(request, Roll):
            return found
        return Resolved((chosen.face,) * request.count), found[1]

    monkeypatch.setattr(services.pool.decks, "resolve", served)
    return chosen


def solo_boatzee(client: TestClient, headers: Headers, **body: Any) -> int:
    """A game of Boatzee alone, played to its end by scoring the first box each turn."""
    made = client.post(
        f"{API}/games", json={"game": "boatzee", "seats": ["me"], **body}, headers=headers
    )
    assert made.status_code == 201, made.text
    game = made.json()
    while game["status"] == "active":
        score = next(a for a in game["legal"] if a["type"] == "score")
        moved = client.post(
            f"{API}/games/{game['id']}/actions",
            json={"action": score, "expected_version": game["version"]},
            headers=headers,
        )
        assert moved.status_code == 200, moved.text
        game = moved.json()
    assert game["status"] == "finished"
    game_id: int = game["id"]
    return game_id


def pulse(client: TestClient, headers: Headers | None = None) -> Any:
    answer = client.get(f"{API}/singularity", headers=headers or {})
    assert answer.status_code == 200, answer.text
    return answer.json()


def moments_of(client: TestClient, headers: Headers | None = None) -> list[tuple[str, str]]:
    return [(m["what"], m["sentence"]) for m in pulse(client, headers)["moments"]]


def stored(services: Services) -> list[Any]:
    with services.read_conn() as conn:
        return list(conn.execute(select(HIGHLIGHTS).order_by(HIGHLIGHTS.c.id)).all())


def test_boatzees_and_a_record_beaten(
    client: TestClient, make_user: MakeUser, faces: Faces
) -> None:
    alma = make_user("alma")
    faces.face = 1  # every box of five 1s: 5 + 5 + 5 + 50 (Boatzee) + 5 = 70
    first = solo_boatzee(client, alma)
    # The first game sets no record: there was none to beat.
    assert moments_of(client) == [("boatzee", "alma rolled 13 Boatzees")]
    faces.face = 6  # 30 + 30 + 30 + 50 + 30 = 170
    second = solo_boatzee(client, alma)
    answer = pulse(client)
    assert [(m["what"], m["game"], m["value"]) for m in answer["moments"]] == [
        ("record", second, 170),
        ("boatzee", second, 13),
        ("boatzee", first, 13),
    ]
    record = answer["moments"][0]
    assert record["sentence"] == (
        "alma scored 170 points, a new site record for a Boatzee score (the last was 70)"
    )
    assert record["player"] == {"name": "alma", "user_id": "alma"}
    assert record["title"] == "Boatzee" and record["tournament"] is None
    # A tie is no record; a lower score neither.
    for face in (6, 2):
        faces.face = face
        solo_boatzee(client, alma)
    assert [m["what"] for m in pulse(client)["moments"]][:3] == ["boatzee", "boatzee", "record"]


def test_double_and_triple_are_their_own_records_and_counts(
    client: TestClient, make_user: MakeUser, faces: Faces, time_machine: TimeMachineFixture
) -> None:
    time_machine.move_to(now(), tick=False)
    alma = make_user("alma")
    faces.face = 1
    solo_boatzee(client, alma)
    faces.face = 6
    triple = solo_boatzee(client, alma, options={"columns": 3})
    # Triple Boatzee's first game beats no single-column record.
    assert ("record", triple) not in [(m["what"], m["game"]) for m in pulse(client)["moments"]]
    assert pulse(client)["moments"][0]["title"] == "Triple Boatzee"
    for columns in (2, 3, 3):
        made = client.post(
            f"{API}/games",
            json={"game": "boatzee", "seats": ["me"], "options": {"columns": columns}},
            headers=alma,
        )
        assert made.status_code == 201, made.text
    # The counts are kept a few seconds: the new games count once they are counted again.
    assert pulse(client)["counts"]["in_progress"] == 0
    time_machine.shift(counts.KEEP_SECONDS)
    counted = pulse(client)["counts"]
    assert counted["playing"] == [
        {"game": "boatzee", "title": "Double Boatzee", "games": 1},
        {"game": "boatzee", "title": "Triple Boatzee", "games": 2},
    ]
    assert counted["in_progress"] == 3
    assert counted["finished_today"] == 2
    # A Boatzee and a Triple Boatzee played (13 and 39 boxes scored) in the last hour.
    assert counted["moves_last_hour"] == 13 + 39
    assert counted["tournaments_running"] == 0


def test_private_games_write_nothing_and_who_hides_is_left_out(
    client: TestClient, services: Services, make_user: MakeUser, faces: Faces
) -> None:
    alma, bea, cid = make_user("alma"), make_user("bea"), make_user("cid")
    faces.face = 5
    solo_boatzee(client, alma, private=True)
    assert stored(services) == []
    hidden = client.patch(f"{API}/users/me/settings", json={"show_presence": False}, headers=bea)
    assert hidden.status_code == 200, hidden.text
    solo_boatzee(client, bea)
    # Written (it is a public game), but shown to nobody while its player hides.
    assert [row.what for row in stored(services) if row.shown] == ["boatzee"]
    assert moments_of(client) == moments_of(client, alma) == []
    shown = client.patch(f"{API}/users/me/settings", json={"show_presence": True}, headers=bea)
    assert shown.status_code == 200, shown.text
    assert moments_of(client) == [("boatzee", "bea rolled 13 Boatzees")]
    # Across an ignore, neither sees the other's moments; everyone else does.
    ignored = client.put(f"{API}/relations/bea", json={"kind": "ignore"}, headers=cid)
    assert ignored.status_code == 200, ignored.text
    assert moments_of(client, cid) == []
    assert moments_of(client, alma) == [("boatzee", "bea rolled 13 Boatzees")]


def test_a_holdem_pot_of_a_whole_stack(client: TestClient, make_user: MakeUser) -> None:
    alma, bea = make_user("alma"), make_user("bea")
    made = client.post(
        f"{API}/games",
        json={"game": "holdem", "seats": ["me", "bea"], "options": {"stack": 30}},
        headers=alma,
    )
    assert made.status_code == 201, made.text
    game_id = made.json()["id"]
    assert client.post(f"{API}/games/{game_id}/accept", headers=bea).status_code == 200
    players = {0: alma, 1: bea}
    for _ in range(200):
        game = client.get(f"{API}/games/{game_id}", headers=alma).json()
        if game["status"] != "active":
            break
        mine = client.get(f"{API}/games/{game_id}", headers=players[game["to_act"]]).json()
        # Everything in, every hand: a pot holds both stacks.
        kinds = [a["type"] for a in mine["legal"]]
        chosen = next(k for k in ("all_in", "call", "raise", "bet", "check") if k in kinds)
        action = mine["legal"][kinds.index(chosen)]
        moved = client.post(
            f"{API}/games/{game_id}/actions",
            json={"action": action, "expected_version": mine["version"]},
            headers=players[game["to_act"]],
        )
        assert moved.status_code == 200, moved.text
    assert game["status"] == "finished"
    pots = [m for m in pulse(client)["moments"] if m["what"] == "pot"]
    assert len(pots) == 1 and pots[0]["value"] == 60 and pots[0]["game"] == game_id
    assert pots[0]["text"] in ("won a pot of 60 chips", "shared a pot of 60 chips")
    assert pots[0]["title"] == "Hold'em Dice"


def test_a_tournaments_winner(client: TestClient, services: Services) -> None:
    ann, ben = add_user(services, "ann"), add_user(services, "ben")
    made = client.post(
        f"{API}/tournaments",
        json={
            "name": "Duel cup",
            "game": "boatzee",
            "options": {"columns": 2},
            "format": "cup",
            "size": 2,
            "pace": {"bank": 600},
        },
        headers=ann,
    )
    assert made.status_code == 201, made.text
    tid = made.json()["id"]
    for user in (ann, ben):
        assert client.post(f"{API}/tournaments/{tid}/join", headers=user).status_code == 200
    job.run(services, now())
    assert pulse(client)["counts"]["tournaments_running"] == 1
    game_id = client.get(f"{API}/tournaments/{tid}").json()["rounds"][0]["tables"][0]["game_id"]
    game = client.get(f"{API}/games/{game_id}", headers=ben).json()
    resigned = client.post(
        f"{API}/games/{game_id}/resign", json={"expected_version": game["version"]}, headers=ben
    )
    assert resigned.status_code == 200, resigned.text
    job.run(services, now())
    assert client.get(f"{API}/tournaments/{tid}").json()["status"] == "finished"
    answer = pulse(client)
    assert answer["counts"]["tournaments_running"] == 0
    won = [m for m in answer["moments"] if m["what"] == "tournament"]
    assert [(m["sentence"], m["title"], m["tournament"], m["game"]) for m in won] == [
        ("ann won the Double Boatzee tournament", "Duel cup", tid, None)
    ]


def _raises(_played: Any) -> list[Any]:
    raise RuntimeError("a bug in a game's highlights")


def _not_highlights(_played: Any) -> list[Any]:
    return [None]


def _too_big(_played: Any) -> list[Any]:
    return [Highlight("boatzee", 0, "rolled too many Boatzees", 2**64)]


@pytest.mark.parametrize("broken", [_raises, _not_highlights, _too_big])
def test_a_failing_hook_never_stops_a_game_from_ending(
    client: TestClient,
    services: Services,
    make_user: MakeUser,
    faces: Faces,
    monkeypatch: pytest.MonkeyPatch,
    broken: Callable[[Any], list[Any]],
) -> None:
    monkeypatch.setattr("dicehall.games.boatzee.highlights.highlights", broken)
    faces.face = 6
    solo_boatzee(client, make_user("alma"))
    assert stored(services) == []


def test_the_answers_shape_and_its_checks(client: TestClient, make_user: MakeUser) -> None:
    # A member seen just now is online (members who hide are not counted).
    alma = make_user("alma")
    answer = pulse(client, alma)
    assert answer["counts"]["online"] == 1
    assert set(answer) == {"counts", "moments"}
    assert set(answer["counts"]) == {
        "online",
        "in_progress",
        "playing",
        "moves_last_hour",
        "finished_today",
        "tournaments_running",
    }
    for bad in ("0", "51", "x"):
        refused = client.get(f"{API}/singularity", params={"limit": bad})
        assert refused.status_code == 422 and refused.json()["code"] == "invalid_request"


def test_a_socket_following_the_site_hears_each_end(
    client: TestClient, make_user: MakeUser, faces: Faces
) -> None:
    alma = make_user("alma")
    faces.face = 3
    # A signed-out visitor may follow the site.
    with client.websocket_connect(f"{API}/ws?singularity=1") as socket:
        assert socket.receive_json() == {"type": "hello"}
        solo_boatzee(client, alma)
        assert socket.receive_json() == {"type": "singularity"}


def test_the_page_shows_the_same_without_scripts(
    client: TestClient, make_user: MakeUser, faces: Faces
) -> None:
    alma = make_user("alma")
    faces.face = 4
    game_id = solo_boatzee(client, alma)
    page = client.get("/singularity")
    assert page.status_code == 200
    html = page.text
    assert 'data-testid="pulse-finished">1<' in html
    assert '<a href="/users/alma">alma</a> rolled 13 Boatzees in' in html
    assert f'<a href="/games/{game_id}">Boatzee #{game_id}</a>' in html
    assert 'aria-live="polite"' in html and "/static/js/singularity.js" in html


def test_the_brokers_deliver_the_pulse_to_its_followers_on_every_process() -> None:
    need_redis()
    site = f"pulse-{uuid.uuid4().hex[:8]}"

    async def scenario() -> None:
        local = LocalBroker(anonymous_watchers=1)
        one, two = RedisBroker(REDIS_URL, site), RedisBroker(REDIS_URL, site)
        for broker in (local, one, two):
            await broker.start()
        assert one.subscribed and two.subscribed
        here: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        there: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        message = {"type": "singularity"}
        try:
            async with local.follow_site(here, user_pk=None):
                # Signed-out followers count against the same cap as games' spectators.
                with pytest.raises(TooManySockets):
                    async with local.follow_site(there, user_pk=None):
                        pass
                local.publish_site(message)
                assert await asyncio.wait_for(here.get(), 5) == message
            async with one.follow_site(here, user_pk=3), two.follow_site(there, user_pk=None):
                two.publish_site(message)  # heard by the other process's follower too
                assert await asyncio.wait_for(here.get(), 5) == message
                assert await asyncio.wait_for(there.get(), 5) == message
            assert not one._pulse and not two._pulse
        finally:
            for broker in (local, one, two):
                await broker.stop()

    asyncio.run(scenario())
