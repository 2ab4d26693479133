"""Who is here: a user appears after API use and while a socket is open, moves from online
to recent and off the list as time passes, hides by a setting, sees buddies first, never
sees anyone across an ignore, and is shown playing, looking or idle; visitors get the
counts only."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from dicehall.server.app import create_app
from dicehall.server.core.models import User
from dicehall.server.domain.people import here, relations, settings
from dicehall.server.domain.services import Services, build_services
from dicehall.server.infra.presence import (
    IDLE,
    LOOKING,
    MemoryPresence,
    Windows,
    at_game,
)
from tests.live import add_user
from tests.server.conftest import MakeUser, site_settings
from tests.waiting import wait_until

API = "/api/v1"
T0 = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)


class Clock:
    """The presence code's clock, moved by hand."""

    def __init__(self) -> None:
        self.at = T0

    def __call__(self) -> datetime:
        return self.at

    def move(self, seconds: float) -> None:
        self.at += timedelta(seconds=seconds)


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    made = Clock()
    monkeypatch.setattr(here, "now", made)
    return made


def listing(client: TestClient, headers: dict[str, str]) -> dict[str, Any]:
    answer = client.get(f"{API}/presence", headers=headers)
    assert answer.status_code == 200, answer.text
    found: dict[str, Any] = answer.json()
    return found


def names(entries: list[dict[str, Any]]) -> list[str]:
    return [e["user_id"] for e in entries]


def pk_of(services: Services, user_id: str) -> int:
    with services.read_conn() as conn:
        found = conn.execute(select(User.id).where(User.key == user_id.lower())).scalar_one()
    return int(found)


def test_a_user_appears_after_api_use_visitors_see_counts_and_last_seen_is_daily(
    client: TestClient, services: Services, make_user: MakeUser, clock: Clock
) -> None:
    ann, bob = make_user("ann"), make_user("bob")
    assert names(listing(client, bob)["online"]) == ["bob"]
    assert client.get(f"{API}/notifications", headers=ann).status_code == 200
    found = listing(client, bob)
    assert names(found["online"]) == ["ann", "bob"]
    entry = found["online"][0]
    assert entry == {
        "user_id": "ann",
        "display_name": "ann",
        "doing": {"what": "idle", "game": None, "kind": None},
        "buddy": False,
        "seen_at": T0.isoformat(),
    }
    assert found["recent"] == [] and found["counts"] == {"online": 2, "recent": 0}
    # A visitor gets the counts only.
    assert client.get(f"{API}/presence").status_code == 401
    assert client.get(f"{API}/presence/counts").json() == {"online": 2, "recent": 0}

    def last_seen() -> datetime | None:
        here.LAST_SEEN_WRITER.submit(lambda: None).result()  # what was handed to it is done
        with services.read_conn() as conn:
            return conn.execute(
                select(User.last_seen_at).where(User.key == "ann")
            ).scalar_one_or_none()

    first = last_seen()
    assert first is not None and first.replace(tzinfo=UTC) == T0
    clock.move(3 * 3600)  # the same day: not written again
    client.get(f"{API}/notifications", headers=ann)
    assert last_seen() == first
    clock.move(24 * 3600)  # the next day
    client.get(f"{API}/notifications", headers=ann)
    later = last_seen()
    assert later is not None and later.replace(tzinfo=UTC) == clock.at


def test_a_socket_makes_its_user_here_and_closing_it_does_not_take_them_out(
    client: TestClient, make_user: MakeUser, clock: Clock
) -> None:
    ann, bob = make_user("ann"), make_user("bob")
    with client.websocket_connect(f"{API}/ws", headers=ann) as socket:
        assert socket.receive_json() == {"type": "hello"}
        assert "ann" in names(listing(client, bob)["online"])
    # A closed socket (a reload) leaves its user online until the window passes.
    assert "ann" in names(listing(client, bob)["online"])
    clock.move(121)
    found = listing(client, bob)
    assert names(found["online"]) == ["bob"] and names(found["recent"]) == ["ann"]


def test_online_then_recent_then_gone_at_the_window_edges(
    client: TestClient, make_user: MakeUser, clock: Clock
) -> None:
    ann, bob = make_user("ann"), make_user("bob")
    client.get(f"{API}/notifications", headers=ann)
    for moved, online, recent in (
        (119.5, ["ann", "bob"], []),
        (1.0, ["bob"], ["ann"]),  # 120.5 s after: recently here
        (778.0, ["bob"], ["ann"]),  # 898.5 s
        (2.0, ["bob"], []),  # 900.5 s: gone
    ):
        clock.move(moved)
        found = listing(client, bob)
        assert (names(found["online"]), names(found["recent"])) == (online, recent), moved
        assert found["counts"] == {"online": len(online), "recent": len(recent)}
        assert client.get(f"{API}/presence/counts").json() == {
            "online": len(online),
            "recent": len(recent),
        }
    # bob's own touch 2 s after the last one was not written (at most one per 15 s).
    assert found["online"][0]["seen_at"] == (clock.at - timedelta(seconds=2)).isoformat()


def test_the_setting_hides_me_but_i_still_see_the_others(
    client: TestClient, services: Services, make_user: MakeUser, clock: Clock
) -> None:
    ann, bob = make_user("ann"), make_user("bob")
    client.get(f"{API}/notifications", headers=ann)
    assert names(listing(client, bob)["online"]) == ["ann", "bob"]
    with services.write_conn() as conn:
        settings.change(conn, pk_of(services, "ann"), {"show_presence": False})
    # At once, before ann is seen again: the list reads the setting.
    assert names(listing(client, bob)["online"]) == ["bob"]
    # Seen again, ann leaves the store too: no count, no list.
    assert names(listing(client, ann)["online"]) == ["bob"]
    assert client.get(f"{API}/presence/counts").json() == {"online": 1, "recent": 0}
    assert names(listing(client, bob)["online"]) == ["bob"]
    with services.write_conn() as conn:
        settings.change(conn, pk_of(services, "ann"), {"show_presence": True})
    clock.move(1)
    client.get(f"{API}/notifications", headers=ann)
    assert names(listing(client, bob)["online"]) == ["ann", "bob"]


def test_hiding_through_the_settings_api_takes_me_out_of_the_counts_at_once(
    client: TestClient, make_user: MakeUser, clock: Clock
) -> None:
    ann, bob = make_user("ann"), make_user("bob")
    client.get(f"{API}/notifications", headers=ann)
    assert names(listing(client, bob)["online"]) == ["ann", "bob"]
    assert client.get(f"{API}/presence/counts").json()["online"] == 2
    hidden = client.patch(f"{API}/users/me/settings", json={"show_presence": False}, headers=ann)
    assert hidden.status_code == 200, hidden.text
    # Not seen again since: the counts already leave ann out.
    assert client.get(f"{API}/presence/counts").json()["online"] == 1


def test_buddies_come_first_and_nobody_is_seen_across_an_ignore(
    client: TestClient, services: Services, make_user: MakeUser, clock: Clock
) -> None:
    users = {name: make_user(name) for name in ("amy", "bob", "carl", "zed", "yuri")}
    client.get(f"{API}/notifications", headers=users["yuri"])
    clock.move(200)  # yuri is recently here
    for name in ("zed", "amy", "carl"):
        client.get(f"{API}/notifications", headers=users[name])
    with services.write_conn() as conn:
        bob = pk_of(services, "bob")
        relations.put(conn, bob, pk_of(services, "zed"), "buddy", None)
        relations.put(conn, bob, pk_of(services, "yuri"), "buddy", None)
        relations.put(conn, pk_of(services, "carl"), bob, "ignore", None)
    clock.move(10)
    client.get(f"{API}/notifications", headers=make_user("xena"))
    found = listing(client, users["bob"])
    # zed is a buddy: first; then by name.
    assert names(found["online"]) == ["zed", "amy", "bob", "xena"]
    assert [e["buddy"] for e in found["online"]] == [True, False, False, False]
    assert names(found["recent"]) == ["yuri"] and found["recent"][0]["buddy"]
    # carl ignores bob: neither sees the other.
    carl = listing(client, users["carl"])
    assert "bob" not in names(carl["online"]) + names(carl["recent"])
    assert "amy" in names(carl["online"])
    assert "carl" not in names(found["online"]) + names(found["recent"])
    clock.move(190)
    found = listing(client, users["bob"])
    assert names(found["online"]) == ["bob"]
    # Buddies first (the most recently seen first among them), though xena came last.
    assert names(found["recent"]) == ["zed", "yuri", "xena", "amy"]


def _create(client: TestClient, headers: dict[str, str], **body: Any) -> int:
    made = client.post(f"{API}/games", json=body, headers=headers)
    assert made.status_code == 201, made.text
    game_id: int = made.json()["id"]
    return game_id


def test_what_each_is_doing(client: TestClient, make_user: MakeUser, clock: Clock) -> None:
    ann, pia, cal, dot, bob = (make_user(n) for n in ("ann", "pia", "cal", "dot", "bob"))
    public = _create(client, ann, game="boatzee", seats=["me", "bot:greedy"])
    private = _create(client, pia, game="boatzee", seats=["me", "bot:greedy"], private=True)
    _create(client, cal, game="tenthousand", seats=["me", "open"])
    clock.move(1)
    client.get(f"{API}/games/{public}", headers=ann)
    client.get(f"{API}/games/{private}", headers=pia)
    client.get(f"{API}/notifications", headers=cal)  # sits in a game waiting for players
    client.get(f"{API}/games/open", headers=dot)  # looks at the open games
    client.get(f"{API}/games/{public}", headers=bob)  # a spectator
    doing = {e["user_id"]: e["doing"] for e in listing(client, bob)["online"]}
    assert doing == {
        "ann": {"what": "playing", "game": public, "kind": "boatzee"},
        # A private game is not named to those who may not watch it.
        "pia": {"what": "playing", "game": None, "kind": None},
        "cal": {"what": "looking", "game": None, "kind": None},
        "dot": {"what": "looking", "game": None, "kind": None},
        "bob": {"what": "idle", "game": None, "kind": None},
    }
    # pia sees her own game; an API call that names no game keeps what she was doing.
    clock.move(20)
    client.get(f"{API}/notifications", headers=pia)
    mine = {e["user_id"]: e["doing"] for e in listing(client, pia)["online"]}
    assert mine["pia"] == {"what": "playing", "game": private, "kind": "boatzee"}


def test_what_a_path_says(clock: Clock) -> None:
    assert here.activity_of_path("/api/v1/games/12/actions") == at_game(12)
    assert here.activity_of_path("/api/v1/games/open") == LOOKING
    assert here.activity_of_path("/api/v1/notifications") is None
    assert here.activity_of_path("/games/7") == at_game(7)
    assert here.activity_of_path("/waiting") == LOOKING
    assert here.activity_of_path("/new/boatzee") == LOOKING
    assert here.activity_of_path("/automatch") == LOOKING
    assert here.activity_of_path("/tournaments/3") == LOOKING
    assert here.activity_of_path("/newsletter") == IDLE
    assert here.activity_of_path("/status") == IDLE
    # An id no stored game can have (a refused request) names no game to look up later.
    assert here.activity_of_path("/api/v1/games/2147483648/actions") is None
    assert here.activity_of_path("/games/9999999999") == IDLE
    assert here.activity_of_path("/api/v1/games/2147483647") == at_game(2147483647)


def test_touches_are_throttled_unless_something_changed() -> None:
    store = MemoryPresence(Windows(120, 900))
    assert store.touch(1, IDLE, T0)
    assert not store.touch(1, IDLE, T0 + timedelta(seconds=5))
    assert not store.touch(1, None, T0 + timedelta(seconds=10))  # says nothing new
    assert store.touch(1, at_game(4), T0 + timedelta(seconds=11))  # at a game now
    assert store.touch(1, None, T0 + timedelta(seconds=30))  # 15 s passed: written
    online, _ = store.listing(T0 + timedelta(seconds=30))
    assert [(s.user_pk, s.activity) for s in online] == [(1, at_game(4))]
    assert online[0].seen_at == T0 + timedelta(seconds=30)
    assert store.touch(1, None, T0 + timedelta(seconds=31), shown=False)  # hides
    assert store.listing(T0 + timedelta(seconds=31)) == ([], [])


@pytest.fixture
def quick_site(db_url: str) -> Iterator[Services]:
    """A site whose online window is 1.5 s (its sockets touch every 0.5 s)."""
    built = build_services(
        site_settings(db_url, presence_online_seconds=1.5, presence_recent_seconds=30)
    )
    try:
        yield built
    finally:
        built.engine.dispose()


def test_an_open_socket_keeps_its_user_online(quick_site: Services, clock: Clock) -> None:
    windows = quick_site.presence.windows
    # The socket's heartbeat (every 0.5 s of real time) comes well within the window.
    assert windows.heartbeat <= windows.online / 3
    ann, bob = add_user(quick_site, "ann"), add_user(quick_site, "bob")
    ann_pk = pk_of(quick_site, "ann")

    def seen_at(entries: list[dict[str, Any]]) -> str | None:
        return next((e["seen_at"] for e in entries if e["user_id"] == "ann"), None)

    with TestClient(create_app(services=quick_site)) as client:
        with client.websocket_connect(f"{API}/ws", headers=ann) as socket:
            assert socket.receive_json() == {"type": "hello"}
            for _ in range(3):  # 3 s on the presence clock: past the 1.5 s window
                clock.move(1.0)  # less than the window since the last touch
                assert "ann" in names(listing(client, bob)["online"])
                wait_until(
                    lambda: seen_at(listing(client, bob)["online"]) == clock.at.isoformat(),
                    what="the socket's next heartbeat",
                )
        # The server ends the socket (its heartbeat first, then its subscription): then the
        # window passes without a touch.
        wait_until(lambda: quick_site.broker.sockets(ann_pk) == 0, what="the socket's end")
        clock.move(windows.online + 0.1)
        assert "ann" in names(listing(client, bob)["recent"])
