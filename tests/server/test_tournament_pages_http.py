"""The tournament pages without a browser: the area's sections and
filter, the create form (its errors by the field, input kept, nothing created; a good one
creates and opens the tournament's page), Join and Withdraw through the page, the status
page's mark of a tournament game and the profile's results; and a socket following a
tournament hears each change, from any server process (the brokers, local and Redis)."""

from __future__ import annotations

import asyncio
import re
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from starlette.websockets import WebSocketDisconnect

from dicehall.server.app import create_app
from dicehall.server.core.clock import now
from dicehall.server.domain.services import Services
from dicehall.server.domain.tournaments import job
from dicehall.server.domain.tournaments.rows import TOURNAMENTS
from dicehall.server.infra.push import LocalBroker, RedisBroker, TooManySockets
from tests.server.conftest import jobless_services
from tests.server.test_redis_isolation import REDIS_URL, need_redis
from tests.web.test_pages_forms import _error_of, _signup


@pytest.fixture
def services(db_url: str) -> Iterator[Services]:
    """The site with its periodic jobs off: the test runs the tournaments job itself."""
    yield from jobless_services(db_url)


@pytest.fixture
def web(services: Services) -> Iterator[TestClient]:
    with TestClient(create_app(services=services), follow_redirects=False) as client:
        yield client


def _count(services: Services) -> int:
    with services.read_conn() as conn:
        return int(conn.execute(select(func.count()).select_from(TOURNAMENTS)).scalar_one())


def _as(web: TestClient, cookies: dict[str, str]) -> None:
    web.cookies.clear()
    for name, value in cookies.items():
        web.cookies.set(name, value)


def _good(csrf: str, **changes: str) -> dict[str, str]:
    values = {
        "csrf_token": csrf,
        "game": "boss",
        "name": "Friday cup",
        "format": "cup",
        "size": "2",
        "rounds": "",
        "table": "2",
        "pace": "live",
        "rated": "on",
        "start": "full",
        "starts_at": "",
        "who": "anyone",
    }
    values.update(changes)
    return values


def test_the_area_and_the_create_form(web: TestClient, services: Services) -> None:
    visitor = web.get("/tournaments")
    assert visitor.status_code == 200
    assert "Create a tournament" not in visitor.text and "Log in</a> to join" in visitor.text
    for heading in ("Open to join", "Running", "Finished"):
        assert heading in visitor.text
    assert web.get("/tournaments/new").headers["location"].startswith("/login?next=")
    assert web.get("/tournaments?game=chess").status_code == 422

    csrf = _signup(web, "ann")
    area = web.get("/tournaments").text
    assert 'href="/tournaments/new"' in area
    form = web.get("/tournaments/new?game=bullseye").text
    assert "A Bull&#39;s Eye tournament" in form and 'name="opt_' in form
    assert 'value="3" selected' in form  # Bull's Eye sits three at a table by default
    assert "Live: 20 min per player" in form

    # Mistakes are said next to their fields, what was typed kept, and nothing is created.
    wrong = web.post("/tournaments/new", data=_good(csrf, size="many", name="Kept name"))
    assert wrong.status_code == 422
    assert "whole number" in _error_of(wrong.text, "size")
    assert 'value="Kept name"' in wrong.text and 'value="many"' in wrong.text
    no_name = web.post("/tournaments/new", data=_good(csrf, name="  "))
    assert "name" in _error_of(no_name.text, "name")
    big_cup = web.post("/tournaments/new", data=_good(csrf, size="40"))
    assert _error_of(big_cup.text, "size") == (
        "Error: The number of players must be a whole number from 2 to 32."
    )
    no_size = web.post("/tournaments/new", data=_good(csrf, format="swiss", rounds="3", size=""))
    assert "needs a size" in _error_of(no_size.text, "size")
    no_rounds = web.post("/tournaments/new", data=_good(csrf, format="swiss", size="4"))
    assert "number of rounds" in _error_of(no_rounds.text, "rounds")
    past = web.post(
        "/tournaments/new", data=_good(csrf, start="at", starts_at="2001-01-01T10:00", size="")
    )
    assert "future" in _error_of(past.text, "starts_at")
    assert 'value="2001-01-01T10:00"' in past.text
    no_time = web.post("/tournaments/new", data=_good(csrf, start="at"))
    assert "start time" in _error_of(no_time.text, "starts_at")
    table = web.post("/tournaments/new", data=_good(csrf, table="5"))
    assert "Tables of this game have 2 seats." in _error_of(table.text, "table")
    pace = web.post("/tournaments/new", data=_good(csrf, pace="warp"))
    assert "paces in the list" in _error_of(pace.text, "pace")
    game = web.post("/tournaments/new", data=_good(csrf, game="chess"))
    assert "site's games" in _error_of(game.text, "game")
    option = web.post(
        "/tournaments/new",
        data=_good(csrf, game="tenthousand", table="2", format="swiss", rounds="2",
                   size="4", opt_target="12"),
    )  # fmt: skip
    assert option.status_code == 422 and 'aria-invalid="true"' in option.text
    forged = web.post("/tournaments/new", data=_good(csrf, csrf_token="forged"))
    assert forged.status_code == 422 and "expired" in forged.text
    assert _count(services) == 0

    made = web.post("/tournaments/new", data=_good(csrf, who="buddies"))
    assert made.status_code == 303, made.text
    path = made.headers["location"].split("?")[0]
    assert re.fullmatch(r"/tournaments/\d+", path) and made.headers["location"].endswith(
        "?created=1"
    )
    shown = web.get(made.headers["location"]).text
    assert "Tournament created." in shown and "<h1>Friday cup</h1>" in shown
    assert "Cup, tables of 2" in shown and "0 of 2" in shown
    assert "buddies of <a" in shown and "live: 20 min a game" in shown
    assert "Join the tournament" in shown  # the creator joins like anyone
    listed = web.get("/tournaments?game=boss").text
    assert f'href="{path}"' in listed and "buddies only" in listed
    assert f'href="{path}"' not in web.get("/tournaments?game=boatzee").text
    assert web.get("/tournaments/99999").status_code == 404
    assert web.get("/tournaments/new-ish").status_code == 404


def test_join_and_withdraw_through_the_page(web: TestClient, services: Services) -> None:
    ann_csrf = _signup(web, "ann")
    ann = dict(web.cookies.items())
    made = web.post("/tournaments/new", data=_good(ann_csrf, name="Duel cup"))
    path = made.headers["location"].split("?")[0]
    tournament_id = int(path.rsplit("/", 1)[1])

    joined = web.post(f"{path}/join", data={"csrf_token": ann_csrf})
    assert joined.status_code == 303 and joined.headers["location"] == f"{path}?joined=1"
    page = web.get(joined.headers["location"]).text
    assert "You joined the tournament." in page and 'data-testid="standing-ann"' in page
    again = web.post(f"{path}/join", data={"csrf_token": ann_csrf})
    assert again.status_code == 409 and "You are in this tournament already." in again.text
    forged = web.post(f"{path}/withdraw", data={"csrf_token": "forged"})
    assert forged.status_code == 422 and "expired" in forged.text
    left = web.post(f"{path}/withdraw", data={"csrf_token": ann_csrf})
    assert left.status_code == 303 and left.headers["location"] == f"{path}?withdrawn=1"
    page = web.get(left.headers["location"]).text
    assert "You withdrew from the tournament." in page and "Nobody has joined yet." in page
    not_in = web.post(f"{path}/withdraw", data={"csrf_token": ann_csrf})
    assert not_in.status_code == 409 and "You are not in this tournament." in not_in.text
    assert web.post("/tournaments/424242/join", data={"csrf_token": ann_csrf}).status_code == 404
    web.post(f"{path}/join", data={"csrf_token": ann_csrf})

    web.cookies.clear()
    bob_csrf = _signup(web, "bob")
    bob = dict(web.cookies.items())
    assert web.post(f"{path}/join", data={"csrf_token": bob_csrf}).status_code == 303
    # Full: the tournaments job starts it and seats the first round.
    assert job.run(services, now()) >= 1
    page = web.get(path).text
    assert "round 1" in page and 'data-testid="table-1-1"' in page
    # Its first round has begun: the old "created" and "joined" addresses say so no more.
    for news in ("created", "joined"):
        old_news = web.get(f"{path}?{news}=1").text
        assert 'class="notice"' not in old_news and "round 1" in old_news, news
    game_id = int(re.search(r'href="/games/(\d+)">Game \1</a>', page).group(1))  # type: ignore[union-attr]
    assert "You play in this tournament." in page and "Withdraw" in page

    # The status page marks the game with its tournament, round and deadline.
    status = web.get("/status").text
    mark = re.search(rf'data-testid="tournament-mark-{game_id}">(.*?)</span>\s*</td>', status, re.S)
    assert mark is not None, status
    text = re.sub(r"<[^>]+>", "", mark.group(1))
    assert "Tournament Duel cup, round 1, deadline" in text and "UTC" in text
    assert f'href="/tournaments/{tournament_id}"' in mark.group(1)

    # Bob resigns: the cup is over; the standings and the profiles say so.
    _as(web, bob)
    version = web.get(f"/api/v1/games/{game_id}").json()["version"]
    resigned = web.post(
        f"/api/v1/games/{game_id}/resign",
        json={"expected_version": version},
        headers={"X-CSRF-Token": bob_csrf},
    )
    assert resigned.status_code == 200, resigned.text
    job.run(services, now())
    page = web.get(path).text
    assert "finished" in page and 'data-testid="points-ann">2<' in page
    profile = web.get("/users/ann").text
    result = re.search(rf'data-testid="result-{tournament_id}">(.*?)</tr>', profile, re.S)
    assert result is not None
    assert "Duel cup" in result.group(1) and "1 of 2" in result.group(1)
    assert ">2</td>" in result.group(1)
    _as(web, ann)
    assert "Finished" in web.get("/tournaments").text


def test_a_socket_following_a_tournament_hears_its_changes(
    web: TestClient, services: Services
) -> None:
    csrf = _signup(web, "ann")
    made = web.post("/tournaments/new", data=_good(csrf, name="Heard cup"))
    tournament_id = int(made.headers["location"].split("?")[0].rsplit("/", 1)[1])
    cookies = dict(web.cookies.items())
    web.cookies.clear()
    # A signed-out visitor follows it; a tournament that does not exist is refused.
    with web.websocket_connect(f"/api/v1/ws?tournament={tournament_id}") as socket:
        assert socket.receive_json() == {"type": "hello"}
        _as(web, cookies)
        assert (
            web.post(f"/tournaments/{tournament_id}/join", data={"csrf_token": csrf}).status_code
            == 303
        )
        heard: dict[str, Any] = socket.receive_json()
        assert heard == {"type": "tournament", "id": tournament_id, "version": 1}
    web.cookies.clear()
    with (
        pytest.raises(WebSocketDisconnect) as refused,
        web.websocket_connect("/api/v1/ws?tournament=777777") as socket,
    ):
        socket.receive_json()
    assert refused.value.code == 4404


def test_the_brokers_deliver_a_tournament_to_its_followers_on_every_process() -> None:
    need_redis()
    site = f"follow-{uuid.uuid4().hex[:8]}"

    async def scenario() -> None:
        local = LocalBroker(anonymous_watchers=1)
        one, two = RedisBroker(REDIS_URL, site), RedisBroker(REDIS_URL, site)
        for broker in (local, one, two):
            await broker.start()  # a Redis one returns once Redis confirmed its subscription
        assert one.subscribed and two.subscribed
        here: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        there: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        other: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        message = {"type": "tournament", "id": 7, "version": 3}
        try:
            async with local.follow_tournament(7, here, user_pk=None):
                # Signed-out followers count against the same cap as games' spectators.
                with pytest.raises(TooManySockets):
                    async with local.follow_tournament(8, other, user_pk=None):
                        pass
                local.publish_tournament(8, {"type": "tournament", "id": 8, "version": 1})
                local.publish_tournament(7, message)
                assert await asyncio.wait_for(here.get(), 5) == message
            async with (
                one.follow_tournament(7, here, user_pk=3),
                two.follow_tournament(7, there, user_pk=None),
                two.follow_tournament(9, other, user_pk=None),
            ):
                two.publish_tournament(7, message)  # from the other process too
                assert await asyncio.wait_for(here.get(), 5) == message
                assert await asyncio.wait_for(there.get(), 5) == message
                # A marker for tournament 9 published after the push for 7 comes after
                # anything of it that would reach the follower of 9: it must come first.
                marker = {"type": "marker", "id": 9}
                two.publish_tournament(9, marker)
                assert await asyncio.wait_for(other.get(), 5) == marker
                assert other.empty()
            assert not one._tournaments and not two._tournaments
        finally:
            for broker in (local, one, two):
                await broker.stop()

    asyncio.run(scenario())
