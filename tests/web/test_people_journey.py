"""Two people in Chromium: they name each other buddies from their profiles, talk through
messages delivered live, then one ignores the other, and every place where they could meet
refuses: a message, naming him as an opponent, his open seat (not even listed), his invite
link, his chat lines, an invitation to watch. Nothing tells her she is ignored beyond what
a closed door tells anyone."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from playwright.sync_api import Browser, Page, expect

from tests.live import LiveServer
from tests.web.conftest import create_game_api, shoot, signup_api


def test_buddies_talk_live_then_an_ignore_closes_every_door(
    page: Page, browser: Browser, site: LiveServer
) -> None:
    ann = signup_api(page.context, "ann")
    other = browser.new_context(base_url=site.base, bypass_csp=True)
    other.set_default_timeout(15_000)
    try:
        bob = signup_api(other, "bob")
        bob_page = other.new_page()
        as_bob = {"X-CSRF-Token": bob}

        # Buddies, from each other's profile.
        page.goto("/users/bob")
        page.get_by_role("button", name="Buddy", exact=True).click()
        bob_page.goto("/users/ann")
        bob_page.get_by_role("button", name="Buddy", exact=True).click()
        page.goto("/buddies")
        expect(page.locator("li.relation")).to_contain_text("mutual")

        # Messages, delivered live both ways.
        page.goto("/messages/bob")
        bob_page.goto("/messages/ann")
        for each in (page, bob_page):
            each.wait_for_function("document.body.dataset.live === 'on'")
        page.get_by_label("Your message").fill("Fancy a game of Boatzee?")
        page.get_by_role("button", name="Send", exact=True).click()
        expect(bob_page.locator("#messages")).to_contain_text("Fancy a game of Boatzee?")
        bob_page.get_by_label("Your message").fill("Later, maybe.")
        bob_page.get_by_role("button", name="Send", exact=True).click()
        expect(page.locator("#messages")).to_contain_text("Later, maybe.")

        # Bob's doors: an open seat, an invite link, a public game where he chats.
        open_game = create_game_api(other, bob, "boatzee", ["me", "open"])
        link = other.request.post("/api/v1/invites", data={}, headers=as_bob).json()["url"]
        public = create_game_api(other, bob, "boatzee", ["me", "bot:random"])
        said = other.request.post(
            f"/api/v1/games/{public}/chat", data={"body": "hello watchers"}, headers=as_bob
        )
        assert said.ok, said.text()
        private = other.request.post(
            "/api/v1/games",
            data={"game": "boatzee", "seats": ["me", "bot:random"], "private": True},
            headers=as_bob,
        ).json()["id"]

        # Bob ignores Ann, from her profile.
        bob_page.goto("/users/ann")
        bob_page.get_by_role("button", name="Ignore", exact=True).click()
        bob_page.goto("/ignored")
        expect(bob_page.locator("li.relation")).to_contain_text("ann")

        # A message: refused like a user who accepts none.
        page.goto("/messages/bob")
        page.get_by_label("Your message").fill("Are you there?")
        page.get_by_role("button", name="Send", exact=True).click()
        # The user id as bob spells it, never capitalised by the page.
        expect(page.locator("main")).to_contain_text("You cannot send messages to bob.")
        expect(bob_page.locator("body")).not_to_contain_text("Are you there?")

        # Naming him as an opponent.
        page.goto("/new/boatzee?opponent=bob")
        page.get_by_role("button", name="Start the game").click()
        expect(page.locator("main")).to_contain_text("You cannot play with bob.")

        # His open seat: not listed, its board is not there for her (no seat offered that
        # joining would refuse), and joining it by its address says the same.
        page.goto("/waiting")
        expect(page.locator(f'a[href="/games/{open_game}"]')).to_have_count(0)
        board = page.goto(f"/games/{open_game}")
        assert board is not None and board.status == 404
        joined = page.context.request.post(
            f"/api/v1/games/{open_game}/join", data={}, headers={"X-CSRF-Token": ann}
        )
        assert joined.status == 404 and joined.json()["code"] == "not_found"

        # His invite link.
        page.goto(urlsplit(link).path)
        page.get_by_role("button", name="Accept the invite").click()
        expect(page.locator("main")).to_contain_text("You cannot play with bob.")

        # His chat lines: a spectator sees them, she does not.
        page.goto(f"/games/{public}#chat-panel")
        page.wait_for_function("document.querySelector('[data-chat-lines]') !== null")
        expect(page.locator("[data-chat-lines]")).to_have_attribute("data-chat-lines", "0")
        expect(page.locator("#chat-empty")).to_be_visible()
        expect(page.locator("#chat-lines")).not_to_contain_text("hello watchers")
        stranger = browser.new_context(base_url=site.base)
        try:
            signup_api(stranger, "cid")
            seen = stranger.request.get(f"/api/v1/games/{public}/chat").json()["lines"]
            assert [line["body"] for line in seen] == ["hello watchers"]
        finally:
            stranger.close()

        # An invitation to watch his private game.
        asked = other.request.post(
            f"/api/v1/games/{private}/watchers", data={"user": "ann"}, headers=as_bob
        )
        assert asked.status == 403 and asked.json()["code"] == "not_accepted"

        # Her buddy list still names him (she is never told), no longer mutual.
        page.goto("/buddies")
        expect(page.locator("li.relation")).to_contain_text("bob")
        expect(page.locator("li.relation")).not_to_contain_text("mutual")
        shoot(page, "people-journey-buddies")
        expect(page).to_have_url(re.compile(r"/buddies$"))
    finally:
        other.close()
