"""In Chromium, under the site's Content-Security-Policy: sign-up takes the browser's time
zone, and the settings page's Notifications section saves a kind toggled and a time zone
typed from the keyboard; its push panel says how pushes stand on this device, and the page
fits a phone's width."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, expect

from tests.live import LiveServer
from tests.web.conftest import shoot

PASSWORD = "correct horse 42"


def test_the_notifications_section_works_from_the_keyboard(
    browser: Browser, site: LiveServer
) -> None:
    context = browser.new_context(
        base_url=site.base, timezone_id="Asia/Tokyo", viewport={"width": 1100, "height": 900}
    )
    context.set_default_timeout(15_000)
    try:
        problems: list[str] = []
        page = context.new_page()
        page.on(
            "console",
            lambda m: (
                problems.append(m.text)
                if m.type == "error" or "Content Security Policy" in m.text
                else None
            ),
        )
        page.on("pageerror", lambda error: problems.append(str(error)))

        page.goto("/signup")
        page.get_by_label("User id").fill("tilda")
        page.get_by_label("Password", exact=True).fill(PASSWORD)
        page.get_by_label("Repeat the password").fill(PASSWORD)
        page.get_by_label("Repeat the password").press("Enter")
        expect(page).to_have_url(re.compile("/status$"))

        page.goto("/settings#notices")
        zone = page.get_by_label("Time zone")
        expect(zone).to_have_value("Asia/Tokyo")  # guessed at sign-up
        expect(page.locator("#push-state")).to_have_text(
            re.compile(r"Pushes are (on|off) for this device|cannot receive pushes")
        )
        toggle = page.get_by_label("Messages by e-mail")
        expect(toggle).to_be_checked()
        toggle.focus()
        page.keyboard.press("Space")
        expect(toggle).not_to_be_checked()
        zone.focus()
        page.keyboard.press("ControlOrMeta+a")
        page.keyboard.type("America/Chicago")
        page.keyboard.press("Enter")  # submits the section's form
        expect(page.locator("#notices-done")).to_have_text("Your notice settings are saved.")
        expect(page.get_by_label("Time zone")).to_have_value("America/Chicago")
        expect(page.get_by_label("Messages by e-mail")).not_to_be_checked()
        expect(page.get_by_label("Messages by push")).to_be_checked()
        # The device's own zone is offered back, as a button.
        offer = page.get_by_role("button", name="Use this device's time zone (Asia/Tokyo)")
        offer.focus()
        page.keyboard.press("Enter")
        expect(page.get_by_label("Time zone")).to_have_value("Asia/Tokyo")

        page.set_viewport_size({"width": 390, "height": 800})
        page.locator("#notices").scroll_into_view_if_needed()
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        shoot(page, "page-settings-notices-phone")
        assert problems == []
    finally:
        context.close()
