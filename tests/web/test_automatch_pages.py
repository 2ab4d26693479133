"""The auto-match page: in Chromium, two players each click Auto-match for Boss Dice (one
from the keyboard, the other under the site's Content-Security-Policy) and both land on
the same game, which their status pages list; the page fits a phone. Without a browser:
the page for visitors and members, filing with the folded settings, refusals shown above
the cards, a forged form, cancelling, a ticket that found its game, and Double and Triple
Boatzee offered as choices of their own, each with its own queue."""

from __future__ import annotations

import re
import time

from fastapi.testclient import TestClient
from playwright.sync_api import Browser, Page, expect
from sqlalchemy import select
from sqlalchemy.orm import Session

from dicehall.server.core.clock import now
from dicehall.server.core.models import User
from dicehall.server.domain.automatch import matcher, tickets
from dicehall.server.domain.services import Services
from dicehall.server.domain.work import write
from tests.live import LiveServer, add_user
from tests.web.conftest import shoot, signup_api
from tests.web.test_notifications_bell import no_sideways_scroll
from tests.web.test_pages_forms import _signup

GAME_ID = re.compile(r"/games/(\d+)$")


def test_two_players_click_auto_match_and_land_in_the_same_game(
    page: Page, browser: Browser, site: LiveServer
) -> None:
    signup_api(page.context, "first")
    other = browser.new_context(base_url=site.base)  # the site's policy in force here
    refused: list[str] = []
    try:
        signup_api(other, "second")
        page.goto("/status")
        page.locator("details.menu > summary", has_text="Play").click()
        page.get_by_role("link", name="Auto-Match", exact=True).click()
        expect(page).to_have_url(re.compile(r"/automatch$"))
        card = page.locator('[data-queue="boss"]')
        expect(card.get_by_test_id("queue-boss")).to_contain_text("0 waiting")
        button = page.get_by_role("button", name="Auto-match Boss Dice")
        button.focus()
        page.keyboard.press("Enter")  # from the keyboard
        expect(page).to_have_url(re.compile(r"/automatch\?filed=\d+$"))
        expect(page.get_by_test_id("filed")).to_be_visible()
        expect(page.locator("[data-ticket]")).to_contain_text("Boss Dice, 2 seats, daily, rated")
        shoot(page, "page-automatch-waiting")

        theirs = other.new_page()
        theirs.on(
            "console", lambda m: refused.append(m.text) if "Content Security" in m.text else None
        )
        theirs.goto("/automatch")
        expect(theirs.get_by_test_id("queue-boss")).to_contain_text("1 waiting", timeout=10_000)
        theirs.get_by_role("button", name="Auto-match Boss Dice").click()

        expect(theirs).to_have_url(GAME_ID, timeout=20_000)
        expect(page).to_have_url(GAME_ID, timeout=20_000)
        mine = GAME_ID.search(page.url)
        found = GAME_ID.search(theirs.url)
        assert mine is not None and found is not None and mine.group(1) == found.group(1)
        game = page.context.request.get(f"/api/v1/games/{mine.group(1)}").json()
        assert game["status"] == "active" and game["rating_kind"] == "boss"
        assert {seat["user"] for seat in game["seats"]} == {"first", "second"}
        assert refused == []

        # The game is on the status page like any other, and the ticket says where it went.
        page.goto("/status")
        expect(page.get_by_role("link", name=re.compile(f"{mine.group(1)}")).first).to_be_visible()
        page.goto("/automatch")
        expect(page.locator('[data-status="matched"]')).to_contain_text(
            f"matched: game {mine.group(1)}"
        )
    finally:
        other.close()


def test_the_page_fits_a_phone(page: Page) -> None:
    signup_api(page.context, "phoebe")
    page.set_viewport_size({"width": 360, "height": 800})
    page.goto("/automatch")
    assert no_sideways_scroll(page)
    page.locator('[data-queue="bullseye"] summary').click()
    expect(page.locator('[data-queue="bullseye"]').get_by_label("Largest table")).to_be_visible()
    assert no_sideways_scroll(page)
    shoot(page, "page-automatch-phone")


def _user(services: Services, name: str) -> User:
    with Session(services.engine) as db:
        found = db.scalars(select(User).where(User.key == name)).one()
        db.expunge(found)
    return found


def test_the_auto_match_forms_without_a_browser(web: TestClient, services: Services) -> None:
    first = web.get("/automatch")
    assert first.status_code == 200 and "Log in</a> to be matched" in first.text
    assert "Log in to auto-match" in first.text
    csrf = _signup(web, "ann")
    shown = web.get("/automatch").text
    assert 'Auto-match<span class="visually-hidden"> Bull&#39;s Eye</span>' in shown
    assert "No tickets yet" in shown

    def form(**fields: str) -> dict[str, str]:
        base = {"csrf_token": csrf, "game": "bullseye", "seats_min": "3", "seats_max": "3"}
        return {**base, "pace": "daily", "bots_after": "", "rated": "on", **fields}

    wrong = web.post("/automatch", data=form(seats_min="5", seats_max="4"))
    assert wrong.status_code == 422 and "smallest table size is above" in wrong.text
    two = web.post("/automatch", data=form(seats_min="2"))
    assert two.status_code == 422 and "takes 3 to 8 seats" in two.text
    forged = web.post("/automatch", data=form(csrf_token="forged"))
    assert forged.status_code == 422 and "expired" in forged.text
    with services.read_conn() as conn:
        assert tickets.listing(conn, _user(services, "ann").id, now())["tickets"] == []

    filed = web.post("/automatch", data=form(seats_max="5", pace="brisk", bots_after="15"))
    assert filed.status_code == 303
    location = filed.headers["location"]
    assert re.fullmatch(r"/automatch\?filed=\d+", location)
    shown = web.get(location).text
    assert "Ticket filed" in shown
    assert "Bull&#39;s Eye</strong>, 3 to 5 seats, brisk, rated, bots after 15 min" in shown
    again = web.post("/automatch", data=form())
    assert again.status_code == 409 and "waiting for a Bull&#39;s Eye table already" in again.text
    ticket_id = location.rsplit("=", 1)[1]
    cancelled = web.post(f"/automatch/{ticket_id}/cancel", data={"csrf_token": csrf})
    assert (
        cancelled.status_code == 303 and cancelled.headers["location"] == "/automatch?cancelled=1"
    )
    assert "Ticket cancelled." in web.get("/automatch?cancelled=1").text
    assert web.post("/automatch/nope/cancel", data={"csrf_token": csrf}).status_code == 404

    # A ticket that found its game: a link to it, and no cancelling.
    add_user(services, "bob")
    bob = _user(services, "bob")
    wish = tickets.check("holdem", {}, [2, 2], "daily", False, None)
    write(services, lambda conn: tickets.file(conn, services.pool, bob, wish, now()))
    mine = web.post("/automatch", data=form(game="holdem", seats_min="2", seats_max="2", rated=""))
    assert mine.status_code == 303
    ticket_id = mine.headers["location"].rsplit("=", 1)[1]
    deadline = time.monotonic() + 10
    while 'data-status="matched"' not in (shown := web.get("/automatch").text):
        write(services, lambda conn: matcher.match(conn, services.pool, now()))
        assert time.monotonic() < deadline
    assert re.search(r"matched: <a href=\"/games/\d+\">game \d+</a>", shown)
    late = web.post(f"/automatch/{ticket_id}/cancel", data={"csrf_token": csrf})
    assert late.status_code == 409 and "found its table already" in late.text


def test_double_and_triple_boatzee_are_choices_of_their_own(
    web: TestClient, services: Services
) -> None:
    csrf = _signup(web, "ada")
    shown = web.get("/automatch").text
    for key, title in (
        ("boatzee", "Boatzee"),
        ("boatzee-double", "Double Boatzee"),
        ("boatzee-triple", "Triple Boatzee"),
    ):
        assert f'<li class="card" data-queue="{key}">\n      <h3>{title}</h3>' in shown
        assert f'<input type="hidden" name="variant" value="{key}">' in shown

    def form(variant: str) -> dict[str, str]:
        return {"csrf_token": csrf, "game": "boatzee", "variant": variant, "seats_min": "2",
                "seats_max": "2", "pace": "daily", "bots_after": "", "rated": "on"}  # fmt: skip

    for variant in ("boatzee-double", "boatzee-triple"):  # one ticket each: apart
        assert web.post("/automatch", data=form(variant)).status_code == 303
    mine = web.get("/api/v1/automatch").json()
    assert sorted((t["title"], t["options"]["columns"]) for t in mine["tickets"]) == [
        ("Double Boatzee", 2), ("Triple Boatzee", 3),
    ]  # fmt: skip
    again = web.post("/automatch", data=form("boatzee-double"))
    assert again.status_code == 409 and "waiting for a Double Boatzee table" in again.text
    odd = web.post("/automatch", data=form("boss"))  # a variant of another game
    assert odd.status_code == 422 and "Auto-match offers no &#39;boss&#39; here." in odd.text
    boatzee = next(q for q in mine["queues"] if q["game"] == "boatzee")
    assert boatzee["waiting"] == 2
    assert [(v["key"], v["waiting"]) for v in boatzee["variants"]] == [
        ("boatzee", 0), ("boatzee-double", 1), ("boatzee-triple", 1),
    ]  # fmt: skip

    # bob wants Triple Boatzee: he meets ada's Triple ticket, never her Double one.
    add_user(services, "bob")
    bob = _user(services, "bob")
    wish = tickets.check("boatzee", {"columns": 3}, [2, 2], "daily", True, None)
    write(services, lambda conn: tickets.file(conn, services.pool, bob, wish, now()))
    write(services, lambda conn: matcher.match(conn, services.pool, now()))
    states = {t["title"]: t for t in web.get("/api/v1/automatch").json()["tickets"]}
    assert states["Double Boatzee"]["status"] == "waiting"
    assert states["Triple Boatzee"]["status"] == "matched"
    game = web.get(f"/api/v1/games/{states['Triple Boatzee']['game_id']}").json()
    assert game["title"] == "Triple Boatzee" and game["options"]["columns"] == 3
