"""Invites ("Tell a friend"): links to the site and to an open seat,
refused for games and seats that cannot be offered, signed (a changed link is refused),
single use (even when two friends accept at once), 14 days long, across an ignore refused
with the very answer anyone refused a game gets, and the two made buddies unless either
opted out. The site's signing secret is made once and shared."""

from __future__ import annotations

import threading
from datetime import datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select, update

from dicehall.server.core.clock import now
from dicehall.server.core.config import Settings
from dicehall.server.core.models import User
from dicehall.server.domain import site_secrets
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.people import invites, relations
from dicehall.server.domain.people.invites import INVITES
from dicehall.server.domain.services import Services
from dicehall.server.domain.work import read, write
from tests.server.conftest import Headers, MakeUser

API = "/api/v1"


def invite(client: TestClient, who: Headers, **body: Any) -> Any:
    return client.post(f"{API}/invites", json=body, headers=who)


def made(client: TestClient, who: Headers, **body: Any) -> dict[str, Any]:
    answer = invite(client, who, **body)
    assert answer.status_code == 201, answer.text
    found: dict[str, Any] = answer.json()
    return found


def token(link: dict[str, Any]) -> str:
    url: str = link["url"]
    return url.rsplit("/i/", 1)[1]


def accept(client: TestClient, who: Headers, link: dict[str, Any] | str, **body: Any) -> Any:
    sent = link if isinstance(link, str) else token(link)
    return client.post(f"{API}/invites/accept", json={"token": sent, **body}, headers=who)


def game(client: TestClient, who: Headers, kind: str, *seats: str) -> int:
    answer = client.post(f"{API}/games", json={"game": kind, "seats": list(seats)}, headers=who)
    assert answer.status_code == 201, answer.text
    game_id: int = answer.json()["id"]
    return game_id


def mine(client: TestClient, who: Headers) -> list[dict[str, Any]]:
    answer = client.get(f"{API}/invites", headers=who)
    assert answer.status_code == 200, answer.text
    found: list[dict[str, Any]] = answer.json()["invites"]
    return found


def pk(services: Services, name: str) -> int:
    with services.read_conn() as conn:
        return int(conn.execute(select(User.id).where(User.key == name)).scalar_one())


def buddies_of(services: Services, name: str) -> set[str]:
    with services.read_conn() as conn:
        return {r.user_id for r in relations.listing(conn, pk(services, name), "buddy")}


def refusal(answer: Any, status: int, code: str) -> dict[str, Any]:
    assert answer.status_code == status, answer.text
    body: dict[str, Any] = answer.json()
    assert body["code"] == code, body
    return body


def test_a_link_to_the_site_brings_a_friend_and_makes_them_buddies(
    client: TestClient, services: Services, make_user: MakeUser
) -> None:
    ann, bob = make_user("ann"), make_user("bob")
    link = made(client, ann)
    assert link["url"].startswith("http://testserver/i/")
    assert (link["game_id"], link["seat"], link["state"], link["accepted_by"]) == (
        None,
        None,
        "open",
        None,
    )
    lifetime = datetime.fromisoformat(link["expires"]) - datetime.fromisoformat(link["created"])
    assert lifetime == timedelta(days=14)
    # The list shows the same link again while it is open.
    assert mine(client, ann) == [link]
    answer = accept(client, bob, link)
    assert answer.status_code == 200, answer.text
    assert answer.json() == {"inviter": "ann", "game_id": None, "seat": None, "buddies": True}
    assert buddies_of(services, "ann") == {"bob"} and buddies_of(services, "bob") == {"ann"}
    (listed,) = mine(client, ann)
    assert (listed["state"], listed["accepted_by"], listed["url"]) == ("accepted", "bob", None)
    assert listed["accepted_at"] is not None
    told = client.get(f"{API}/notifications", headers=ann).json()["notifications"]
    assert told[0]["kind"] == "invite_accepted" and "bob accepted your invite" in told[0]["text"]
    assert mine(client, bob) == []  # an invite is its inviter's


def test_a_link_to_a_seat_seats_the_friend_and_starts_the_game(
    client: TestClient, make_user: MakeUser
) -> None:
    ann, bob = make_user("ann"), make_user("bob")
    game_id = game(client, ann, "boatzee", "me", "open")
    link = made(client, ann, game_id=game_id)
    assert (link["game_id"], link["game_kind"], link["seat"]) == (game_id, "boatzee", 1)
    answer = accept(client, bob, link)
    assert answer.status_code == 200, answer.text
    assert answer.json()["game_id"] == game_id and answer.json()["seat"] == 1
    seen = client.get(f"{API}/games/{game_id}", headers=bob).json()
    assert seen["status"] == "active" and seen["my_seat"] == 1


def test_the_seat_asked_for_and_another_when_it_is_taken(
    client: TestClient, make_user: MakeUser
) -> None:
    ann, bob, cyd = make_user("ann"), make_user("bob"), make_user("cyd")
    game_id = game(client, ann, "bullseye", "me", "open", "open")
    link = made(client, ann, game_id=game_id, seat=2)
    assert link["seat"] == 2
    # Someone takes seat 2 from the waiting room first: the friend gets the other open seat.
    joined = client.post(f"{API}/games/{game_id}/join", json={"seat": 2}, headers=cyd)
    assert joined.status_code == 200, joined.text
    answer = accept(client, bob, link)
    assert answer.status_code == 200, answer.text
    assert answer.json()["seat"] == 1
    assert client.get(f"{API}/games/{game_id}", headers=bob).json()["status"] == "active"


@pytest.mark.parametrize(
    ("inviter_says", "friend_says", "buddies"),
    [(True, False, False), (False, True, False), (False, False, False)],
)
def test_either_side_may_say_no_to_becoming_buddies(
    client: TestClient,
    services: Services,
    make_user: MakeUser,
    inviter_says: bool,
    friend_says: bool,
    buddies: bool,
) -> None:
    ann, bob = make_user("ann"), make_user("bob")
    link = made(client, ann, make_buddies=inviter_says)
    assert link["make_buddies"] is inviter_says
    answer = accept(client, bob, link, make_buddies=friend_says)
    assert answer.status_code == 200, answer.text
    assert answer.json()["buddies"] is buddies
    assert buddies_of(services, "ann") == set() and buddies_of(services, "bob") == set()


def test_games_and_seats_that_cannot_be_offered(client: TestClient, make_user: MakeUser) -> None:
    ann, bob = make_user("ann"), make_user("bob")
    make_user("cyd")
    open_game = game(client, ann, "boatzee", "me", "open")
    theirs = game(client, bob, "boatzee", "me", "open")
    started = game(client, ann, "boatzee", "me", "bot:random")
    asked = game(client, ann, "boatzee", "me", "user:cyd")  # waiting, but no seat is open
    cases: list[tuple[dict[str, Any], int, str]] = [
        ({"game_id": 2**31 - 2}, 422, "not_your_game"),
        ({"game_id": theirs}, 422, "not_your_game"),
        ({"game_id": started}, 409, "not_waiting"),
        ({"game_id": open_game, "seat": 0}, 409, "seat_taken"),
        ({"game_id": open_game, "seat": 5}, 422, "invalid_seat"),
        ({"game_id": asked}, 409, "no_open_seat"),
        ({"seat": 1}, 422, "invalid_seat"),
        ({"game_id": 0}, 422, "invalid_request"),
        ({"game_id": open_game, "extra": 1}, 422, "invalid_request"),
        ({"make_buddies": "maybe"}, 422, "invalid_request"),
    ]
    for body, status, code in cases:
        answer = invite(client, ann, **body)
        assert answer.status_code == status, (body, answer.text)
        assert answer.json()["code"] == code, (body, answer.json())
    assert mine(client, ann) == []  # nothing refused was kept
    assert client.post(f"{API}/invites", json={}).status_code == 401


def test_a_changed_or_withdrawn_link_is_refused(
    client: TestClient, services: Services, make_user: MakeUser
) -> None:
    ann, bob = make_user("ann"), make_user("bob")
    link = made(client, ann)
    sent = token(link)
    _, stamp, signature = sent.split(".")
    other = made(client, ann)
    forged = [
        # The signature changed: in its first character, since the last one of base64
        # carries two spare bits (B and A may decode alike).
        ".".join(
            [sent.split(".")[0], stamp, ("A" if signature[0] != "A" else "B") + signature[1:]]
        ),
        ".".join([token(other).split(".")[0], stamp, signature]),  # another invite's id
        "not-a-token",
        "",
        "x" * 201,
    ]
    for bad in forged:
        answer = accept(client, bob, bad)
        assert answer.status_code in (404, 422), (bad, answer.text)
        if answer.status_code == 404:
            assert answer.json()["code"] == "invalid_invite"
    # Signed with another secret (another site), the very same id is refused too.
    foreign = invites.token_of("another site's secret", link["id"], now())
    refusal(accept(client, bob, foreign), 404, "invalid_invite")
    # Withdrawn: the link stops working; withdrawing needs the inviter, once.
    refusal(client.delete(f"{API}/invites/{link['id']}", headers=bob), 404, "no_such_invite")
    answer = client.delete(f"{API}/invites/{link['id']}", headers=ann)
    assert answer.status_code == 200 and answer.json() == {"withdrawn": link["id"]}
    refusal(accept(client, bob, link), 404, "invite_withdrawn")
    refusal(client.delete(f"{API}/invites/{link['id']}", headers=ann), 404, "no_such_invite")
    assert accept(client, bob, other).status_code == 200
    refusal(client.delete(f"{API}/invites/{other['id']}", headers=ann), 409, "invite_accepted")
    assert buddies_of(services, "bob") == {"ann"}


def test_a_link_expires_after_14_days(
    client: TestClient, services: Services, make_user: MakeUser, monkeypatch: pytest.MonkeyPatch
) -> None:
    ann, bob = make_user("ann"), make_user("bob")
    old, young = made(client, ann), made(client, ann)
    later = now() + timedelta(days=14, minutes=1)
    with monkeypatch.context() as patched:
        patched.setattr(invites, "now", lambda: later)
        refusal(accept(client, bob, old), 409, "invite_expired")
        listed = mine(client, ann)
        assert [i["state"] for i in listed] == ["expired", "expired"]
        assert [i["url"] for i in listed] == [None, None]
    # The row's end counts as much as the signature's: a link whose row ran out is refused.
    with services.write_conn() as conn:
        conn.execute(
            update(INVITES)
            .where(INVITES.c.id == young["id"])
            .values(expires_at=now() - timedelta(seconds=1))
        )
    refusal(accept(client, bob, young), 409, "invite_expired")
    assert buddies_of(services, "bob") == set()


def test_a_link_works_once_and_never_for_its_maker(client: TestClient, make_user: MakeUser) -> None:
    ann, bob, cyd = make_user("ann"), make_user("bob"), make_user("cyd")
    link = made(client, ann)
    refusal(accept(client, ann, link), 422, "yourself")
    assert accept(client, bob, link).status_code == 200
    refusal(accept(client, cyd, link), 409, "invite_used")
    refusal(accept(client, bob, link), 409, "invite_used")


def test_across_an_ignore_the_friend_is_refused_as_anyone_refused_a_game(
    client: TestClient, services: Services, make_user: MakeUser
) -> None:
    ann, bob = make_user("ann"), make_user("bob")
    game_id = game(client, ann, "boatzee", "me", "open")
    link = made(client, ann, game_id=game_id)
    expected = relations.not_accepted("ann", "join")
    answers = []
    for owner, target in (("ann", "bob"), ("bob", "ann")):
        with services.write_conn() as conn:
            relations.put(conn, pk(services, owner), pk(services, target), "ignore", None)
        answers.append(refusal(accept(client, bob, link), 403, "not_accepted"))
        with services.write_conn() as conn:
            relations.remove(conn, pk(services, owner), pk(services, target))
    assert answers[0] == answers[1] == {"error": expected.message, "code": expected.code}
    # Nothing was spent: the seat and the link wait, and work once the ignore is gone.
    assert mine(client, ann)[0]["state"] == "open"
    assert accept(client, bob, link).status_code == 200
    assert client.get(f"{API}/games/{game_id}", headers=bob).json()["status"] == "active"


@pytest.mark.both_databases
def test_two_friends_accepting_at_once_only_one_gets_the_seat(
    client: TestClient, services: Services, make_user: MakeUser
) -> None:
    ann = make_user("ann")
    for name in ("bob", "cyd"):
        make_user(name)
    game_id = game(client, ann, "boatzee", "me", "open")
    sent = token(made(client, ann, game_id=game_id))
    secret = site_secrets.site_secret(services)
    start = threading.Barrier(2)
    outcomes: dict[str, str] = {}

    def take(name: str) -> None:
        with services.sessions() as db:
            user = db.scalars(select(User).where(User.key == name)).one()
        start.wait()
        try:
            write(services, lambda conn: invites.accept(conn, services.pool, secret, sent, user))
            outcomes[name] = "seated"
        except Refused as exc:
            outcomes[name] = exc.code

    threads = [threading.Thread(target=take, args=(name,)) for name in ("bob", "cyd")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert sorted(outcomes.values()) == ["invite_used", "seated"], outcomes
    winner = next(name for name, outcome in outcomes.items() if outcome == "seated")
    seats = client.get(f"{API}/games/{game_id}", headers=ann).json()["seats"]
    assert [s["user"] for s in seats] == ["ann", winner]
    (listed,) = mine(client, ann)
    assert listed["accepted_by"] == winner


def test_an_inviter_makes_at_most_so_many_links_a_day(
    client: TestClient, make_user: MakeUser, monkeypatch: pytest.MonkeyPatch
) -> None:
    ann = make_user("ann")
    monkeypatch.setattr(invites, "PER_DAY", 3)
    for _ in range(3):
        made(client, ann)
    answer = invite(client, ann)
    refusal(answer, 429, "too_many_invites")
    assert answer.headers["Retry-After"] == "3600"
    assert len(mine(client, ann)) == 3


@pytest.mark.both_databases
def test_the_signing_secret_is_made_once_however_many_ask(services: Services) -> None:
    site_secrets.forget_known()
    start = threading.Barrier(4)
    found: list[str] = []

    def ask() -> None:
        start.wait()
        # Each on its own connection and transaction, as separate processes would.
        with services.write_engine.connect() as conn, conn.begin():
            found.append(site_secrets.kept_secret(conn, "race"))

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert len(found) == 4 and len(set(found)) == 1 and len(found[0]) >= 60
    kept = select(site_secrets.SECRETS.c.value).where(site_secrets.SECRETS.c.name == "race")
    assert read(services, lambda conn: conn.execute(kept).scalars().all()) == found[:1]
    site_secrets.forget_known()
    assert site_secrets.site_secret(services) == site_secrets.site_secret(services)


def test_a_configured_secret_key_wins(services: Services) -> None:
    settings = Settings(**{**services.settings.model_dump(), "secret_key": "from the operator"})
    configured = Services(**{**vars(services), "settings": settings})
    signing = site_secrets.site_secret(configured)
    assert signing != site_secrets.site_secret(services)
    assert signing == site_secrets.site_secret(configured)
    assert site_secrets.site_secret(configured, "other") != signing
