"""Messages: sending, my threads and one thread (paged), read and
hidden marks (mine alone), bad bodies and targets, the recipient's preference and ignores
(one answer for all), replies in a thread that exists, the rate limits, and the pushes.

(Longer than most test modules: every way a message can be refused, one short test each.)
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from httpx2 import Response
from sqlalchemy import select, update

from dicehall.server.api import messages as messages_api
from dicehall.server.core.clock import now
from dicehall.server.core.models import User
from dicehall.server.domain.people import relations, settings
from dicehall.server.domain.services import Services
from tests.live import add_user
from tests.server.conftest import Headers, MakeUser

API = "/api/v1"


@dataclass
class Clock:
    """The messages API's clock: each reading moves it on by ``step`` (3 s by default, so
    that the one-message-per-2-seconds limit stays out of the way unless a test wants it)."""

    at: datetime
    step: timedelta = timedelta(seconds=3)

    def __call__(self) -> datetime:
        moment = self.at
        self.at += self.step
        return moment


@pytest.fixture(autouse=True)
def clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[Clock]:
    made = Clock(now())
    monkeypatch.setattr(messages_api, "now", made)
    yield made


def send(
    client: TestClient, sender: Headers, to: str, body: str, game_id: int | None = None
) -> Response:
    payload: dict[str, Any] = {"body": body}
    if game_id is not None:
        payload["game_id"] = game_id
    return client.post(f"{API}/messages/{to}", json=payload, headers=sender)


def sent(client: TestClient, sender: Headers, to: str, body: str, **more: Any) -> Any:
    answer = send(client, sender, to, body, **more)
    assert answer.status_code == 201, answer.text
    return answer.json()


def listed(client: TestClient, headers: Headers, **query: Any) -> Any:
    answer = client.get(f"{API}/messages", params=query, headers=headers)
    assert answer.status_code == 200, answer.text
    return answer.json()


def opened(client: TestClient, headers: Headers, other: str, **query: Any) -> Any:
    answer = client.get(f"{API}/messages/{other}", params=query, headers=headers)
    assert answer.status_code == 200, answer.text
    return answer.json()


def read_all(client: TestClient, headers: Headers, other: str, **body: Any) -> Any:
    answer = client.post(f"{API}/messages/{other}/read", json=body or None, headers=headers)
    assert answer.status_code == 200, answer.text
    return answer.json()


def hide(client: TestClient, headers: Headers, other: str) -> Any:
    answer = client.delete(f"{API}/messages/{other}", headers=headers)
    assert answer.status_code == 200, answer.text
    return answer.json()


def pk_of(services: Services, name: str) -> int:
    with services.sessions() as db:
        found = db.scalar(select(User.id).where(User.user_id == name))
    assert found is not None
    return int(found)


def prefer(services: Services, name: str, audience: str) -> None:
    with services.write_conn() as conn:
        settings.change(conn, pk_of(services, name), {"messages_from": audience})


def relate(services: Services, owner: str, target: str, kind: str | None) -> None:
    with services.write_conn() as conn:
        owner_pk, target_pk = pk_of(services, owner), pk_of(services, target)
        if kind is None:
            relations.remove(conn, owner_pk, target_pk)
        else:
            relations.put(conn, owner_pk, target_pk, kind, None)  # type: ignore[arg-type]


def bodies(thread: Any) -> list[str]:
    return [m["body"] for m in thread["messages"]]


# -- the whole story ---------------------------------------------------------------------------


def test_a_conversation_is_listed_read_and_hidden_for_one_side_only(
    client: TestClient, make_user: MakeUser
) -> None:
    ann, bob = make_user("ann"), make_user("Bob")
    first = sent(client, ann, "bob", "  Hello Bob!\r\nA game?  ")
    assert first["from"] == "ann" and first["body"] == "Hello Bob!\nA game?"
    assert first["game"] is None and first["created_at"].endswith("+00:00")

    bobs = listed(client, bob)
    assert bobs["unread"] == 1 and bobs["next"] is None
    (summary,) = bobs["threads"]
    assert summary["user_id"] == "ann" and summary["display_name"] == "ann"
    assert summary["unread"] == 1
    assert summary["last"] == {
        "id": first["id"],
        "from": "ann",
        "preview": "Hello Bob! A game?",
        "created_at": first["created_at"],
    }
    anns = listed(client, ann)
    assert anns["unread"] == 0 and anns["threads"][0]["user_id"] == "Bob"
    assert anns["threads"][0]["unread"] == 0  # my own messages are never unread to me

    thread = opened(client, bob, "ANN")  # any case finds the user
    assert thread["with"] == {"user_id": "ann", "display_name": "ann"}
    assert thread["messages"] == [{**first, "unread": True, "hidden": False}]
    assert thread["unread"] == 1 and thread["next"] is None
    # Reading does not mark read; the read call does, for bob alone.
    assert opened(client, bob, "ann")["messages"][0]["unread"] is True
    assert read_all(client, bob, "ann") == {"marked": 1, "unread": 0}
    assert read_all(client, bob, "ann") == {"marked": 0, "unread": 0}
    assert listed(client, bob)["threads"][0]["unread"] == 0

    reply = sent(client, bob, "ann", "Yes, Boss Dice?")
    assert listed(client, ann)["unread"] == 1
    assert bodies(opened(client, ann, "bob")) == ["Yes, Boss Dice?", "Hello Bob!\nA game?"]

    # Bob hides the thread: gone for him (and read), still there for ann.
    assert hide(client, bob, "ann") == {"hidden": True, "unread": 0}
    assert listed(client, bob)["threads"] == []
    assert opened(client, bob, "ann")["messages"] == []
    assert hide(client, bob, "ann")["hidden"] is False  # nothing left to hide
    assert len(opened(client, ann, "bob")["messages"]) == 2
    assert listed(client, ann)["threads"][0]["last"]["id"] == reply["id"]

    # A newer message brings it back for bob, showing only what came after.
    later = sent(client, ann, "bob", "Tomorrow then")
    back = listed(client, bob)
    assert [t["user_id"] for t in back["threads"]] == ["ann"] and back["unread"] == 1
    assert bodies(opened(client, bob, "ann")) == ["Tomorrow then"]
    assert read_all(client, bob, "ann", up_to=later["id"]) == {"marked": 1, "unread": 0}


def test_a_message_may_point_to_a_game_its_sender_may_see(
    client: TestClient, make_user: MakeUser
) -> None:
    ann, other = make_user("ann"), make_user("cyd")
    make_user("bob")

    def game(owner: Headers, private: bool) -> int:
        body = {"game": "tenthousand", "seats": ["me", "bot:random"], "private": private}
        made = client.post(f"{API}/games", json=body, headers=owner)
        assert made.status_code == 201, made.text
        game_id: int = made.json()["id"]
        return game_id

    public, mine, theirs = game(other, False), game(ann, True), game(other, True)
    assert sent(client, ann, "bob", "watch this", game_id=public)["game"] == public
    assert sent(client, ann, "bob", "and mine", game_id=mine)["game"] == mine
    assert opened(client, ann, "bob")["messages"][0]["game"] == mine
    missing = send(client, ann, "bob", "nothing there", game_id=theirs + 1000)
    hidden = send(client, ann, "bob", "not mine to see", game_id=theirs)
    assert (missing.status_code, hidden.status_code) == (422, 422)
    assert missing.json()["code"] == hidden.json()["code"] == "unknown_game"
    assert hidden.json()["error"] == f"there is no game {theirs}"


# -- paging ------------------------------------------------------------------------------------


def test_threads_and_messages_page_newest_first(client: TestClient, make_user: MakeUser) -> None:
    ann, bob = make_user("ann"), make_user("bob")
    for n in range(7):
        sent(client, ann if n % 2 == 0 else bob, "bob" if n % 2 == 0 else "ann", f"m{n}")
    seen: list[str] = []
    before = None
    while True:
        page = opened(client, bob, "ann", limit=3, **({"before": before} if before else {}))
        seen += bodies(page)
        before = page["next"]
        if before is None:
            break
    assert seen == [f"m{n}" for n in reversed(range(7))]
    assert opened(client, bob, "ann", limit=7)["next"] is None

    others = [make_user(f"pal{n}") for n in range(5)]
    for n, pal in enumerate(others):
        sent(client, pal, "ann", f"from pal{n}")
    sent(client, ann, "pal1", "back to pal1")  # pal1's thread becomes the newest
    names: list[str] = []
    cursor = None
    while True:
        page = listed(client, ann, limit=2, **({"before": cursor} if cursor else {}))
        assert page["unread"] == 5 + 3  # answering is not reading: every pal, and bob's 3
        names += [t["user_id"] for t in page["threads"]]
        cursor = page["next"]
        if cursor is None:
            break
    assert names == ["pal1", "pal4", "pal3", "pal2", "pal0", "bob"]


# -- bad input ---------------------------------------------------------------------------------


#: Bodies refused: empty, blank, one character too long once trimmed, control characters.
BAD_BODIES = [
    "",
    "   ",
    " \n\t\r\n ",
    "x" * 2001,
    " " + "y" * 2001 + " ",
    "nul \x00",
    "\u202etxt.exe",
]


def test_bodies_empty_oversized_or_with_control_characters_are_refused(
    client: TestClient, make_user: MakeUser
) -> None:
    ann = make_user("ann")
    make_user("bob")
    for body in BAD_BODIES:
        answer = send(client, ann, "bob", body)
        assert answer.status_code == 422, (body[:10], answer.text)
        assert answer.json()["code"] == "invalid_body"
    assert listed(client, ann)["threads"] == []


def test_the_longest_body_is_kept_whole(client: TestClient, make_user: MakeUser) -> None:
    ann, bob = make_user("ann"), make_user("bob")
    longest = "é" * 1998 + "\tx"  # a tab inside is kept; the spaces around are trimmed
    assert sent(client, ann, "bob", f"  {longest}\n")["body"] == longest
    assert len(opened(client, bob, "ann")["messages"][0]["body"]) == 2000


def test_unknown_users_are_404_and_myself_422_everywhere(
    client: TestClient, make_user: MakeUser
) -> None:
    ann = make_user("ann")
    for target, status, code in [
        ("nobody-here", 404, "unknown_user"),
        ("a" * 300, 404, "unknown_user"),
        ("x%00y", 404, "unknown_user"),
        ("%E2%80%AE", 404, "unknown_user"),
        ("ANN", 422, "yourself"),
    ]:
        for method, path, body in [
            ("POST", f"/messages/{target}", {"body": "hi"}),
            ("GET", f"/messages/{target}", None),
            ("POST", f"/messages/{target}/read", {}),
            ("DELETE", f"/messages/{target}", None),
        ]:
            answer = client.request(method, f"{API}{path}", json=body, headers=ann)
            assert answer.status_code == status, (method, path, answer.text)
            assert answer.json()["code"] == code


BAD_REQUESTS: list[tuple[str, str, Any]] = [
    ("GET", "/messages?limit=0", None),
    ("GET", "/messages?limit=101", None),
    ("GET", "/messages?before=0", None),
    ("GET", f"/messages/bob?before={2**31}", None),
    ("POST", "/messages/bob", {"body": "hi", "game_id": 0}),
    ("POST", "/messages/bob", {"body": "hi", "extra": 1}),
    ("POST", "/messages/bob", {"text": "hi"}),
    ("POST", "/messages/bob/read", {"up_to": 0}),
]


def test_bad_requests_are_422_and_visitors_401(client: TestClient, make_user: MakeUser) -> None:
    ann = make_user("ann")
    make_user("bob")
    for method, path, body in BAD_REQUESTS:
        answer = client.request(method, f"{API}{path}", json=body, headers=ann)
        assert answer.status_code == 422, (method, path, answer.text)
        assert answer.json()["code"] == "invalid_request"
    # Visitors have no messages.
    assert client.get(f"{API}/messages").status_code == 401
    assert client.get(f"{API}/messages/bob").status_code == 401
    assert client.post(f"{API}/messages/bob", json={"body": "hi"}).status_code == 401
    assert client.post(f"{API}/messages/bob/read").status_code == 401
    assert client.delete(f"{API}/messages/bob").status_code == 401


# -- who may write -----------------------------------------------------------------------------


def test_the_recipients_preference_decides_who_may_start_a_thread(
    client: TestClient, make_user: MakeUser, services: Services
) -> None:
    ann, cyd = make_user("ann"), make_user("cyd")
    make_user("bob")
    prefer(services, "bob", "buddies")
    refused = send(client, ann, "bob", "hello?")
    assert refused.status_code == 403
    assert refused.json() == {
        "error": "you cannot send messages to bob",
        "code": "not_accepted",
    }
    relate(services, "ann", "bob", "buddy")  # ann naming bob is not bob naming ann
    assert send(client, ann, "bob", "hello?").status_code == 403
    relate(services, "bob", "cyd", "buddy")
    sent(client, cyd, "bob", "hi from a buddy")
    prefer(services, "bob", "nobody")
    assert send(client, ann, "bob", "hello?").status_code == 403
    prefer(services, "bob", "everyone")
    sent(client, ann, "bob", "hello!")
    assert [t["user_id"] for t in listed(client, ann)["threads"]] == ["bob"]


def test_an_ignore_either_way_answers_like_nobody(
    client: TestClient, make_user: MakeUser, services: Services
) -> None:
    ann = make_user("ann")
    make_user("bob")
    prefer(services, "bob", "nobody")
    nobody = send(client, ann, "bob", "hi")
    prefer(services, "bob", "everyone")
    answers = [nobody]
    for owner, target in (("bob", "ann"), ("ann", "bob")):
        relate(services, owner, target, "ignore")
        answers.append(send(client, ann, "bob", "hi"))
        relate(services, owner, target, None)
    assert {a.status_code for a in answers} == {403}
    assert answers[0].json() == answers[1].json() == answers[2].json()
    assert answers[0].headers.get("retry-after") is None
    sent(client, ann, "bob", "hi")  # nothing left in the way


def test_replies_need_no_leave_but_an_ignore_stops_them(
    client: TestClient, make_user: MakeUser, services: Services
) -> None:
    ann, bob = make_user("ann"), make_user("bob")
    sent(client, ann, "bob", "hello")
    prefer(services, "bob", "nobody")
    prefer(services, "ann", "nobody")
    sent(client, ann, "bob", "still here")  # the thread exists: a reply
    sent(client, bob, "ann", "and me")
    for owner, target in (("bob", "ann"), ("ann", "bob")):
        relate(services, owner, target, "ignore")
        for writer, reader in ((ann, "bob"), (bob, "ann")):
            refused = send(client, writer, reader, "through the ignore?")
            assert refused.status_code == 403
            assert refused.json()["code"] == "not_accepted"
        # The history stays readable on both sides.
        assert len(opened(client, ann, "bob")["messages"]) == 3
        assert len(opened(client, bob, "ann")["messages"]) == 3
        relate(services, owner, target, None)
    sent(client, bob, "ann", "back again")


# -- rate limits -------------------------------------------------------------------------------


def test_one_message_every_two_seconds(
    client: TestClient, make_user: MakeUser, clock: Clock
) -> None:
    ann = make_user("ann")
    make_user("bob")
    make_user("cyd")
    clock.step = timedelta(0)
    sent(client, ann, "bob", "one")
    too_soon = send(client, ann, "cyd", "two")  # the limit is the sender's, in any thread
    assert too_soon.status_code == 429
    assert too_soon.json()["code"] == "rate_limited"
    assert too_soon.json()["retry_after"] == 2 and too_soon.headers["retry-after"] == "2"
    clock.at += timedelta(seconds=1.5)
    assert send(client, ann, "bob", "two").json()["retry_after"] == 1
    clock.at += timedelta(seconds=0.5)
    sent(client, ann, "bob", "two")


def test_new_threads_a_day_depend_on_the_accounts_age(
    client: TestClient, make_user: MakeUser, services: Services, clock: Clock
) -> None:
    first = make_user("first")
    names = [f"to{n}" for n in range(31)]
    for name in names:
        add_user(services, name)
    for writer, age, most in [("young", 0, 10), ("nearly", 6.9, 10), ("settled", 7.1, 30)]:
        headers = make_user(writer)
        with services.writers() as db, db.begin():
            db.execute(
                update(User)
                .where(User.user_id == writer)
                .values(created_at=clock.at - timedelta(days=age))
            )
        sent(client, first, writer, "a thread the writer did not start")
        sent(client, headers, "first", "replies are not counted")
        started = clock.at
        for name in names[:most]:
            sent(client, headers, name, "hello")
        over = send(client, headers, names[most], "one too many")
        assert over.status_code == 429, (writer, over.text)
        assert over.json()["code"] == "too_many_threads"
        assert 0 < over.json()["retry_after"] <= 24 * 3600
        assert over.headers["retry-after"] == str(over.json()["retry_after"])
        sent(client, headers, names[0], "a reply in a thread I started is fine")
        clock.at = started + timedelta(days=1, seconds=1)
        sent(client, headers, names[most], "a day later")


# -- pushes ------------------------------------------------------------------------------------


def test_a_message_is_pushed_to_the_recipient_and_my_other_pages(
    client: TestClient, make_user: MakeUser, services: Services
) -> None:
    ann, bob = make_user("ann"), make_user("bob")
    with services.write_conn() as conn:
        conn.execute(update(User).where(User.user_id == "ann").values(display_name="Ann A."))
    with (
        client.websocket_connect(f"{API}/ws", headers=bob) as bobs,
        client.websocket_connect(f"{API}/ws", headers=ann) as anns,
    ):
        assert bobs.receive_json() == anns.receive_json() == {"type": "hello"}
        message = sent(client, ann, "bob", "<b>hi</b>", game_id=None)
        shape = {
            "type": "message",
            "id": message["id"],
            "from": "ann",
            "from_name": "Ann A.",
            "body": "<b>hi</b>",
            "game": None,
            "created_at": message["created_at"],
        }
        assert bobs.receive_json() == {**shape, "thread_with": "ann", "unread": 1}
        assert anns.receive_json() == {**shape, "thread_with": "bob", "unread": 0}
        read_all(client, bob, "ann")
        assert bobs.receive_json() == {"type": "messages_read", "thread_with": "ann", "unread": 0}
        sent(client, bob, "ann", "hello")
        assert anns.receive_json()["unread"] == 1
        assert bobs.receive_json()["thread_with"] == "ann"
        hide(client, ann, "bob")
        assert anns.receive_json() == {"type": "messages_read", "thread_with": "bob", "unread": 0}
