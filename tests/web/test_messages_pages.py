"""The messages pages: the forms without scripts (send, errors next to their fields, CSRF,
hide), bodies rendered escaped with safe links; and in Chromium two people writing to each
other live, HTML and script in a body staying inert, the header's unread count, and the
pages at desktop and phone width."""

from __future__ import annotations

import re
import time

from fastapi.testclient import TestClient
from playwright.sync_api import Browser, BrowserContext, Page, expect

from dicehall.server.app import create_app
from dicehall.server.domain.services import Services
from tests.live import LiveServer, add_user
from tests.waiting import wait_until
from tests.web.conftest import shoot, signup_api
from tests.web.test_notifications_bell import no_sideways_scroll
from tests.web.test_pages_forms import _error_of, _signup

IMG = '<img src=x onerror="window.__pwned=1">'
SCRIPT = "<script>window.__pwned=2</script>"


# -- without a browser -------------------------------------------------------------------------


def test_the_forms_work_without_scripts(web: TestClient, services: Services) -> None:
    ann_csrf = _signup(web, "ann")
    with TestClient(create_app(services=services), follow_redirects=False) as bob:
        bob_csrf = _signup(bob, "bob")
        prefilled = web.get("/messages/new?to=bob&game=12").text
        assert 'value="bob"' in prefilled and 'value="12"' in prefilled

        # Mistakes are shown next to their fields, with what was typed kept.
        answer = web.post(
            "/messages/new", data={"csrf_token": ann_csrf, "to": "nobody9", "body": "  "}
        )
        assert answer.status_code == 422
        assert "must not be empty" in _error_of(answer.text, "body")
        answer = web.post(
            "/messages/new",
            data={"csrf_token": ann_csrf, "to": "nobody9", "body": "hi", "game": "x1"},
        )
        assert "number of a game" in _error_of(answer.text, "game")
        answer = web.post(
            "/messages/new", data={"csrf_token": ann_csrf, "to": "nobody9", "body": "hi"}
        )
        assert "no user 'nobody9'" in _error_of(answer.text, "to")
        assert 'value="nobody9"' in answer.text and ">hi</textarea>" in answer.text
        answer = web.post("/messages/new", data={"csrf_token": "forged", "to": "bob", "body": "hi"})
        assert answer.status_code == 422 and "expired" in answer.text
        assert bob.get("/api/v1/messages").json()["threads"] == []

        body = f"{IMG} see https://example.org/rules?a=1&b=2."
        answer = web.post("/messages/new", data={"csrf_token": ann_csrf, "to": "BOB", "body": body})
        assert answer.status_code == 303 and answer.headers["location"] == "/messages/bob#compose"

        listing = bob.get("/messages").text
        assert 'class="thread unread"' in listing and "1 new" in listing
        assert "&lt;img src=x" in listing and "<img src=x" not in listing
        page = bob.get("/messages/ann").text  # opening it marks it read
        assert '<li class="msg theirs new"' in page
        assert "&lt;img src=x onerror=&#34;window.__pwned=1&#34;&gt;" in page
        assert (
            '<a href="https://example.org/rules?a=1&amp;b=2" rel="nofollow noopener noreferrer">'
            "https://example.org/rules?a=1&amp;b=2</a>." in page
        )
        assert "thread unread" not in bob.get("/messages").text
        assert bob.get("/api/v1/messages").json()["unread"] == 0

        # A reply from the thread page, pointing to a game; it shows a link to the game.
        answer = bob.post(
            "/messages/ann", data={"csrf_token": bob_csrf, "body": SCRIPT, "game": "#7"}
        )
        assert answer.status_code == 422  # no game 7 yet
        assert "no game 7" in _error_of(answer.text, "game")
        made = bob.post(
            "/api/v1/games",
            json={"game": "tenthousand", "seats": ["me", "bot:random"]},
            headers={"X-CSRF-Token": bob_csrf},
        )
        game_id = made.json()["id"]
        answer = bob.post(
            "/messages/ann", data={"csrf_token": bob_csrf, "body": SCRIPT, "game": str(game_id)}
        )
        assert answer.status_code == 303 and answer.headers["location"] == "/messages/ann#compose"
        thread = web.get("/messages/bob").text
        assert "&lt;script&gt;window.__pwned=2&lt;/script&gt;" in thread
        assert "<script>window.__pwned" not in thread
        assert f'<a href="/games/{game_id}">About game {game_id}</a>' in thread

        # Hiding is mine alone.
        answer = web.post("/messages/bob/hide", data={"csrf_token": ann_csrf})
        assert answer.status_code == 303 and answer.headers["location"] == "/messages?hidden=1"
        assert "The conversation is hidden" in web.get("/messages?hidden=1").text
        assert 'data-with="bob"' not in web.get("/messages").text
        assert 'data-with="ann"' in bob.get("/messages").text
        assert web.get("/messages/nobody9").status_code == 404
        assert web.get("/messages/ann").status_code == 422  # myself


def test_a_user_called_new_has_a_thread_page_of_their_own(
    web: TestClient, services: Services
) -> None:
    csrf = _signup(web, "ann")
    # "new" is reserved at sign-up now; an account made before that keeps working.
    add_user(services, "New", services.hasher.hash("correct horse battery"))
    answer = web.post("/messages/new", data={"csrf_token": csrf, "to": "new", "body": "hello"})
    assert answer.headers["location"] == "/messages/with/New#compose"
    assert 'href="/messages/with/New"' in web.get("/messages").text
    thread = web.get("/messages/with/New").text
    assert "hello" in thread and 'action="/messages/with/New"' in thread
    assert "Send a message" in web.get("/messages/new").text  # the compose page stays


# -- in Chromium -------------------------------------------------------------------------------


def _live(page: Page) -> None:
    page.wait_for_function("document.body.dataset.live === 'on'")


def _send(page: Page, body: str) -> None:
    page.get_by_label("Your message").fill(body)
    page.get_by_role("button", name="Send", exact=True).click()


def test_two_people_write_to_each_other_live_and_html_stays_inert(
    page: Page, browser: Browser, site: LiveServer
) -> None:
    signup_api(page.context, "ann")
    bob_context: BrowserContext = browser.new_context(
        base_url=site.base, viewport={"width": 1100, "height": 900}, bypass_csp=True
    )
    try:
        signup_api(bob_context, "bob")
        bob = bob_context.new_page()
        bob.goto("/messages/ann")
        expect(bob.locator("#no-messages")).to_be_visible()
        _live(bob)
        bob.evaluate("window.__same = 1")  # gone if the page reloads

        page.goto("/messages/new?to=bob")
        _send(page, f"{IMG} rules at https://example.org/rules.")
        expect(page).to_have_url(re.compile(r"/messages/bob#compose$"))
        _live(page)
        page.evaluate("window.__same = 1")

        # Bob sees it appear without a reload, as text, with a safe link.
        started = time.monotonic()
        theirs = bob.locator("li.msg.theirs")
        expect(theirs).to_have_count(1, timeout=5000)
        delivered = time.monotonic() - started
        assert delivered < 5
        expect(theirs.locator(".body")).to_contain_text(IMG)
        link = theirs.get_by_role("link", name="https://example.org/rules")
        expect(link).to_have_attribute("href", "https://example.org/rules")
        expect(link).to_have_attribute("rel", "nofollow noopener noreferrer")
        expect(bob.locator("#no-messages")).to_have_count(0)
        assert bob.evaluate("window.__same") == 1
        # Bob's page was in view: the message is read.
        wait_until(
            lambda: bob_context.request.get("/api/v1/messages").json()["unread"] == 0,
            what="bob's unread count to drop to 0",
        )

        # Bob answers through the form (sent by the script, no reload); ann sees it live.
        _send(bob, SCRIPT)
        expect(bob.locator("#compose-status")).to_have_text("Sent.")
        expect(bob.locator("li.msg.mine .body")).to_have_text(SCRIPT)
        expect(bob.get_by_label("Your message")).to_have_value("")
        expect(page.locator("li.msg.theirs .body")).to_have_text(SCRIPT, timeout=5000)
        assert bob.evaluate("window.__same") == 1 and page.evaluate("window.__same") == 1

        # Nothing ran, live or rendered by the server.
        for seen in (page, bob):
            assert seen.evaluate("typeof window.__pwned") == "undefined"
            seen.reload()
            expect(seen.locator("li.msg")).to_have_count(2)
            assert seen.evaluate("typeof window.__pwned") == "undefined"
            assert seen.locator("li.msg img, li.msg script").count() == 0
        expect(bob.locator("li.msg.theirs .body")).to_contain_text(IMG)
        expect(page.locator("li.msg.theirs .body")).to_have_text(SCRIPT)

        shoot(bob, "page-message-thread")
        bob.set_viewport_size({"width": 390, "height": 800})
        assert no_sideways_scroll(bob)
        shoot(bob, "page-message-thread-phone")
    finally:
        bob_context.close()


def test_the_list_and_the_header_count_follow_new_messages(
    page: Page, browser: Browser, site: LiveServer
) -> None:
    signup_api(page.context, "bob")
    writer = browser.new_context(base_url=site.base)
    try:
        csrf = signup_api(writer, "cyd")
        page.goto("/messages")
        _live(page)
        count = page.locator("#messages-count")
        expect(count).to_be_hidden()

        body = {"body": "A long first line that the list shortens " + "x" * 150}
        sent = writer.request.post(
            "/api/v1/messages/bob", data=body, headers={"X-CSRF-Token": csrf}
        )
        assert sent.status == 201, sent.text()
        thread = page.locator("li.thread.unread")
        expect(thread).to_have_count(1)
        expect(thread.get_by_role("link", name=re.compile(r"^cyd\s*, 1 unread"))).to_be_visible()
        expect(count).to_have_text("1")
        expect(
            page.get_by_role("link", name=re.compile(r"^Messages\s*, unread: 1$"))
        ).to_be_visible()

        shoot(page, "page-messages")
        page.set_viewport_size({"width": 390, "height": 800})
        assert no_sideways_scroll(page)
        shoot(page, "page-messages-phone")
        page.set_viewport_size({"width": 1100, "height": 900})

        # Read on another page of mine: the count and the list follow here.
        other = page.context.new_page()
        other.goto("/messages/cyd")
        expect(other.locator("li.msg.theirs")).to_have_count(1)
        expect(count).to_be_hidden()
        expect(page.locator("li.thread.unread")).to_have_count(0)
        other.close()

        page.goto("/messages/new")
        shoot(page, "page-message-new")
    finally:
        writer.close()
