"""Nobody can tell why someone is out of reach: an ignore either way, a closed account and
a setting that lets nobody in all get the same status and the same words, which name the
other by their user id as they spell it (never capitalised by a page)."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update

from dicehall.server.core.clock import now
from dicehall.server.core.models import User
from dicehall.server.domain.people import relations
from dicehall.server.domain.people import settings as user_settings
from dicehall.server.domain.services import Services
from tests.server.conftest import Headers, MakeUser
from tests.server.test_accounts import API, browser, log_in

#: Each way to be out of reach of ann, by the user who is.
REASONS = ("ignores_ann", "ignored_by_ann", "closed", "lets_nobody_in")


def _pk(services: Services, user_id: str) -> int:
    with services.read_conn() as conn:
        return int(conn.execute(User.__table__.select().where(User.key == user_id)).one().id)


def _out_of_reach(services: Services, make_user: MakeUser) -> dict[str, Headers]:
    """ann, and one user out of her reach for each of :data:`REASONS` (named after it)."""
    people = {name: make_user(name) for name in ("ann", *REASONS)}
    ann = _pk(services, "ann")
    with services.write_conn() as conn:
        relations.put(conn, _pk(services, "ignores_ann"), ann, "ignore", None)
        relations.put(conn, ann, _pk(services, "ignored_by_ann"), "ignore", None)
        conn.execute(update(User).where(User.key == "closed").values(closed_at=now()))
        user_settings.change(
            conn,
            _pk(services, "lets_nobody_in"),
            {"messages_from": "nobody", "challenges_from": "nobody"},
        )
    return people


def _same_words(answers: dict[str, Any]) -> set[tuple[int, str, str]]:
    """The answers with each one's user id taken out of its sentence."""
    return {
        (a.status_code, a.json()["code"], a.json()["error"].replace(name, "X"))
        for name, a in answers.items()
    }


@pytest.mark.parametrize("meeting", ["message", "challenge"])
def test_every_reason_gets_the_same_answer(
    client: TestClient, make_user: MakeUser, services: Services, meeting: str
) -> None:
    people = _out_of_reach(services, make_user)
    answers = {}
    for name in REASONS:
        if meeting == "message":
            answer = client.post(
                f"{API}/messages/{name}", json={"body": "hi"}, headers=people["ann"]
            )
        else:
            body = {"game": "boatzee", "seats": ["me", name], "pace": "none"}
            answer = client.post(f"{API}/games", json=body, headers=people["ann"])
        answers[name] = answer
    expected = "you cannot send messages to X" if meeting == "message" else "you cannot play with X"
    assert _same_words(answers) == {(403, "not_accepted", expected)}


def test_a_watch_invitation_names_the_guest_as_they_spell_it(
    client: TestClient, make_user: MakeUser, services: Services
) -> None:
    ann, _ = make_user("ann"), make_user("Bob")
    with services.write_conn() as conn:
        relations.put(conn, _pk(services, "bob"), _pk(services, "ann"), "ignore", None)
    body = {"game": "boatzee", "seats": ["me", "bot:random"], "private": True, "pace": "none"}
    game_id = client.post(f"{API}/games", json=body, headers=ann).json()["id"]
    refused = client.post(f"{API}/games/{game_id}/watchers", json={"user": "bOB"}, headers=ann)
    assert refused.status_code == 403
    assert refused.json()["error"] == "you cannot invite Bob to watch"


def test_a_page_shows_the_refusal_with_the_user_id_as_spelled(
    client: TestClient, make_user: MakeUser, services: Services
) -> None:
    _out_of_reach(services, make_user)
    web = browser(client)
    csrf = log_in(web, "ann")
    shown = []
    for name in ("ignores_ann", "lets_nobody_in"):
        answer = web.post(f"/messages/{name}", data={"csrf_token": csrf, "body": "hello"})
        assert answer.status_code == 422
        text = html.unescape(re.sub(r"<[^>]+>|\s+", " ", answer.text))
        sentence = re.search(r"You cannot send messages to (\S+)\.", text)
        assert sentence is not None, text
        assert sentence.group(1) == name  # not "Ignores_ann"
        shown.append(sentence.group(0).replace(name, "X"))
    assert shown[0] == shown[1]
