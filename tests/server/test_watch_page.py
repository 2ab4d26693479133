"""The page of games to watch: games in progress I may watch, filtered by game; private
games only to their players."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.server.conftest import MakeUser

API = "/api/v1"


def test_the_watch_page_lists_public_games_in_progress(
    client: TestClient, make_user: MakeUser
) -> None:
    me = make_user("shown")
    public = client.post(
        f"{API}/games", json={"game": "boatzee", "seats": ["me", "bot:greedy"]}, headers=me
    ).json()
    secret = client.post(
        f"{API}/games",
        json={"game": "boss", "seats": ["me", "bot:random"], "private": True},
        headers=me,
    ).json()
    page = client.get("/live")
    assert page.status_code == 200
    assert f'href="/games/{public["id"]}"' in page.text
    assert f'href="/games/{secret["id"]}"' not in page.text
    assert "nav" in page.text and 'href="/live"' in page.text
    only_boss = client.get("/live?game=boss")
    assert f'href="/games/{public["id"]}"' not in only_boss.text
    unknown = client.get("/live?game=chess")
    assert unknown.status_code == 422 and "no game called" in unknown.text
    assert f'href="/games/{public["id"]}"' in unknown.text
    assert client.get("/live?before=notanumber").status_code == 200
