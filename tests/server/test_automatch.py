"""The auto-match API: filing a ticket and every refusal (which
changes nothing), my tickets and the queues, cancelling, and two players matched by the
site's own job as soon as the second files (announced after the commit)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from dicehall import games
from dicehall.server.app import create_app
from dicehall.server.domain.automatch import tickets
from dicehall.server.domain.automatch.records import TICKETS
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.services import Services, build_services
from tests.live import add_user
from tests.server import pig_entry
from tests.server.conftest import Headers, MakeUser, site_settings
from tests.server.pig_entry import register_pig
from tests.waiting import wait_until

API = "/api/v1"


def file(client: TestClient, headers: Headers, status: int = 201, **body: Any) -> Any:
    answer = client.post(f"{API}/automatch", json={"seats": [2, 2], **body}, headers=headers)
    assert answer.status_code == status, answer.text
    return answer.json()


def count(services: Services) -> int:
    with services.read_conn() as conn:
        return int(conn.execute(select(func.count()).select_from(TICKETS)).scalar_one())


def test_a_ticket_filed_listed_and_cancelled(
    client: TestClient, make_user: MakeUser, services: Services
) -> None:
    ann, bob = make_user("ann"), make_user("bob")
    ticket = file(client, ann, game="bullseye", seats=[3, 5], pace="brisk", bots_after=30)
    assert ticket["status"] == "waiting" and ticket["game_id"] is None
    assert ticket["seats"] == [3, 5] and ticket["rated"] is True
    assert ticket["pace"]["name"] == "brisk" and ticket["bots_after"] == 30
    assert ticket["options"]["bank"] == 100 and ticket["matched_at"] is None
    assert 0 <= ticket["estimated_wait_s"] <= 30 * 60  # the bots' time, at most
    listed = client.get(f"{API}/automatch", headers=ann).json()
    assert [t["id"] for t in listed["tickets"]] == [ticket["id"]]
    queue = next(q for q in listed["queues"] if q["game"] == "bullseye")
    assert queue["waiting"] == 1 and queue["by_seats"]["3"] == 1 and queue["by_seats"]["6"] == 0
    assert {q["game"] for q in listed["queues"]} >= {"boss", "holdem", "tenthousand"}
    assert client.get(f"{API}/automatch").json()["tickets"] == []  # a visitor: queues only
    assert client.get(f"{API}/automatch", headers=bob).json()["tickets"] == []

    assert client.delete(f"{API}/automatch/{ticket['id']}", headers=bob).status_code == 404
    assert client.delete(f"{API}/automatch/99999", headers=ann).status_code == 404
    gone = client.delete(f"{API}/automatch/{ticket['id']}", headers=ann)
    assert gone.status_code == 200 and gone.json()["status"] == "cancelled"
    again = client.delete(f"{API}/automatch/{ticket['id']}", headers=ann)
    assert again.status_code == 200 and again.json()["status"] == "cancelled"
    assert client.get(f"{API}/automatch", headers=ann).json()["tickets"] == []
    assert count(services) == 1


#: Each refused body (beside ``"seats": [2, 2]``), its status and its code.
REFUSED: list[tuple[dict[str, Any], int, str]] = [
    ({"game": "chess"}, 422, "unknown_game"),
    ({"game": "boatzee", "options": {"columns": 9}}, 422, "invalid_options"),
    ({"game": "boss", "seats": [1, 2]}, 422, "invalid_seats"),
    ({"game": "boss", "seats": [2, 3]}, 422, "invalid_seats"),
    ({"game": "holdem", "seats": [4, 3]}, 422, "invalid_seats"),
    ({"game": "bullseye", "seats": [2, 4]}, 422, "invalid_seats"),
    ({"game": "boss", "seats": [2]}, 422, "invalid_request"),
    ({"game": "boss", "pace": "none"}, 422, "invalid_pace"),
    ({"game": "boss", "pace": "sometimes"}, 422, "invalid_pace"),
    ({"game": "boss", "pace": {"initial": 60}}, 422, "invalid_pace"),
    ({"game": "boss", "bots_after": 1441}, 422, "invalid_request"),
    ({"game": "boss", "bots_after": -1}, 422, "invalid_request"),
    ({"game": "boss", "colour": "red"}, 422, "invalid_request"),
]


def test_refusals_change_nothing(
    client: TestClient, make_user: MakeUser, services: Services
) -> None:
    me = make_user("me")
    for body, status, code in REFUSED:
        answer = client.post(f"{API}/automatch", json={"seats": [2, 2], **body}, headers=me)
        assert answer.status_code == status, (body, answer.text)
        assert answer.json()["code"] == code, body
    assert count(services) == 0


def test_one_waiting_ticket_per_game_and_a_few_in_all(
    client: TestClient, make_user: MakeUser, services: Services
) -> None:
    me = make_user("me")
    assert client.post(f"{API}/automatch", json={"game": "boss"}).status_code == 401
    file(client, me, game="boss")
    assert file(client, me, 409, game="boss", pace="brisk")["code"] == "already_waiting"
    file(client, me, game="holdem")
    file(client, me, game="tenthousand", seats=[2, 8], rated=False)
    refused = file(client, me, 429, game="boatzee")
    assert refused["code"] == "too_many_tickets"
    assert count(services) == tickets.MOST_WAITING


def test_a_game_without_ratings_is_never_rated(monkeypatch: pytest.MonkeyPatch) -> None:
    register_pig()
    # Pig declares no kinds, so it is rated as its own kind ...
    assert tickets.check("pig", {}, [2, 2], "daily", True, None).rated is True
    # ... unless its entry says it is never rated (no kinds at all).
    monkeypatch.setitem(games._EXTRA, "pig", replace(pig_entry.ENTRY, rating_kinds=()))
    with pytest.raises(Refused) as refused:
        tickets.check("pig", {}, [2, 2], "daily", True, None)
    assert refused.value.code == "not_rateable"
    assert tickets.check("pig", {}, [2, 2], "daily", False, None).rated is False
    assert tickets.seat_counts("bullseye", tickets.check(
        "bullseye", {"allow_two_seats": True}, [2, 2], "daily", True, None
    ).options_text) == tuple(range(2, 9))  # fmt: skip


def test_two_players_are_matched_by_the_site_job_at_once(db_url: str) -> None:
    # The tests' sites run no periodic jobs (site_settings); this one runs the site's own.
    services = build_services(site_settings(db_url, site_jobs=True))
    try:
        with TestClient(create_app(services=services)) as client:
            _matched_by_the_job(client, add_user(services, "ann"), add_user(services, "bob"))
    finally:
        services.engine.dispose()


def _matched_by_the_job(client: TestClient, ann: Headers, bob: Headers) -> None:
    first = file(client, ann, game="holdem")
    second = file(client, bob, game="holdem")

    def matched() -> list[Any] | None:
        tickets: list[Any] = client.get(f"{API}/automatch", headers=ann).json()["tickets"]
        return tickets if tickets[0]["status"] == "matched" else None

    mine = wait_until(matched, timeout=15, what="the site job to match the tickets")
    assert mine[0]["id"] == first["id"] and mine[0]["status"] == "matched", mine
    game_id = mine[0]["game_id"]
    theirs = client.get(f"{API}/automatch", headers=bob).json()["tickets"]
    assert theirs[0]["id"] == second["id"] and theirs[0]["game_id"] == game_id
    game = client.get(f"{API}/games/{game_id}", headers=ann).json()
    assert game["status"] == "active" and game["rating_kind"] == "holdem"
    assert {s["user"] for s in game["seats"]} == {"ann", "bob"}
    listed = client.get(f"{API}/games", headers=bob).json()  # the status page's list
    assert [g["id"] for g in listed] == [game_id]
    cancelled = client.delete(f"{API}/automatch/{first['id']}", headers=ann)
    assert cancelled.status_code == 409 and cancelled.json()["code"] == "already_matched"
    queues = client.get(f"{API}/automatch").json()["queues"]
    holdem = next(q for q in queues if q["game"] == "holdem")
    assert holdem["waiting"] == 0 and holdem["estimated_wait_s"] is not None
