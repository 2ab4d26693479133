"""Ladders: joining at the bottom, leaving, the positions and the
record of moves; the rules of a challenge; a challenge starts a rated ladder game at once;
a win from below takes the loser's place, a win from above or an abort moves nothing.
(Inactivity and ladder vacation: test_ladder_inactivity.py.)"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Connection, func, select

from dicehall.server.core.clock import now
from dicehall.server.core.models import Notification, RatingChange, User
from dicehall.server.domain.people import relations
from dicehall.server.domain.people import settings as user_settings
from dicehall.server.domain.ratings import ladders
from dicehall.server.domain.ratings.ladder_moves import MOVES, POSITIONS
from dicehall.server.domain.services import Services
from tests.live import add_user
from tests.server.conftest import Headers, MakeUser
from tests.server.resigning import resign

API = "/api/v1"
KIND = "tenthousand"
T0 = datetime(2031, 3, 2, 12, tzinfo=UTC)


# -- helpers ---------------------------------------------------------------------------------


def pk_of(services: Services, name: str) -> int:
    with services.read_conn() as conn:
        found = conn.execute(select(User.__table__.c.id).where(User.__table__.c.key == name))
        return int(found.scalar_one())


def write(services: Services, work: Callable[[Connection], Any]) -> Any:
    with services.write_conn() as conn:
        return work(conn)


def people(services: Services, count: int, prefix: str = "p") -> list[tuple[str, Headers]]:
    """``count`` users (fast: no password hashing) with bearer headers."""
    return [(f"{prefix}{i}", add_user(services, f"{prefix}{i}")) for i in range(count)]


def join_all(services: Services, names: list[str], at: datetime | None = None) -> None:
    moment = at or now()
    for name in names:

        def join(conn: Connection, user_pk: int = pk_of(services, name)) -> None:
            ladders.join(conn, KIND, user_pk, moment)

        write(services, join)


def order(services: Services, kind: str = KIND) -> list[str]:
    """The ladder's user ids, top first (and its positions are exactly 1..N)."""
    users = User.__table__
    with services.read_conn() as conn:
        rows = conn.execute(
            select(POSITIONS.c.position, users.c.user_id)
            .join(users, users.c.id == POSITIONS.c.user_pk)
            .where(POSITIONS.c.kind == kind)
            .order_by(POSITIONS.c.position)
        ).all()
    assert [r.position for r in rows] == list(range(1, len(rows) + 1))
    return [r.user_id for r in rows]


def moves_of(services: Services) -> list[tuple[str, int | None, int | None, str, int | None]]:
    """Every recorded move, oldest first: (user id, old, new, reason, game)."""
    users = User.__table__
    with services.read_conn() as conn:
        rows = conn.execute(
            select(MOVES, users.c.user_id)
            .join(users, users.c.id == MOVES.c.user_pk)
            .order_by(MOVES.c.id)
        ).all()
    return [(r.user_id, r.old_position, r.new_position, r.reason, r.game_id) for r in rows]


def challenge(client: TestClient, headers: Headers, opponent: str, status: int = 201) -> Any:
    answer = client.post(
        f"{API}/ladders/{KIND}/challenges", json={"opponent": opponent}, headers=headers
    )
    assert answer.status_code == status, answer.text
    return answer.json()


# -- joining, leaving, positions, history --------------------------------------------------------


def test_join_leave_positions_and_history(client: TestClient, make_user: MakeUser) -> None:
    ann, bob, cat = make_user("ann"), make_user("bob"), make_user("cat")
    for headers, position in ((ann, 1), (bob, 2), (cat, 3)):
        answer = client.post(f"{API}/ladders/{KIND}/join", headers=headers)
        assert answer.status_code == 200, answer.text
        assert answer.json()["position"] == position and answer.json()["players"] == position
    again = client.post(f"{API}/ladders/{KIND}/join", headers=bob)
    assert again.status_code == 409 and again.json()["code"] == "already_on_ladder"
    nowhere = client.post(f"{API}/ladders/chess/join", headers=bob)
    assert nowhere.status_code == 404 and nowhere.json()["code"] == "no_such_ladder"
    assert client.get(f"{API}/ladders/chess").status_code == 404

    listed = {row["kind"]: row for row in client.get(f"{API}/ladders", headers=cat).json()}
    assert list(listed) == [
        "tenthousand", "boatzee", "boatzee-double", "boatzee-triple", "boss", "holdem",
    ]  # fmt: skip
    assert listed[KIND] == {"kind": KIND, "title": "Ten Thousand", "players": 3, "my_position": 3}
    assert listed["boss"]["players"] == 0 and listed["boss"]["my_position"] is None
    assert client.get(f"{API}/ladders").json()[0]["my_position"] is None  # a visitor

    board = client.get(f"{API}/ladders/{KIND}", headers=ann).json()
    assert [p["user_id"] for p in board["positions"]] == ["ann", "bob", "cat"]
    first = board["positions"][0]
    assert first["rating"] == 1500 and first["provisional"] and first["rated_games"] == 0
    assert not first["can_challenge"] and board["positions"][2]["can_challenge"]
    assert board["me"]["position"] == 1 and board["me"]["vacation_days_left"] == 30
    assert board["me"]["drop_due_at"] is not None and board["my_games"] == []

    left = client.post(f"{API}/ladders/{KIND}/leave", headers=bob)
    assert left.status_code == 200 and left.json()["position"] is None
    assert left.json()["players"] == 2
    gone = client.post(f"{API}/ladders/{KIND}/leave", headers=bob)
    assert gone.status_code == 409 and gone.json()["code"] == "not_on_ladder"
    board = client.get(f"{API}/ladders/{KIND}").json()
    assert [(p["position"], p["user_id"]) for p in board["positions"]] == [(1, "ann"), (2, "cat")]

    history = client.get(f"{API}/ladders/{KIND}/history", params={"limit": 2}).json()
    seen = [
        (m["user_id"], m["old_position"], m["new_position"], m["reason"]) for m in history["moves"]
    ]
    assert seen == [("bob", 2, None, "left"), ("cat", 3, 2, "moved_up")]
    rest = client.get(
        f"{API}/ladders/{KIND}/history", params={"cursor": history["next"], "limit": 10}
    ).json()
    assert [(m["user_id"], m["reason"]) for m in rest["moves"]] == [
        ("cat", "joined"), ("bob", "joined"), ("ann", "joined"),
    ]  # fmt: skip
    assert rest["next"] is None
    bad = client.get(f"{API}/ladders/{KIND}/history", params={"cursor": "x1"})
    assert bad.status_code == 422 and bad.json()["code"] == "invalid_cursor"
    # Rejoining enters at the bottom.
    back = client.post(f"{API}/ladders/{KIND}/join", headers=bob)
    assert back.json()["position"] == 3


def test_a_page_of_positions(client: TestClient, services: Services) -> None:
    names = [name for name, _ in people(services, 7)]
    join_all(services, names)
    page = client.get(f"{API}/ladders/{KIND}", params={"start": 3, "limit": 2}).json()
    assert [p["position"] for p in page["positions"]] == [3, 4] and page["next_start"] == 5
    last = client.get(f"{API}/ladders/{KIND}", params={"start": 6, "limit": 5}).json()
    assert [p["user_id"] for p in last["positions"]] == ["p5", "p6"] and last["next_start"] is None


# -- challenges ------------------------------------------------------------------------------------


def test_the_rules_of_a_challenge(client: TestClient, services: Services) -> None:
    cast = people(services, 24)
    headers = dict(cast)
    join_all(services, [name for name, _ in cast[:23]])  # p23 stays off the ladder
    top = headers["p0"]
    assert challenge(client, top, "p0", 422)["code"] == "yourself"
    assert challenge(client, top, "nobody", 422)["code"] == "unknown_user"
    assert challenge(client, headers["p23"], "p0", 409)["code"] == "not_on_ladder"
    assert challenge(client, top, "p23", 409)["code"] == "opponent_not_on_ladder"
    far = challenge(client, top, "p21", 409)  # 21 places below
    assert far["code"] == "too_far" and "20 places" in far["error"]
    assert challenge(client, headers["p21"], "p0", 409)["code"] == "too_far"  # 21 above
    made = challenge(client, top, "p20")  # exactly 20 places: allowed
    assert made["challenger"] == "p0" and made["opponent"] == "p20" and made["open"]
    challenge(client, headers["p20"], "p0")  # being challenged does not use up my own
    challenge(client, top, "p1")
    third = challenge(client, top, "p2", 429)
    assert third["code"] == "too_many_challenges"
    board = client.get(f"{API}/ladders/{KIND}", headers=top).json()
    assert board["me"]["open_challenges"] == 2 and len(board["my_games"]) == 3
    marks = {p["user_id"]: p for p in board["positions"]}
    assert marks["p20"]["challenged_by_me"] and marks["p20"]["challenges_me"]
    assert marks["p1"]["challenged_by_me"] and marks["p1"]["in_game"]
    assert not any(p["can_challenge"] for p in board["positions"])  # 2 of mine are open
    assert board["me"]["drop_due_at"] is None  # in a game: inactivity waits
    # The same rule on another ladder is counted apart.
    for name in ("p0", "p1", "p2"):
        assert client.post(f"{API}/ladders/boss/join", headers=headers[name]).status_code == 200
    answer = client.post(f"{API}/ladders/boss/challenges", json={"opponent": "p2"}, headers=top)
    assert answer.status_code == 201, answer.text


def test_no_challenge_across_an_ignore_or_against_the_setting(
    client: TestClient, services: Services
) -> None:
    cast = dict(people(services, 4, "q"))
    join_all(services, list(cast))
    q0, q1, q2 = (pk_of(services, n) for n in ("q0", "q1", "q2"))
    write(services, lambda c: relations.put(c, q0, q1, "ignore", None))
    write(services, lambda c: user_settings.change(c, q2, {"challenges_from": "nobody"}))
    ignored = challenge(client, cast["q1"], "q0", 403)
    ignoring = challenge(client, cast["q0"], "q1", 403)
    by_setting = challenge(client, cast["q3"], "q2", 403)
    assert ignored["code"] == ignoring["code"] == by_setting["code"] == "not_accepted"
    assert ignored["error"] == "you cannot play with q0"
    assert by_setting["error"] == "you cannot play with q2"
    assert client.get(f"{API}/games", headers=cast["q0"]).json() == []
    challenge(client, cast["q2"], "q3")  # the setting is q2's, not a wall


def test_a_challenge_starts_a_rated_ladder_game_at_once(
    client: TestClient, services: Services
) -> None:
    cast = dict(people(services, 2, "r"))
    join_all(services, list(cast))
    made = challenge(client, cast["r1"], "r0")
    game = client.get(f"{API}/games/{made['game_id']}", headers=cast["r0"]).json()
    assert game["status"] == "active" and game["game"] == "tenthousand"
    assert game["rating_kind"] == KIND and game["ladder"] is True
    assert game["pace"]["name"] == "days-3"
    assert sorted(s["user"] for s in game["seats"]) == ["r0", "r1"]
    assert not any(s["invited"] for s in game["seats"])
    listed = client.get(f"{API}/games", headers=cast["r0"]).json()
    assert [(g["id"], g["ladder"], g["invitation"]) for g in listed] == [
        (made["game_id"], True, False)
    ]
    wrong = client.get(f"{API}/users/r0/games", params={"kind": "friendly"})
    assert wrong.status_code == 422 and wrong.json()["code"] == "invalid_kind"
    friendly = client.post(
        f"{API}/games", json={"game": "tenthousand", "seats": ["me", "bot:random"]},
        headers=cast["r0"],
    ).json()  # fmt: skip
    assert friendly["ladder"] is False
    history = client.get(
        f"{API}/users/r0/games", params={"state": "active", "kind": "ladder"}
    ).json()
    assert [g["id"] for g in history["games"]] == [made["game_id"]]
    with services.read_conn() as conn:
        told = conn.execute(
            select(Notification.__table__.c.text).where(
                Notification.__table__.c.kind == "ladder",
                Notification.__table__.c.user_pk == pk_of(services, "r0"),
            )
        ).scalar_one()
    assert "r1 challenged you on the Ten Thousand ladder" in told


def test_a_win_from_below_takes_the_place_and_moves_those_between_down(
    client: TestClient, services: Services
) -> None:
    cast = dict(people(services, 6, "s"))
    join_all(services, list(cast))
    made = challenge(client, cast["s4"], "s1")  # 5th challenges 2nd
    before = len(moves_of(services))
    resign(client, cast["s1"], made["game_id"])  # the higher player resigns: s4 wins
    assert order(services) == ["s0", "s4", "s1", "s2", "s3", "s5"]
    # Recorded with the cause last, so that the record read newest first starts with it.
    assert moves_of(services)[before:] == [
        ("s3", 4, 5, "passed", made["game_id"]),
        ("s2", 3, 4, "passed", made["game_id"]),
        ("s1", 2, 3, "passed", made["game_id"]),
        ("s4", 5, 2, "won", made["game_id"]),
    ]
    board = client.get(f"{API}/ladders/{KIND}", headers=cast["s4"]).json()
    assert board["me"]["open_challenges"] == 0 and board["my_games"] == []
    rated = {p["user_id"]: p for p in board["positions"]}
    assert rated["s4"]["rating"] > 1500 > rated["s1"]["rating"]
    assert rated["s4"]["rated_games"] == 1
    with services.read_conn() as conn:
        changes = conn.execute(
            select(func.count()).where(RatingChange.__table__.c.game_id == made["game_id"])
        ).scalar_one()
    assert changes == 2
    finished = client.get(f"{API}/users/s4/games", params={"kind": "ladder"}).json()["games"]
    assert [(g["id"], g["result"], g["ladder"]) for g in finished] == [
        (made["game_id"], "win", True)
    ]


def test_a_win_from_above_or_an_abort_moves_nothing(client: TestClient, services: Services) -> None:
    cast = dict(people(services, 4, "u"))
    join_all(services, list(cast))
    made = challenge(client, cast["u0"], "u3")
    before = moves_of(services)
    resign(client, cast["u3"], made["game_id"])  # the higher player wins
    assert order(services) == ["u0", "u1", "u2", "u3"] and moves_of(services) == before
    made = challenge(client, cast["u3"], "u1")
    game = client.get(f"{API}/games/{made['game_id']}", headers=cast["u1"]).json()
    aborted = client.post(
        f"{API}/games/{made['game_id']}/abort",
        json={"expected_version": game["version"]},
        headers=cast["u1"],
    )
    assert aborted.status_code == 200 and aborted.json()["status"] == "aborted"
    assert order(services) == ["u0", "u1", "u2", "u3"] and moves_of(services) == before
    board = client.get(f"{API}/ladders/{KIND}", headers=cast["u3"]).json()
    assert board["me"]["open_challenges"] == 0  # both challenges closed


def test_a_result_after_leaving_moves_nobody(client: TestClient, services: Services) -> None:
    cast = dict(people(services, 3, "v"))
    join_all(services, list(cast))
    made = challenge(client, cast["v2"], "v0")
    assert client.post(f"{API}/ladders/{KIND}/leave", headers=cast["v0"]).status_code == 200
    resign(client, cast["v0"], made["game_id"])
    assert order(services) == ["v1", "v2"]


@pytest.mark.both_databases
def test_two_ladder_games_ending_at_once_keep_the_ladder_whole(
    client: TestClient, services: Services
) -> None:
    cast = dict(people(services, 6, "w"))
    join_all(services, list(cast))
    first = challenge(client, cast["w4"], "w1")
    second = challenge(client, cast["w5"], "w3")
    errors: list[BaseException] = []

    def lose(name: str, game_id: int) -> None:
        try:
            resign(client, cast[name], game_id)
        except BaseException as exc:
            errors.append(exc)

    threads = [
        threading.Thread(target=lose, args=("w1", first["game_id"])),
        threading.Thread(target=lose, args=("w3", second["game_id"])),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    # In either order (w4 over w1 first, then w5 at 6 over w3 at 5; or w5 over w3 at 4
    # first, then w4 at 6 over w1) the two wins end the same way.
    assert order(services) == ["w0", "w4", "w1", "w2", "w5", "w3"]
