"""A game is named as its options make it wherever it is listed (issue 36, item 9): a
Double or Triple Boatzee game reads "Double Boatzee" or "Triple Boatzee" on the status page,
the games to watch, a profile's current games, a history and the notifications, and in the
API's lists; the board's title says it too."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from tests.web.test_pages_forms import _new_game_id, _signup


def _new_boatzee(web: TestClient, csrf: str, columns: int, **seats: str) -> str:
    data = {"csrf_token": csrf, "opt_columns": str(columns), "opt_ruleset": "boatzee", **seats}
    return _new_game_id(web.post("/new/boatzee", data=data))


def test_double_and_triple_boatzee_are_named_so_wherever_they_are_listed(
    web: TestClient,
) -> None:
    other = TestClient(web.app, follow_redirects=False)
    _signup(other, "bob")
    csrf = _signup(web, "ada")
    triple = _new_boatzee(web, csrf, 3, opp1="user", user1="bob")  # bob is invited
    double = _new_boatzee(web, csrf, 2, opp1="bot:greedy")  # under way
    single = _new_boatzee(web, csrf, 1, opp1="bot:greedy")

    status = web.get("/status").text
    for game, title in (
        (triple, "Triple Boatzee"),
        (double, "Double Boatzee"),
        (single, "Boatzee"),
    ):
        assert f'<a href="/games/{game}">{title} #{game}</a>' in status, title
    listed = {str(g["id"]): g["title"] for g in web.get("/api/v1/games").json()}
    assert listed == {triple: "Triple Boatzee", double: "Double Boatzee", single: "Boatzee"}
    assert f"Watch Double Boatzee #{double}" in web.get("/live").text
    assert re.search(rf'href="/games/{double}"[^>]*>\s*Double Boatzee', web.get("/users/ada").text)
    assert "<title>Double Boatzee #" in web.get(f"/games/{double}").text
    # bob's bell: the invitation names the game as its options make it.
    bell = other.get("/notifications").text
    assert f'<a class="game" href="/games/{triple}">Triple Boatzee #{triple}</a>' in bell

    # Over: the history says it too.
    version = web.get(f"/api/v1/games/{double}").json()["version"]
    resigned = web.post(
        f"/api/v1/games/{double}/resign",
        json={"expected_version": version},
        headers={"X-CSRF-Token": csrf},
    )
    assert resigned.status_code == 200, resigned.text
    history = web.get("/users/ada/games?state=finished").text
    assert f'<a href="/games/{double}">Double Boatzee #{double}</a>' in history
