"""Moderation end to end in Chromium: a member reports another's profile from its Report
form, a moderator (made one by ``dicehall admin grant``) opens the queue from the header's
menu and mutes the user, the muted user is refused in a message and in a game's chat and
told until when, the audit log shows the mute, the moderator ends it, and the user writes
again. The queue and the audit log are checked at phone width too."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.conftest import CliRunner
from tests.live import LiveServer
from tests.web.conftest import accept_game_api, create_game_api, shoot, signup_api
from tests.web.test_notifications_bell import no_sideways_scroll

MUTED = re.compile(r"You are muted until \d\d:\d\d UTC on \d+ \w+ \d{4}")


def _context(browser: Browser, site: LiveServer) -> BrowserContext:
    made = browser.new_context(
        base_url=site.base, viewport={"width": 1100, "height": 900}, bypass_csp=True
    )
    made.set_default_timeout(15_000)
    return made


def _act(page: Page, legend: str | re.Pattern[str], action: str, reason: str) -> None:
    """Fill the moderation form named ``legend`` from the keyboard's point of view: every
    field found by its label."""
    form = page.get_by_role("group", name=legend)
    form.get_by_label("Action").select_option(label=action)
    form.get_by_label("Reason").fill(reason)
    form.get_by_role("button", name="Apply").click()


def test_report_queue_mute_refusals_audit_and_unmute(
    page: Page, browser: Browser, site: LiveServer, cli: CliRunner
) -> None:
    alice_csrf = signup_api(page.context, "alice")
    contexts = [_context(browser, site), _context(browser, site)]
    try:
        bob_context, mia_context = contexts
        bob_csrf = signup_api(bob_context, "bob")
        signup_api(mia_context, "mia")
        granted = cli("admin", "grant", "mia", "moderator", "--db", site.db_url)
        assert granted.code == 0, granted.err
        game_id = create_game_api(bob_context, bob_csrf, "boatzee", ["me", "alice"])
        accept_game_api(page.context, alice_csrf, game_id)

        # alice reports bob's profile with its Report form (opened from the keyboard).
        page.goto("/users/bob")
        page.locator("#report-profile > summary").focus()
        page.keyboard.press("Enter")
        form = page.get_by_role("form", name="Report bob")
        form.get_by_label("What you report").select_option("profile")
        form.get_by_label("What is wrong").select_option(label="Insults, threats or harassment")
        form.get_by_label("A note for the moderators").fill("calls everyone names")
        form.get_by_role("button", name="Send report").click()
        expect(page.get_by_role("heading", name="Report sent")).to_be_visible()

        # mia finds the queue in her Account menu and mutes bob for an hour.
        mia = mia_context.new_page()
        mia.goto("/")
        mia.get_by_text("Account", exact=True).click()
        mia.get_by_role("link", name="Moderation").click()
        expect(mia).to_have_url(re.compile(r"/moderation$"))
        card = mia.locator("li.queued-report").first
        expect(card).to_contain_text("calls everyone names")
        expect(card).to_contain_text("reported by alice")
        mia.set_viewport_size({"width": 390, "height": 800})
        assert no_sideways_scroll(mia)
        shoot(mia, "moderation-queue-phone")
        mia.set_viewport_size({"width": 1100, "height": 900})
        _act(mia, re.compile(r"^Act on report \d+$"), "Mute bob", "name-calling in chat")
        expect(mia.locator("#moderation-done")).to_contain_text("Done: Muted bob until")
        expect(mia.locator("#queue-empty")).to_be_visible()

        # bob is refused everywhere he writes, and told until when.
        bob = bob_context.new_page()
        bob.goto("/messages/alice")
        bob.get_by_label("Your message").fill("hello alice")
        bob.get_by_role("button", name="Send", exact=True).click()
        expect(bob.locator("#compose-status")).to_have_text(MUTED)
        expect(bob.locator("li.msg.mine")).to_have_count(0)
        bob.goto(f"/games/{game_id}")
        bob.locator("#chat-body").fill("hello table")
        bob.locator("#chat-send").click()
        expect(bob.locator("#chat-error")).to_have_text(MUTED)
        expect(bob.locator("#chat-lines .chat-line")).to_have_count(0)

        # The audit log shows the mute, with its moderator and reason.
        mia.goto("/moderation/audit")
        row = mia.locator('tr[data-action="mute"]')
        expect(row).to_contain_text("mia")
        expect(row).to_contain_text("bob")
        expect(row).to_contain_text("name-calling in chat")

        # mia ends the mute from bob's moderation page; bob writes again.
        mia.goto("/moderation/users/bob")
        expect(mia.locator("#standing")).to_contain_text("muted until")
        _act(mia, "Act on bob", "End the mute", "apologised")
        expect(mia.locator("#moderation-done")).to_contain_text("Done: Unmuted bob")
        bob.goto("/messages/alice")
        bob.get_by_label("Your message").fill("sorry, alice")
        bob.get_by_role("button", name="Send", exact=True).click()
        expect(bob.locator("#compose-status")).to_have_text("Sent.")
        bob.goto(f"/games/{game_id}")
        bob.locator("#chat-body").fill("good luck")
        bob.locator("#chat-send").click()
        expect(bob.locator("#chat-lines .chat-text")).to_have_text(["good luck"])

        # The audit log fits a phone (its table scrolls in its own region).
        mia.set_viewport_size({"width": 390, "height": 800})
        mia.goto("/moderation/audit")
        assert no_sideways_scroll(mia)
        shoot(mia, "moderation-audit-phone")
    finally:
        for made in contexts:
            made.close()
