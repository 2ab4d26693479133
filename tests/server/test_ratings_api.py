"""The ratings in the API: a rated game's JSON carries each seat's
rating, chance and (once rated) change, read in one query, and honours "hide my rating while
I play"; profiles list the ratings their owner shows; leaderboards list active players, the
settled ones first, then the provisional ones, each ranked by mu - 2 sigma, every player
exactly once across keyset pages; a user's
rating history, newest first; and a clear 404 or 422 for each bad request."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Connection, event, insert, select

from dicehall.server.core.clock import now
from dicehall.server.domain.games.records import USERS, fetch_game, seats_of
from dicehall.server.domain.ratings import model, store, views
from dicehall.server.domain.ratings.model import Skill
from dicehall.server.domain.services import Services
from tests.live import add_user
from tests.server.conftest import MakeUser
from tests.server.pig_entry import TITLE, register_pig
from tests.server.test_ratings import API, person_game, play_to_end

# A plug-in game is rated like the five: its kind follows theirs.
register_pig()

# -- a rated game's JSON ------------------------------------------------------------------------


def test_a_rated_games_json_shows_ratings_chances_then_changes(
    client: TestClient, services: Services, make_user: MakeUser
) -> None:
    ann, bob = make_user("ann"), make_user("bob")
    game = person_game(client, ann, bob, "bob")
    fresh = {"rating": 1500, "provisional": True, "change": None, "chance": 0.5}
    assert game["ratings"] == {
        "seats": [{"seat": 0, **fresh}, {"seat": 1, **fresh}],
        "hidden": False,
    }
    # Visitors see the same (a public game).
    assert client.get(f"{API}/games/{game['id']}").json()["ratings"] == game["ratings"]
    over = play_to_end(client, game["id"], [ann, bob])
    with services.read_conn() as conn:
        changes = {
            row.user_pk: row
            for row in conn.execute(
                select(store.CHANGES).where(store.CHANGES.c.game_id == game["id"])
            )
        }
        pks = [s.user_pk for s in seats_of(conn, game["id"])]
    seats = over["ratings"]["seats"]
    for seat, pk in enumerate(pks):
        row = changes[pk]
        after = model.shown(Skill(row.mu_after, row.sigma_after))
        assert seats[seat] == {
            "seat": seat,
            "rating": after,
            "provisional": True,
            "change": after - 1500,
            "chance": 0.5,
        }
    again = person_game(client, ann, bob, "bob")["ratings"]["seats"]
    assert [s["rating"] for s in again] == [s["rating"] for s in seats]
    assert abs(again[0]["chance"] + again[1]["chance"] - 1) < 1e-3
    if len(over["result"]["winners"]) == 2:  # a tie (first-legal-action play: 1 in 40)
        assert [s["change"] for s in seats] == [0, 0]
        assert [s["chance"] for s in again] == [0.5, 0.5]
        return
    assert {s["change"] > 0 for s in seats} == {True, False}
    # The next game between them starts from the new ratings; the winner is the favourite.
    winner = max(range(2), key=lambda i: seats[i]["rating"])
    assert again[winner]["chance"] > 0.5 > again[1 - winner]["chance"]


def test_unrated_and_aborted_games_have_no_ratings(client: TestClient, make_user: MakeUser) -> None:
    ann, bob = make_user("ann"), make_user("bob")
    unrated = person_game(client, ann, bob, "bob", rated=False)
    assert unrated["ratings"] is None
    vs_bot = client.post(
        f"{API}/games",
        json={"game": "boss", "seats": ["me", "bot:random"]},
        headers=ann,
    )
    assert vs_bot.json()["ratings"] is None
    rated = person_game(client, ann, bob, "bob")
    aborted = client.post(
        f"{API}/games/{rated['id']}/abort",
        json={"expected_version": rated["version"]},
        headers=ann,
    )
    assert aborted.json()["status"] == "aborted" and aborted.json()["ratings"] is None


def test_a_waiting_games_open_seat_has_no_rating_and_no_chances(
    client: TestClient, make_user: MakeUser
) -> None:
    ann = make_user("ann")
    made = client.post(
        f"{API}/games",
        json={"game": "tenthousand", "seats": ["me", "open"]},
        headers=ann,
    )
    assert made.status_code == 201, made.text
    assert made.json()["ratings"]["seats"] == [
        {"seat": 0, "rating": 1500, "provisional": True, "change": None, "chance": None},
        {"seat": 1, "rating": None, "provisional": None, "change": None, "chance": None},
    ]


def test_hide_my_rating_while_i_play(client: TestClient, make_user: MakeUser) -> None:
    ann, bob = make_user("ann"), make_user("bob")
    settings = client.patch(
        f"{API}/users/me/settings", json={"hide_rating_while_playing": True}, headers=ann
    )
    assert settings.status_code == 200, settings.text
    game = person_game(client, ann, bob, "bob")
    mine = client.get(f"{API}/games/{game['id']}", headers=ann).json()["ratings"]
    assert mine == {
        "seats": [
            {"seat": 0, "rating": None, "provisional": None, "change": None, "chance": None},
            {"seat": 1, "rating": 1500, "provisional": True, "change": None, "chance": None},
        ],
        "hidden": True,
    }
    # Only ann asked: bob and spectators see everything.
    for headers in (bob, {}):
        theirs = client.get(f"{API}/games/{game['id']}", headers=headers).json()["ratings"]
        assert theirs["hidden"] is False and theirs["seats"][0]["rating"] == 1500, theirs
    over = play_to_end(client, game["id"], [ann, bob])
    assert over["ratings"] == client.get(f"{API}/games/{game['id']}", headers=ann).json()["ratings"]
    seen = client.get(f"{API}/games/{game['id']}", headers=ann).json()["ratings"]
    assert seen["hidden"] is False and seen["seats"][0]["change"] is not None


@contextmanager
def counted(conn: Connection) -> Iterator[list[str]]:
    """The statements ``conn`` runs meanwhile (other threads' are not counted)."""
    statements: list[str] = []

    def note(*args: Any) -> None:
        statements.append(str(args[2]))

    event.listen(conn, "before_cursor_execute", note)
    try:
        yield statements
    finally:
        event.remove(conn, "before_cursor_execute", note)


@pytest.mark.both_databases
def test_a_boards_ratings_are_one_query(
    client: TestClient, services: Services, make_user: MakeUser
) -> None:
    ann, bob = make_user("ann"), make_user("bob")
    game = person_game(client, ann, bob, "bob")
    for finished in (False, True):
        if finished:
            play_to_end(client, game["id"], [ann, bob])
        with services.read_conn() as conn:
            record = fetch_game(conn, game["id"])
            seats = seats_of(conn, game["id"])
            with counted(conn) as statements:
                found = views.game_ratings(conn, record, seats, seats[0].user_pk)
            assert found is not None and found["seats"][0]["rating"] is not None
            assert len(statements) == 1, statements


# -- profiles -------------------------------------------------------------------------------------


def test_a_profile_lists_the_ratings_its_owner_shows(
    client: TestClient, make_user: MakeUser
) -> None:
    ann, bob = make_user("ann"), make_user("bob")
    assert client.get(f"{API}/users/ann").json()["ratings"] == {}
    game = person_game(client, ann, bob, "bob")
    resigned = client.post(
        f"{API}/games/{game['id']}/resign",
        json={"expected_version": game["version"]},
        headers=bob,
    )
    assert resigned.status_code == 200, resigned.text
    shown = client.get(f"{API}/users/ann", headers=bob).json()["ratings"]
    rating = resigned.json()["ratings"]["seats"][0]["rating"]
    assert shown == {"tenthousand": {"rating": rating, "provisional": True, "games": 1}}
    assert rating > 1500
    hidden = client.patch(f"{API}/users/me/settings", json={"ratings_shown": ["boss"]}, headers=ann)
    assert hidden.status_code == 200, hidden.text
    for headers in (ann, bob, {}):
        assert client.get(f"{API}/users/ann", headers=headers).json()["ratings"] == {}
    # The leaderboard and the history still show it (a profile's choice, not a secret).
    history = client.get(f"{API}/users/ann/ratings/tenthousand/history").json()
    assert [c["rating_after"] for c in history["changes"]] == [rating]


# -- leaderboards ---------------------------------------------------------------------------------


def rated_players(services: Services, ratings: dict[str, tuple[float, float, int, int]]) -> None:
    """Users with a Boss rating each: name -> (mu, sigma, games, days since the last)."""
    for name in ratings:
        add_user(services, name)
    at = now()
    with services.write_conn() as conn:
        pks = dict(conn.execute(select(USERS.c.user_id, USERS.c.id)).all())
        for name, (mu, sigma, games, days) in ratings.items():
            conn.execute(
                insert(store.RATINGS).values(
                    user_pk=pks[name], kind="boss", mu=mu, sigma=sigma, games=games,
                    last_game_at=at - timedelta(days=days),
                )
            )  # fmt: skip


def test_a_leaderboard_lists_settled_active_players_by_mu_minus_two_sigma(
    client: TestClient, services: Services
) -> None:
    rated_players(
        services,
        {
            "high_mu_unsure": (34.0, 6.0, 40, 1),  # 22.0
            "steady": (30.0, 2.0, 12, 3),  # 26.0
            "twin_a": (29.0, 2.0, 10, 29),  # 25.0
            "twin_b": (29.0, 2.0, 15, 0),  # 25.0, a later user
            "low": (20.0, 1.0, 99, 2),  # 18.0
            "too_few": (40.0, 1.0, 9, 1),  # 38.0, provisional: after the settled players
            "beginner": (45.0, 1.0, 1, 0),  # 43.0, provisional
            "away": (40.0, 1.0, 50, 31),
            "never": (25.0, 8.0, 0, 0),
        },
    )
    board = client.get(f"{API}/ratings/boss").json()
    assert [(p["rank"], p["user"]) for p in board["players"]] == [
        (1, "steady"), (2, "twin_a"), (3, "twin_b"), (4, "high_mu_unsure"), (5, "low"),
        (6, "beginner"), (7, "too_few"),
    ]  # fmt: skip
    assert [p["provisional"] for p in board["players"][5:]] == [True, True]
    assert board["next"] is None and board["title"] == "Boss Dice"
    first = board["players"][0]
    assert first["rating"] == model.shown(Skill(30.0)) == 1700
    assert first["floor"] == model.shown(Skill(26.0)) == 1540
    assert (first["games"], first["provisional"]) == (12, False)
    assert board["players"][3]["provisional"] is True  # sigma 6 is still uncertain
    # Keyset pages: every player once, in order, the ranks running on.
    seen: list[tuple[int, str]] = []
    cursor = None
    while True:
        params: dict[str, Any] = {"limit": 2, **({"cursor": cursor} if cursor else {})}
        page = client.get(f"{API}/ratings/boss", params=params).json()
        seen += [(p["rank"], p["user"]) for p in page["players"]]
        cursor = page["next"]
        if cursor is None:
            break
    assert seen == [(p["rank"], p["user"]) for p in board["players"]]
    assert client.get(f"{API}/ratings/holdem").json()["players"] == []


def test_bad_leaderboard_and_history_requests(client: TestClient, make_user: MakeUser) -> None:
    make_user("ann")
    for path, status, code in (
        ("/ratings/chess", 404, "no_such_rating"),
        ("/ratings/boss?cursor=nonsense", 422, "invalid_cursor"),
        ("/ratings/boss?cursor=WzEuMCwwXQ", 422, "invalid_cursor"),  # [1.0,0]
        ("/ratings/boss?cursor=WzEuMCwxLDJd", 422, "invalid_cursor"),  # [1.0,1,2]: no part 2
        ("/ratings/boss?cursor=WzEuMCwxLHRydWVd", 422, "invalid_cursor"),  # [1.0,1,true]
        ("/ratings/boss?limit=0", 422, "invalid_limit"),
        ("/ratings/boss?limit=101", 422, "invalid_limit"),
        ("/users/nobody/ratings/boss/history", 404, "no_such_user"),
        ("/users/ann/ratings/chess/history", 404, "no_such_rating"),
        ("/users/ann/ratings/boss/history?cursor=x1", 422, "invalid_cursor"),
        ("/users/ann/ratings/boss/history?cursor=99999999999", 422, "invalid_cursor"),
    ):
        answer = client.get(API + path)
        assert answer.status_code == status, (path, answer.text)
        assert answer.json()["code"] == code, (path, answer.text)


def test_the_kinds(client: TestClient) -> None:
    answer = client.get(f"{API}/ratings").json()
    assert [k["kind"] for k in answer["kinds"]] == [
        "tenthousand", "boatzee", "boatzee-double", "boatzee-triple", "boss", "holdem", "bullseye",
        "pig",
    ]  # fmt: skip
    assert answer["kinds"][2]["title"] == "Double Boatzee"
    assert [k["title"] for k in answer["kinds"]] == [
        "Ten Thousand", "Boatzee", "Double Boatzee", "Triple Boatzee", "Boss Dice",
        "Hold'em Dice", "Bull's Eye", TITLE,
    ]  # fmt: skip
    assert answer["kinds"][3]["games"] == (
        "Boatzee with 3 columns (either ruleset, Boatzee or Yahtzee)"
    )
    assert answer["kinds"][-1]["games"] == TITLE
    assert (answer["listed_games"], answer["active_days"]) == (10, 30)


# -- a user's history ----------------------------------------------------------------------------


def test_a_rating_history_newest_first_a_page_at_a_time(
    client: TestClient, make_user: MakeUser
) -> None:
    ann, bob = make_user("ann"), make_user("bob")
    played: list[dict[str, Any]] = []
    for loser in (bob, ann, bob):
        game = person_game(client, ann, bob, "bob")
        answer = client.post(
            f"{API}/games/{game['id']}/resign",
            json={"expected_version": game["version"]},
            headers=loser,
        )
        played.append(answer.json())
    first = client.get(f"{API}/users/ANN/ratings/tenthousand/history", params={"limit": 2})
    assert first.status_code == 200, first.text
    page = first.json()
    assert (page["user"], page["kind"], page["title"]) == ("ann", "tenthousand", "Ten Thousand")
    rest = client.get(
        f"{API}/users/ann/ratings/tenthousand/history", params={"cursor": page["next"]}
    ).json()
    assert rest["next"] is None
    changes = page["changes"] + rest["changes"]
    assert [c["game"] for c in changes] == [g["id"] for g in reversed(played)]
    assert [c["place"] for c in changes] == [1, 2, 1]
    assert {c["players"] for c in changes} == {2}
    for change, game in zip(changes, reversed(played), strict=True):
        seat = game["ratings"]["seats"][0]
        assert (change["rating_after"], change["change"]) == (seat["rating"], seat["change"])
        assert change["rating_after"] - change["rating_before"] == change["change"]
    # Each game starts where the one before it ended.
    assert [c["rating_before"] for c in changes[:-1]] == [c["rating_after"] for c in changes[1:]]
    assert changes[-1]["rating_before"] == 1500
