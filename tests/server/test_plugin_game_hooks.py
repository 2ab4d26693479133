"""A plug-in game's hooks live on its entry, as the five's do: Pig (registered by hand, with a
title of its own and a luck measure, and no rating kinds declared) is rated as its own kind,
titled by its entry on the leaderboard, the profile's ratings and luck, and measured for luck.
"""

from __future__ import annotations

import html
from dataclasses import replace

import pytest
from fastapi.testclient import TestClient

from dicehall import games
from dicehall.games.rating import DEFAULT_BETA, DEFAULT_TAU, RatingKindSpec
from dicehall.server.domain.ratings import kinds, model
from dicehall.server.domain.services import Services
from tests.server.conftest import MakeUser
from tests.server.pig_entry import ENTRY, TITLE, register_pig
from tests.server.test_ratings import API, changes_of, play_to_end, ratings_of

register_pig()


def test_an_undeclared_kind_is_the_games_own_with_the_default_constants() -> None:
    assert kinds.names()[-1] == "pig" and "pig" not in kinds.ladder_names()
    assert kinds.title("pig") == TITLE
    assert kinds.kind_of("pig", {"target": 30}) == "pig"
    assert kinds.ladder_game("pig") == ("pig", {})
    constants = model.constants("pig")
    assert (constants.beta, constants.tau) == (DEFAULT_BETA, DEFAULT_TAU)
    assert kinds.kind_of("chess", {}) is None


def test_declared_kinds_are_chosen_by_their_options_or_by_the_entrys_function(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    short = RatingKindSpec("pig-short", "Short Pig", {"target": 20}, ladder=True, beta=3.0)
    long = RatingKindSpec("pig-long", "Long Pig", {"target": 100})
    monkeypatch.setitem(games._EXTRA, "pig", replace(ENTRY, rating_kinds=(short, long)))
    assert kinds.names()[-2:] == ("pig-short", "pig-long")
    assert "pig" not in kinds.names() and kinds.ladder_names()[-1] == "pig-short"
    assert [kinds.kind_of("pig", {"target": t}) for t in (20, 100, 50)] == [
        "pig-short", "pig-long", None,
    ]  # fmt: skip
    assert kinds.ladder_game("pig-long") == ("pig", {"target": 100})
    assert model.constants("pig-short").beta == 3.0
    chooser = replace(ENTRY, rating_kinds=(short, long), rating_kind_of=f"{__name__}:by_length")
    monkeypatch.setitem(games._EXTRA, "pig", chooser)
    assert [kinds.kind_of("pig", {"target": t}) for t in (20, 50, 100)] == [
        "pig-short", "pig-short", "pig-long",
    ]  # fmt: skip
    # A kind that clashes with another game's is refused, naming both.
    clash = replace(ENTRY, rating_kinds=(RatingKindSpec("boss", "Pig Boss"),))
    monkeypatch.setitem(games._EXTRA, "pig", clash)
    with pytest.raises(ValueError, match="pig declares the rating kind 'boss', which is boss's"):
        kinds.names()


def by_length(options: object) -> str:
    """A test's chooser of Pig's kind: games to 50 or less are short."""
    return "pig-short" if getattr(options, "target", 0) <= 50 else "pig-long"


def test_a_finished_plug_in_game_is_rated_and_titled_and_measured_by_its_entry(
    client: TestClient, services: Services, make_user: MakeUser
) -> None:
    ann, bob = make_user("ann"), make_user("bob")
    made = client.post(
        f"{API}/games",
        json={"game": "pig", "seats": ["me", "user:bob"], "options": {"target": 10}},
        headers=ann,
    )
    assert made.status_code == 201, made.text
    accepted = client.post(f"{API}/games/{made.json()['id']}/accept", headers=bob)
    assert accepted.status_code == 200, accepted.text
    game = accepted.json()
    assert game["rating_kind"] == "pig"
    assert play_to_end(client, game["id"], [ann, bob])["status"] == "finished"

    # Rated: both players' ratings of kind pig changed, once each.
    assert {("ann", "pig"), ("bob", "pig")} <= set(ratings_of(services))
    assert sorted((c.user_id, c.kind) for c in changes_of(services, game["id"])) == [
        ("ann", "pig"), ("bob", "pig"),
    ]  # fmt: skip
    board = client.get(f"{API}/ratings/pig").json()
    assert (board["kind"], board["title"]) == ("pig", TITLE)  # (listed after 10 games)

    # Measured: Pig's own rolls count, as sums of faces.
    totals = client.get(f"{API}/users/ann/luck").json()["totals"]
    assert [(t["game"], t["measure"]) for t in totals] == [("pig", "sum of faces")]
    assert totals[0]["rolls"] > 0

    # Titled by the entry (not "pig", not the Game's "Pig") on the profile.
    profile = html.unescape(client.get("/users/ann").text)
    assert f"<li>{TITLE}: faces summing to {totals[0]['observed']} in" in profile
    assert '<li class="rating-card" data-kind="pig">' in profile
    assert f'<a href="/ratings/pig">{TITLE} leaderboard</a>' in profile


def test_the_profile_names_the_games_luck_is_measured_in_by_title(
    client: TestClient, make_user: MakeUser
) -> None:
    make_user("cat")
    profile = html.unescape(client.get("/users/cat").text)
    measured = "Ten Thousand, Boatzee, Boss Dice, Bull's Eye or " + TITLE
    assert f"No finished {measured} game yet to measure luck by." in profile
