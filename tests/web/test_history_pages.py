"""A player's history page without a browser: filters as a GET form, the record per game,
"More" carrying the cursor and the filters, replay links, private games, and mistakes shown
next to their fields."""

from __future__ import annotations

import html as html_lib
import re
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from dicehall.server.app import create_app
from dicehall.server.domain.games import quotas
from dicehall.server.domain.services import Services
from tests.live import add_user
from tests.server.conftest import Headers

API = "/api/v1"


@pytest.fixture
def web(services: Services, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    monkeypatch.setattr(quotas, "CREATES_PER_MINUTE", 10_000)
    with TestClient(create_app(services=services), follow_redirects=False) as client:
        yield client


def _user(services: Services, name: str) -> Headers:
    return add_user(services, name, services.hasher.hash("correct horse battery"))


def _finish(web: TestClient, loser: Headers, game: Any) -> int:
    answer = web.post(
        f"{API}/games/{game['id']}/resign",
        json={"expected_version": game["version"]},
        headers=loser,
    )
    assert answer.status_code == 200, answer.text
    game_id: int = answer.json()["id"]
    return game_id


def _lost(web: TestClient, me: Headers, kind: str = "boss") -> int:
    made = web.post(f"{API}/games", json={"game": kind, "seats": ["me", "bot:random"]}, headers=me)
    assert made.status_code == 201, made.text
    return _finish(web, me, made.json())


def _won(web: TestClient, me: Headers, rival: Headers, rival_id: str, private: bool = False) -> int:
    made = web.post(
        f"{API}/games",
        json={"game": "boss", "seats": ["me", rival_id], "pace": "none", "private": private},
        headers=me,
    )
    assert made.status_code == 201, made.text
    accepted = web.post(f"{API}/games/{made.json()['id']}/accept", headers=rival)
    assert accepted.status_code == 200, accepted.text
    return _finish(web, rival, accepted.json())


def _game_links(text: str) -> list[int]:
    return [int(i) for i in re.findall(r'<td data-label="Game"><a href="/games/(\d+)">', text)]


def _record(text: str) -> dict[str, list[int]]:
    table = text.split('<table class="record">')[1].split("</table>")[0]
    out = {}
    for row in re.findall(r"<tr><th scope=\"row\">(.*?)</tr>", table, re.S):
        title = re.sub(r"<[^>]+>", "", row.split("</th>")[0])
        out[title] = [int(n) for n in re.findall(r"<td>(\d+)</td>", row)]
    return out


def _more(text: str) -> str | None:
    found = re.search(r'<a class="button secondary" href="([^"]+)" rel="next">', text)
    return html_lib.unescape(found.group(1)) if found else None


def test_the_history_page_pages_filters_and_counts(web: TestClient, services: Services) -> None:
    alice, bob = _user(services, "alice"), _user(services, "bob")
    lost = [_lost(web, alice) for _ in range(22)]
    won = [_won(web, alice, bob, "bob") for _ in range(2)]
    lost_ten = _lost(web, alice, "tenthousand")

    first = web.get("/users/alice/games")
    assert first.status_code == 200
    assert _game_links(first.text) == [lost_ten, *reversed(won), *reversed(lost)][:20]
    assert _record(first.text) == {"Boss Dice": [2, 22, 0], "Ten Thousand": [0, 1, 0]}
    assert f'href="/games/{lost_ten}/replay"' in first.text
    assert 'class="result-win">won<' in first.text and 'class="result-loss">lost<' in first.text
    more = _more(first.text)
    assert more is not None and "cursor=" in more
    second = web.get(more)
    assert second.status_code == 200
    assert _game_links(second.text) == list(reversed(lost))[17:]
    seen = _game_links(first.text) + _game_links(second.text)
    assert sorted(seen) == sorted([*lost, *won, lost_ten]) and len(seen) == len(set(seen))
    assert _more(second.text) is None
    assert '<table class="record">' not in second.text  # the record sits on the first page

    # Filters, and "More" keeps them.
    filtered = web.get("/users/alice/games", params={"game": "boss", "result": "loss"})
    assert _game_links(filtered.text) == list(reversed(lost))[:20]
    more = _more(filtered.text)
    assert more is not None and "game=boss" in more and "result=loss" in more
    assert _game_links(web.get(more).text) == list(reversed(lost))[20:]
    assert '<option value="boss" selected>' in filtered.text
    assert '<option value="loss" selected>' in filtered.text
    against = web.get("/users/alice/games", params={"vs": "bob"})
    assert _game_links(against.text) == list(reversed(won))
    assert "Record against bob" in against.text
    assert _record(against.text) == {"Boss Dice": [2, 0, 0]}
    assert 'value="bob"' in against.text
    bobs = web.get("/users/bob/games")
    assert _game_links(bobs.text) == list(reversed(won))
    assert bobs.text.count('class="result-loss">lost<') == 2


def test_games_in_progress_and_private_games(web: TestClient, services: Services) -> None:
    alice, bob = _user(services, "alice"), _user(services, "bob")
    secret = _won(web, alice, bob, "bob", private=True)
    made = web.post(
        f"{API}/games", json={"game": "boatzee", "seats": ["me", "bot:random"]}, headers=alice
    )
    playing = made.json()["id"]
    assert _game_links(web.get("/users/alice/games").text) == []
    assert "No finished games yet." in web.get("/users/alice/games").text
    # Signed in (a page knows its visitor by the session cookie), alice sees her own.
    login = {"user_id": "alice", "password": "correct horse battery"}
    assert web.post(f"{API}/auth/login", json=login).status_code == 200
    assert _game_links(web.get("/users/alice/games").text) == [secret]
    assert _game_links(web.get("/users/bob/games").text) == [secret]
    active = web.get("/users/alice/games", params={"state": "active"})
    assert _game_links(active.text) == [playing]
    assert f'href="/games/{playing}/replay"' not in active.text  # not over yet
    assert "Last moved" in active.text


def test_mistakes_sit_next_to_their_fields(web: TestClient, services: Services) -> None:
    _user(services, "alice")
    answer = web.get("/users/alice/games", params={"vs": "nobody", "game": "chess"})
    assert answer.status_code == 422
    assert 'id="f-game-error"' in answer.text and "chess" in answer.text
    answer = web.get("/users/alice/games", params={"state": "active", "result": "win"})
    assert answer.status_code == 422
    assert 'id="f-result-error"' in answer.text
    assert 'aria-invalid="true"' in answer.text
    answer = web.get("/users/alice/games", params={"vs": "nobody"})
    assert answer.status_code == 422 and 'id="f-vs-error"' in answer.text
    assert 'value="nobody"' in answer.text
    answer = web.get("/users/alice/games", params={"cursor": "junk"})
    assert answer.status_code == 422 and "cursor" in answer.text
    assert web.get("/users/nobody/games").status_code == 404


def test_the_profile_links_to_the_history(web: TestClient, services: Services) -> None:
    _user(services, "alice")
    profile = web.get("/users/alice")
    assert 'href="/users/alice/games"' in profile.text
    assert web.get("/users/alice/games").status_code == 200
