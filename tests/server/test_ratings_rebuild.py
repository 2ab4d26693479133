"""``dicehall ratings rebuild``: after rated games of every sort
(played, resigned, a three-way tie, weeks apart so inactivity widens sigma, two ending at
once and rated out of order) the replay from scratch reproduces every stored rating and
rating change exactly; ``--check`` names a tampered row and writes nothing; the rebuild
without ``--check`` rewrites it."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import select, update

from dicehall.server.core.clock import now
from dicehall.server.domain.games.records import GAMES, USERS, fetch_game
from dicehall.server.domain.ratings import store
from dicehall.server.domain.services import Services
from tests.conftest import CliResult, CliRunner
from tests.server.conftest import Headers, MakeUser
from tests.server.test_ratings import (
    API,
    finish_quietly,
    person_game,
    play_to_end,
    race,
    ratings_of,
)


def rebuild(cli: CliRunner, db_url: str, *flags: str) -> CliResult:
    return cli("ratings", "rebuild", "--db", db_url, *flags)


def three_way(client: TestClient, people: dict[str, Headers]) -> int:
    """A Bull's Eye game of three people, accepted by the guests."""
    made = client.post(
        f"{API}/games",
        json={"game": "bullseye", "seats": ["me", "user:bob", "user:cat"]},
        headers=people["ann"],
    )
    assert made.status_code == 201, made.text
    for name in ("bob", "cat"):
        accepted = client.post(f"{API}/games/{made.json()['id']}/accept", headers=people[name])
        assert accepted.status_code == 200, accepted.text
    game_id: int = made.json()["id"]
    return game_id


def rate_now(services: Services, game_id: int) -> None:
    """Rate a game finished straight in the table, as write_game would."""
    with services.write_conn() as conn:
        assert store.rate_game(conn, fetch_game(conn, game_id, lock=True))


def some_rated_games(client: TestClient, services: Services, make_user: MakeUser) -> int:
    """Rated games of every sort; the id of the three-way tie."""
    people = {name: make_user(name) for name in ("ann", "bob", "cat")}
    ann, bob, cat = people["ann"], people["bob"], people["cat"]
    start = now() - timedelta(days=90)
    # Weeks apart: each game widens the sigma of the days since the last.
    for days, winner in ((0, 0), (25, 1), (60, 0)):
        game_id = person_game(client, ann, bob, "bob")["id"]
        finish_quietly(services, game_id, winner, start + timedelta(days=days))
        rate_now(services, game_id)
    # Three people, two sharing first place.
    tie = three_way(client, people)
    with services.write_conn() as conn:
        conn.execute(
            update(GAMES)
            .where(GAMES.c.id == tie)
            .values(
                status="finished",
                result=json.dumps({"winners": [0, 2], "scores": [7, 3, 7], "turns": 9}),
                ended_at=start + timedelta(days=70),
            )
        )
    rate_now(services, tie)
    # Played to the end, and resigned, through the API.
    played = person_game(client, bob, cat, "cat")
    assert play_to_end(client, played["id"], [bob, cat])["status"] == "finished"
    resigned = person_game(client, cat, ann, "ann")
    answer = client.post(
        f"{API}/games/{resigned['id']}/resign",
        json={"expected_version": resigned["version"]},
        headers=cat,
    )
    assert answer.status_code == 200, answer.text
    # Two games of ann's ending at once, the later one rated first.
    moment = now()
    with_bob = person_game(client, ann, bob, "bob")["id"]
    with_cat = person_game(client, ann, cat, "cat")["id"]
    finish_quietly(services, with_bob, 1, moment)
    finish_quietly(services, with_cat, 0, moment + timedelta(seconds=1))
    assert race(services, with_cat, with_bob) == [True, True]
    return tie


def test_the_replay_reproduces_every_rating_and_a_tampered_row_is_found(
    client: TestClient, services: Services, make_user: MakeUser, cli: CliRunner, db_url: str
) -> None:
    tie = some_rated_games(client, services, make_user)
    clean = rebuild(cli, db_url, "--check")
    assert clean.code == 0, clean
    assert clean.out.strip() == (
        "8 rated games replayed: 6 ratings, 17 rating changes: every stored rating and "
        "change agrees"
    )
    data = json.loads(rebuild(cli, db_url, "--check", "--json").out)
    assert data == {
        "ok": True, "written": False, "games": 8, "ratings": 6, "changes": 17, "differences": [],
    }  # fmt: skip

    stored = ratings_of(services)[("bob", "tenthousand")]
    with services.write_conn() as conn:
        bob = conn.execute(select(USERS.c.id).where(USERS.c.user_id == "bob")).scalar_one()
        conn.execute(
            update(store.RATINGS)
            .where(store.RATINGS.c.user_pk == bob, store.RATINGS.c.kind == "tenthousand")
            .values(mu=stored.mu + 0.5)
        )
        conn.execute(
            update(store.CHANGES)
            .where(store.CHANGES.c.user_pk == bob, store.CHANGES.c.kind == "bullseye")
            .values(place=2)
        )
    found = rebuild(cli, db_url, "--check")
    assert found.code == 1, found
    assert found.out.splitlines() == [
        f"rating of bob (tenthousand): mu stored {stored.mu + 0.5!r}, replayed {stored.mu!r}",
        f"game {tie}, change of bob (bullseye): place stored 2, replayed 3",
        "8 rated games replayed: 6 ratings, 17 rating changes: 2 stored rows differ from the "
        "replay",
    ]
    listed = json.loads(rebuild(cli, db_url, "--check", "--json").out)
    assert listed["ok"] is False
    assert [(d["what"], d["user"], d["kind"]) for d in listed["differences"]] == [
        ("rating", "bob", "tenthousand"),
        ("change", "bob", "bullseye"),
    ]
    # --check wrote nothing.
    assert ratings_of(services)[("bob", "tenthousand")].mu == stored.mu + 0.5

    rewritten = rebuild(cli, db_url)
    assert rewritten.code == 0, rewritten
    assert rewritten.out.splitlines()[-1] == (
        "8 rated games replayed: 6 ratings, 17 rating changes; 2 differences rewritten"
    )
    assert ratings_of(services)[("bob", "tenthousand")].mu == stored.mu
    assert rebuild(cli, db_url, "--check").code == 0


def test_a_missing_or_extra_row_is_found_and_mended(
    client: TestClient, services: Services, make_user: MakeUser, cli: CliRunner, db_url: str
) -> None:
    people = {name: make_user(name) for name in ("ann", "bob")}
    game = person_game(client, people["ann"], people["bob"], "bob")
    answer = client.post(
        f"{API}/games/{game['id']}/resign",
        json={"expected_version": game["version"]},
        headers=people["bob"],
    )
    assert answer.status_code == 200, answer.text
    unrated = person_game(client, people["ann"], people["bob"], "bob", rated=False)["id"]
    finish_quietly(services, unrated, 0, now())
    with services.write_conn() as conn:
        kept = conn.execute(
            select(store.CHANGES).where(store.CHANGES.c.game_id == game["id"])
        ).first()
        assert kept is not None
        conn.execute(store.CHANGES.delete().where(store.CHANGES.c.game_id == game["id"]))
        conn.execute(store.RATINGS.update().values(games=5))
        # A change for a game that is not rated.
        extra = {**kept._asdict(), "game_id": unrated}
        del extra["id"]
        conn.execute(store.CHANGES.insert().values(**extra))
    found = rebuild(cli, db_url, "--check", "--json")
    assert found.code == 1, found
    problems = [(d["what"], d["user"], d["game"], d["problem"]) for d in _diffs(found)]
    assert [p[:3] for p in problems] == [
        ("rating", "ann", None),
        ("rating", "bob", None),
        ("change", "ann", game["id"]),
        ("change", "bob", game["id"]),
        ("change", "ann" if kept.user_pk == _pk(services, "ann") else "bob", unrated),
    ]
    assert [p[3] for p in problems[:2]] == ["games stored 5, replayed 1"] * 2
    assert problems[2][3].startswith("missing; the replay makes place 1, mu_before 25.0, ")
    assert problems[3][3].startswith("missing; the replay makes place 2, mu_before 25.0, ")
    assert problems[4][3].startswith("stored (place ") and problems[4][3].endswith(
        "), but no rated game makes it"
    )
    assert rebuild(cli, db_url).code == 0
    assert rebuild(cli, db_url, "--check").code == 0
    assert {r.games for r in ratings_of(services).values()} == {1}


def _pk(services: Services, user_id: str) -> int:
    with services.read_conn() as conn:
        return int(conn.execute(select(USERS.c.id).where(USERS.c.user_id == user_id)).scalar_one())


def _diffs(result: CliResult) -> list[Any]:
    data: dict[str, Any] = json.loads(result.out)
    differences: list[Any] = data["differences"]
    return differences


def test_an_empty_site_rebuilds_clean(services: Services, cli: CliRunner, db_url: str) -> None:
    clean = rebuild(cli, db_url, "--check")
    assert clean.code == 0, clean
    assert clean.out.strip() == (
        "0 rated games replayed: 0 ratings, 0 rating changes: every stored rating and change agrees"
    )


def test_no_database_is_one_line_and_exit_2(cli: CliRunner, tmp_path: Any) -> None:
    missing = rebuild(cli, f"sqlite:///{tmp_path}/none.sqlite3", "--check")
    assert missing.code == 2 and "there is no database" in missing.err
    assert not (tmp_path / "none.sqlite3").exists()
    writing = rebuild(cli, f"sqlite:///{tmp_path}/none.sqlite3")
    assert writing.code == 2 and not (tmp_path / "none.sqlite3").exists()
