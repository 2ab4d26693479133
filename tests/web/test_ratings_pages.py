"""Ratings in the browser: two people play a rated game to its end while both watch their
boards (each seat's rating and chance before, the new ratings and their changes after,
announced); both profiles then show the new rating, "?" while provisional, with its chart
(an image with a label in words, and a table); the leaderboards render, at 1100px and at
390px without sideways scrolling. Without a browser: the new-game form's "Rated" box, and a
leaderboard's provisional players, listed after the settled ones and marked."""

from __future__ import annotations

import re
from typing import Any

from fastapi.testclient import TestClient
from playwright.sync_api import Browser, BrowserContext, Page, expect
from sqlalchemy import create_engine, update

from dicehall.server.core.models import Rating
from dicehall.server.domain.services import Services
from tests.live import LiveServer, add_user
from tests.server.test_ratings_api import rated_players
from tests.web.conftest import shoot, signup_api
from tests.web.test_pages_forms import _signup

#: Ten Thousand to 1,000 with no entry threshold: a game of a few dozen moves.
QUICK = {"target": 1000, "entry_threshold": 0}


def play_to_end(players: list[tuple[BrowserContext, str]], game_id: int) -> dict[str, Any]:
    """Each player takes their first legal action when it is their turn, until the end."""
    for _ in range(400):
        for context, csrf in players:
            game: dict[str, Any] = context.request.get(f"/api/v1/games/{game_id}").json()
            if game["status"] != "active":
                return game
            if game["your_turn"]:
                moved = context.request.post(
                    f"/api/v1/games/{game_id}/actions",
                    data={"action": game["legal"][0], "expected_version": game["version"]},
                    headers={"X-CSRF-Token": csrf},
                )
                assert moved.ok, moved.text()
    raise AssertionError("the game did not end")


def no_sideways_scroll(page: Page) -> bool:
    return bool(page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"))


def signed(change: int) -> str:
    return f"+{change}" if change > 0 else str(change)


def test_two_players_see_their_new_ratings_on_the_board_and_their_profiles(
    page: Page, browser: Browser, site: LiveServer
) -> None:
    alice = signup_api(page.context, "alice")
    other = browser.new_context(base_url=site.base, bypass_csp=True)
    try:
        bob = signup_api(other, "bob")
        created = page.context.request.post(
            "/api/v1/games",
            data={"game": "tenthousand", "seats": ["me", "user:bob"], "options": QUICK},
            headers={"X-CSRF-Token": alice},
        )
        assert created.ok, created.text()
        game_id = created.json()["id"]
        accepted = other.request.post(
            f"/api/v1/games/{game_id}/accept", headers={"X-CSRF-Token": bob}
        )
        assert accepted.ok, accepted.text()
        boards = [page, other.new_page()]
        for board in boards:
            board.goto(f"/games/{game_id}")
            board.wait_for_function("document.body.dataset.live === 'on'")
        # Before: both at 1500, provisional, an even chance; the favourite line says so.
        ratings = page.locator("#board-ratings")
        expect(ratings).to_be_visible()
        expect(page.get_by_test_id("rating-0")).to_have_text("1500?")
        expect(page.get_by_test_id("rating-1")).to_have_text("1500?")
        expect(page.get_by_test_id("rating-chance-1")).to_have_text("50% to finish first")
        expect(page.locator("#ratings-note")).to_have_text(
            "The ratings give every player the same chance to finish first: 50%."
        )
        shoot(page, "ratings-board-before")

        over = play_to_end([(page.context, alice), (other, bob)], game_id)
        assert over["status"] == "finished"
        seats = over["ratings"]["seats"]
        tie = len(over["result"]["winners"]) == 2  # first-legal-action play: 1 in 40
        assert {s["change"] > 0 for s in seats} == ({False} if tie else {True, False})
        for board in boards:
            for s in seats:
                expect(board.get_by_test_id(f"rating-{s['seat']}")).to_have_text(f"{s['rating']}?")
                expect(board.get_by_test_id(f"rating-change-{s['seat']}")).to_have_text(
                    signed(s["change"])
                )
            expect(board.locator("#ratings-news")).to_have_text(
                f"Ratings after this game: alice{' (you)' if board is page else ''} "
                f"{seats[0]['rating']}? ({signed(seats[0]['change'])}), "
                f"bob{' (you)' if board is not page else ''} "
                f"{seats[1]['rating']}? ({signed(seats[1]['change'])})."
            )
        expect(page.get_by_test_id("rating-chance-0")).to_have_text("(had 50% to finish first)")
        shoot(page, "ratings-board-after")
        page.set_viewport_size({"width": 390, "height": 800})
        assert no_sideways_scroll(page)
        shoot(page, "ratings-board-after-phone")
        page.set_viewport_size({"width": 1100, "height": 900})

        # Each profile: the new rating with "?", the last change, the chart and its table.
        for user_id, seat in (("alice", seats[0]), ("bob", seats[1])):
            viewer = boards[0] if user_id == "alice" else boards[1]
            viewer.goto(f"/users/{user_id}")
            expect(viewer.get_by_test_id("rating-tenthousand")).to_have_text(f"{seat['rating']}?")
            expect(viewer.get_by_test_id("rating-tenthousand-last")).to_have_text(
                f"{seat['change']:+d}"  # a profile signs every change, +0 too
            )
            chart = viewer.get_by_test_id("chart-tenthousand")
            expect(chart).to_have_attribute("role", "img")
            expect(chart).to_have_attribute(
                "aria-label",
                f"Ten Thousand rating over the last 1 rated game: from 1500 to "
                f"{seat['rating']} (provisional); highest {max(1500, seat['rating'])}, "
                f"lowest {min(1500, seat['rating'])}.",
            )
            viewer.locator(".rating-games summary").click()
            row = viewer.locator(".rating-games tbody tr")
            expect(row).to_have_count(1)
            place = "1 of 2" if seat["change"] > 0 or tie else "2 of 2"
            for cell in (f"#{game_id}", place, signed(seat["change"]), str(seat["rating"])):
                expect(row).to_contain_text(cell)
        shoot(page, "ratings-profile")
        page.set_viewport_size({"width": 390, "height": 800})
        assert no_sideways_scroll(page)
        shoot(page, "ratings-profile-phone")
    finally:
        other.close()


def test_the_leaderboards_render(page: Page, browser: Browser, site: LiveServer) -> None:
    alice = signup_api(page.context, "alice")
    page.goto("/ratings")
    expect(page.get_by_role("heading", name="Ratings", exact=True)).to_be_visible()
    page.get_by_role("link", name="Double Boatzee").click()
    expect(page).to_have_url(re.compile(r"/ratings/boatzee-double$"))
    expect(page.locator("#leaderboard-empty")).to_contain_text("Nobody is listed yet")
    expect(page.locator('.kind-picker a[aria-current="page"]')).to_have_text("Double Boatzee")
    # Two players of a rated game (bob resigns), made settled in the table: ten games each.
    other = browser.new_context(base_url=site.base, bypass_csp=True)
    try:
        bob = signup_api(other, "bob")
        made = other.request.post(
            "/api/v1/games",
            data={"game": "boss", "seats": ["me", "user:alice"]},
            headers={"X-CSRF-Token": bob},
        )
        assert made.ok, made.text()
        game = page.context.request.post(
            f"/api/v1/games/{made.json()['id']}/accept", headers={"X-CSRF-Token": alice}
        ).json()
        resigned = other.request.post(
            f"/api/v1/games/{game['id']}/resign",
            data={"expected_version": game["version"]},
            headers={"X-CSRF-Token": bob},
        )
        assert resigned.ok, resigned.text()
    finally:
        other.close()
    engine = create_engine(site.db_url)
    with engine.begin() as conn:
        conn.execute(update(Rating).values(games=10))
    engine.dispose()
    page.goto("/ratings/boss")
    rows = page.locator("#leaderboard tbody tr")
    expect(rows).to_have_count(2)
    expect(rows.first).to_have_attribute("data-user", "alice")
    expect(rows.first).to_contain_text("(you)")
    expect(rows.first.locator("td").first).to_have_text("1")
    shoot(page, "ratings-leaderboard")
    page.set_viewport_size({"width": 390, "height": 800})
    assert no_sideways_scroll(page)
    shoot(page, "ratings-leaderboard-phone")


def test_edit_ratings_follows_a_change_made_elsewhere(page: Page) -> None:
    csrf = signup_api(page.context, "alice")
    page.goto("/settings")
    page.wait_for_function("document.body.dataset.live === 'on'")
    section = page.get_by_role("region", name="Edit ratings")
    expect(section.get_by_role("checkbox", name="Double Boatzee")).to_be_checked()
    expect(section.get_by_role("checkbox", name="Hide my rating while I play")).not_to_be_checked()
    changed = page.context.request.patch(
        "/api/v1/users/me/settings",
        data={"ratings_shown": ["boss"], "hide_rating_while_playing": True},
        headers={"X-CSRF-Token": csrf},
    )
    assert changed.ok, changed.text()
    expect(section.get_by_role("checkbox", name="Double Boatzee")).not_to_be_checked()
    expect(section.get_by_role("checkbox", name="Boss Dice")).to_be_checked()
    expect(section.get_by_role("checkbox", name="Hide my rating while I play")).to_be_checked()
    section.scroll_into_view_if_needed()
    shoot(page, "ratings-settings")


def test_the_new_game_form_asks_whether_the_game_is_rated(
    web: TestClient, services: Services
) -> None:
    csrf = _signup(web, "hank")
    add_user(services, "ivy")
    form = web.get("/new/boss").text
    assert re.search(r'id="f-rated"[^>]*checked', form), "rated by default"
    with_ivy = {"csrf_token": csrf, "opp1": "user", "user1": "ivy"}
    for sent, kind in (({**with_ivy, "rated": "on"}, "boss"), (with_ivy, None)):
        answer = web.post("/new/boss", data=sent)
        assert answer.status_code == 303, answer.text
        assert web.get("/api/v1" + answer.headers["location"]).json()["rating_kind"] == kind
    # Ticked against a bot: simply unrated (a game with a bot is never rated).
    answer = web.post("/new/boss", data={"csrf_token": csrf, "opp1": "bot:random", "rated": "on"})
    assert answer.status_code == 303, answer.text
    assert web.get("/api/v1" + answer.headers["location"]).json()["rating_kind"] is None


def test_a_leaderboard_lists_provisional_players_after_the_settled_ones(
    web: TestClient, services: Services
) -> None:
    # A newcomer with a high rating after 3 games: listed, below the settled player, marked.
    rated_players(services, {"settled": (26.0, 2.0, 12, 1), "newcomer": (40.0, 1.0, 3, 0)})
    page = web.get("/ratings/boss").text
    rows = dict(re.findall(r'<tr[^>]* data-user="(\w+)">(.*?)</tr>', page, re.S))
    assert page.index('data-user="settled"') < page.index('id="provisional-part"')
    assert page.index('id="provisional-part"') < page.index('data-user="newcomer"')
    assert ">provisional</span>" in rows["newcomer"] and "provisional" not in rows["settled"]
    assert "Provisional: fewer than 10 rated games" in page
