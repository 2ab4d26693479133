"""The public profile's API answer: the day last seen (never a
time), games finished, current games without private ones, the head-to-head record with the
viewer by the games' ranking, and the viewer's own relation and note (shown to nobody else)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import Connection, select, update

from dicehall.server.core.models import GameRow, SeatRow, User
from dicehall.server.domain.people import profile
from dicehall.server.domain.services import Services
from tests.server.conftest import Headers, MakeUser
from tests.server.resigning import resign

API = "/api/v1"


def two_person_game(
    client: TestClient, me: Headers, rival: Headers, rival_id: str, *, private: bool = False
) -> Any:
    """A started game of Ten Thousand between me and ``rival_id`` (no clock)."""
    made = client.post(
        f"{API}/games",
        json={"game": "tenthousand", "seats": ["me", rival_id], "pace": "none", "private": private},
        headers=me,
    )
    assert made.status_code == 201, made.text
    accepted = client.post(f"{API}/games/{made.json()['id']}/accept", headers=rival)
    assert accepted.status_code == 200, accepted.text
    return accepted.json()


def profile_of(client: TestClient, user_id: str, headers: Headers | None = None) -> Any:
    answer = client.get(f"{API}/users/{user_id}", headers=headers or {})
    assert answer.status_code == 200, answer.text
    return answer.json()


def _share_the_win(services: Services, game_id: int) -> None:
    """Make a finished game a shared win with equal scores and nobody gone (a draw)."""
    result = {"type": "result", "winners": [0, 1], "scores": [500, 500], "turns": 3}
    with services.write_conn() as conn:
        conn.execute(update(GameRow).where(GameRow.id == game_id).values(result=json.dumps(result)))
        conn.execute(
            update(SeatRow)
            .where(SeatRow.game_id == game_id)
            .values(status="playing", left_version=None)
        )


def test_the_profile_answers_for_visitors_players_and_others(
    client: TestClient, make_user: MakeUser, services: Services
) -> None:
    ann, bob, cat = make_user("ann"), make_user("bob"), make_user("cat")
    # Ann wins one (Bob resigns), loses one (she resigns), and draws one against Bob.
    resign(client, bob, two_person_game(client, ann, bob, "bob")["id"])["id"]
    resign(client, ann, two_person_game(client, ann, bob, "bob")["id"])["id"]
    _share_the_win(
        services, resign(client, bob, two_person_game(client, bob, ann, "ann")["id"])["id"]
    )
    # A game against a bot counts as finished for Ann, never against Bob.
    bot_game = client.post(
        f"{API}/games", json={"game": "boss", "seats": ["me", "bot:random"]}, headers=ann
    ).json()
    resign(client, ann, bot_game["id"])
    public = two_person_game(client, ann, bob, "bob")
    private = two_person_game(client, bob, ann, "ann", private=True)
    with_bot = client.post(
        f"{API}/games", json={"game": "boatzee", "seats": ["me", "bot:random"]}, headers=ann
    ).json()
    seen = datetime(2026, 3, 4, 17, 45, 12, tzinfo=UTC)
    with services.write_conn() as conn:
        conn.execute(update(User).where(User.user_id == "ann").values(last_seen_at=seen))

    visitor = profile_of(client, "ANN")
    assert visitor["last_seen"] == "2026-03-04"  # the day, never the time
    assert visitor["reliability"]["games_finished"] == 4
    assert [g["id"] for g in visitor["current_games"]] == [with_bot["id"], public["id"]]
    assert visitor["head_to_head"] is None and visitor["relation"] is None
    # Private games are listed to nobody here, their own players included.
    for viewer in (ann, bob, cat):
        listed = [g["id"] for g in profile_of(client, "ann", viewer)["current_games"]]
        assert private["id"] not in listed and public["id"] in listed
    assert [g["id"] for g in profile_of(client, "bob", cat)["current_games"]] == [public["id"]]

    assert profile_of(client, "bob", ann)["head_to_head"] == {
        "games": 3,
        "win": 1,
        "loss": 1,
        "draw": 1,
    }
    assert profile_of(client, "ann", bob)["head_to_head"] == {
        "games": 3,
        "win": 1,
        "loss": 1,
        "draw": 1,
    }
    assert profile_of(client, "ann", cat)["head_to_head"] == {
        "games": 0,
        "win": 0,
        "loss": 0,
        "draw": 0,
    }
    assert profile_of(client, "ann", ann)["head_to_head"] is None  # my own profile


def test_head_to_head_counts_by_the_ranking_not_the_seat(
    client: TestClient, make_user: MakeUser, services: Services
) -> None:
    ann, bob = make_user("ann"), make_user("bob")
    # Bob created all three and sits first; Ann resigns twice: two losses for her.
    for _ in range(2):
        resign(client, ann, two_person_game(client, bob, ann, "ann")["id"])
    won = resign(client, bob, two_person_game(client, bob, ann, "ann")["id"])["id"]
    assert profile_of(client, "bob", ann)["head_to_head"] == {
        "games": 3,
        "win": 1,
        "loss": 2,
        "draw": 0,
    }
    # Equal scores without a shared win and nobody gone: placed equal, a draw.
    with services.write_conn() as conn:
        conn.execute(
            update(GameRow)
            .where(GameRow.id == won)
            .values(result=json.dumps({"winners": [], "scores": [300, 300]}))
        )
        conn.execute(update(SeatRow).where(SeatRow.game_id == won).values(status="playing"))
        assert profile.head_to_head(conn, pk_of(conn, "ann"), pk_of(conn, "bob")).draw == 1


def pk_of(conn: Connection, user_id: str) -> int:
    return int(conn.execute(select(User.id).where(User.user_id == user_id)).scalar_one())


def test_places_of_three_or_more_seats() -> None:
    # Neither won: the higher score places above; one who left places below all who stayed.
    ahead = profile._place(0, "playing", None, {2}, [40, 30, 90])
    behind = profile._place(1, "playing", None, {2}, [40, 30, 90])
    gone = profile._place(1, "resigned", 7, {2}, [40, 99, 90])
    assert ahead < behind < gone
    assert profile._place(0, "playing", None, {0, 1}, [5, 5]) == profile._place(
        1, "playing", None, {0, 1}, [5, 5]
    )


def test_the_relation_and_note_are_shown_only_to_their_writer(
    client: TestClient, make_user: MakeUser
) -> None:
    ann, bob, cat = make_user("ann"), make_user("bob"), make_user("cat")
    note = "<img src=x onerror=alert(1)> owes me a rematch"
    answer = client.put(f"{API}/relations/bob", json={"kind": "buddy", "note": note}, headers=ann)
    assert answer.status_code == 200, answer.text
    assert profile_of(client, "bob", ann)["relation"] == {"kind": "buddy", "note": note}
    assert profile_of(client, "bob", cat)["relation"] is None
    assert profile_of(client, "bob", bob)["relation"] is None
    assert profile_of(client, "bob")["relation"] is None
    assert profile_of(client, "ann", bob)["relation"] is None  # one-way
    assert note not in client.get(f"{API}/users/bob", headers=bob).text


def test_last_seen_words() -> None:
    today = datetime(2026, 5, 10, tzinfo=UTC).date()
    assert profile.seen_words(None, today) == "not yet"
    assert profile.seen_words(today, today) == "today"
    assert profile.seen_words(datetime(2026, 5, 9).date(), today) == "yesterday"
    assert profile.seen_words(datetime(2026, 3, 4).date(), today) == "4 March 2026"


def test_an_unknown_user_is_404(client: TestClient) -> None:
    answer = client.get(f"{API}/users/nobody")
    assert answer.status_code == 404 and answer.json()["code"] == "no_such_user"
