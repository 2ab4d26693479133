"""The table around a board in Chromium: each seat's time left in the server's words, the
running one counting down; resign and abort asked again on the page and posted at the
board's version; the finished board's ranking with its marks, and its replay link; an
autopilot seat taken back."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import timedelta
from typing import Any

from playwright.sync_api import Browser, BrowserContext, Page, expect
from sqlalchemy import create_engine, select, update

from dicehall.server.core.clock import now
from dicehall.server.core.db import make_engine
from dicehall.server.core.models import GameRow, User
from dicehall.server.domain.games.ending import time_left
from dicehall.server.domain.games.pace import Clock
from tests.live import LiveServer
from tests.web.boards import COUNT_FETCHES
from tests.web.conftest import shoot, signup_api

#: Seconds, from none to a month, across every boundary of the wording.
TIMES = [
    -5, 0, 0.4, 1, 9.99, 45, 59, 59.9, 60, 61, 65, 119, 540, 599, 599.5, 600, 601, 659, 3599,
    3600, 3601, 3659, 3660, 3725, 7199, 86399, 86400, 86401, 90000, 90061, 187200, 187260,
    2 * 86400 + 4 * 3600 + 59, 14 * 86400, 30 * 86400 + 3599,
]  # fmt: skip


def test_the_board_words_time_left_as_the_server_does(page: Page) -> None:
    page.goto("/")
    shown = page.evaluate(
        "async (times) => { const m = await import('/static/js/board-clock.js');"
        " return times.map((t) => m.timeLeft(t)); }",
        TIMES,
    )
    assert shown == [time_left(t) for t in TIMES]
    # the table does cross every form of the wording
    assert {re.sub(r"\d+", "N", s) for s in shown} == {
        "N d N h",
        "N h N min",
        "N min N s",
        "N min",
        "N s",
    }


def two_players(
    page: Page, browser: Browser, site: LiveServer, pace: Any = None, game: str = "boatzee"
) -> tuple[int, BrowserContext, str, str]:
    """A 2-seat game between "alice" (the page's user, seat 0, who acts first: a Ten
    Thousand roll could bust and pass the turn at once) and "bob" (another context): the
    game's id, bob's context, and both CSRF tokens."""
    alice = signup_api(page.context, "alice")
    other = browser.new_context(base_url=site.base, bypass_csp=True)
    bob = signup_api(other, "bob")
    body: dict[str, Any] = {
        "game": game,
        "seats": ["me", "bob"],
        "options": {"target": 5000, "entry_threshold": 0} if game == "tenthousand" else {},
    }
    if pace is not None:
        body["pace"] = pace
    created = page.context.request.post("/api/v1/games", data=body, headers={"X-CSRF-Token": alice})
    assert created.ok, created.text()
    game_id: int = created.json()["id"]
    accepted = other.request.post(f"/api/v1/games/{game_id}/accept", headers={"X-CSRF-Token": bob})
    assert accepted.ok, accepted.text()
    return game_id, other, alice, bob


def open_board(page: Page, game_id: int) -> None:
    page.add_init_script(COUNT_FETCHES)
    page.goto(f"/games/{game_id}")
    page.wait_for_function("document.getElementById('board').dataset.version !== undefined")


def test_the_running_clock_counts_down(page: Page, browser: Browser, site: LiveServer) -> None:
    pace = {"initial": 300, "increment": 30, "cap": 600}
    game_id, other, _, _ = two_players(page, browser, site, pace)
    try:
        open_board(page, game_id)
        clock = page.locator("#board-clock")
        expect(clock).to_be_visible()
        expect(page.get_by_test_id("pace")).to_have_text(
            "Pace: custom: 5 min 0 s, +30 s a move, at most 10 min"
        )
        running = page.locator('[data-testid^="clock-"][data-running="true"]')
        expect(running).to_have_count(1)
        still = page.locator('.clock-time[data-running="false"]')
        expect(still).to_have_text("5 min 0 s left")
        first = running.inner_text()
        assert re.fullmatch(r"4 min \d+ s left|5 min 0 s left", first), first
        # It counts down each second without reading the game again.
        expect(running).not_to_have_text(first, timeout=3000)
        later = running.inner_text()
        assert 0 < _seconds(first) - _seconds(later) <= 3
        expect(clock).to_contain_text("to move")
        expect(page.locator("#board-actions")).to_have_text("Your seatResignAbort the game")
        shoot(page, "board-clock")
        page.set_viewport_size({"width": 390, "height": 800})
        assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
    finally:
        other.close()


def test_resign_from_the_board_the_other_player_wins(
    page: Page, browser: Browser, site: LiveServer
) -> None:
    game_id, other, _, _ = two_players(page, browser, site)
    try:
        open_board(page, game_id)
        resign = page.get_by_test_id("resign")
        expect(resign).to_be_visible()
        # Asked on the page; "No" (or Escape) changes nothing and gives the keyboard back.
        resign.click()
        confirm = page.get_by_test_id("confirm")
        expect(confirm).to_contain_text("Resign this game? The other player wins.")
        expect(page.get_by_test_id("confirm-no")).to_be_focused()
        page.keyboard.press("Escape")
        expect(confirm).to_have_count(0)
        expect(resign).to_be_focused()
        page.keyboard.press("Enter")
        expect(page.get_by_test_id("confirm-no")).to_be_focused()
        page.get_by_test_id("confirm-no").press("Enter")
        expect(confirm).to_have_count(0)
        assert page.context.request.get(f"/api/v1/games/{game_id}").json()["status"] == "active"
        resign.click()
        page.get_by_test_id("confirm-yes").click()
        board = page.locator("#board")
        expect(board).to_have_attribute("data-status", "finished")
        expect(page.locator("#board-status")).to_have_text("You resigned.")
        ending = page.locator("#board-ending")
        expect(ending.get_by_test_id("ending-title")).to_have_text("Final ranking")
        expect(ending.get_by_test_id("ending-title")).to_be_focused()
        ranking = ending.get_by_test_id("ranking").locator("li")
        expect(ranking).to_have_count(2)
        expect(ranking.nth(0)).to_contain_text("bob")
        expect(ranking.nth(1)).to_contain_text("alice (you)")
        expect(ranking.nth(1)).to_contain_text("resigned")
        expect(page.locator("#board-clock")).to_contain_text("resigned")
        expect(page.locator("#board-actions")).to_be_hidden()
        game = page.context.request.get(f"/api/v1/games/{game_id}").json()
        assert game["result"]["winners"] == [1] and game["ranking"] == [1, 0]
        shoot(page, "board-resigned")
        # The other player's board says the same, and links the replay.
        seen = other.new_page()
        seen.goto(f"/games/{game_id}")
        expect(seen.locator("#board-ending")).to_contain_text("resigned")
        seen.get_by_test_id("replay-link").click()
        expect(seen).to_have_url(re.compile(rf"/games/{game_id}/replay"))
        expect(seen.get_by_test_id("frame-counter")).to_contain_text(" of ")
    finally:
        other.close()


def test_abort_from_the_board_while_nobody_moved(
    page: Page, browser: Browser, site: LiveServer
) -> None:
    game_id, other, _, _ = two_players(page, browser, site)
    try:
        open_board(page, game_id)
        abort = page.get_by_test_id("abort")
        expect(abort).to_be_visible()
        abort.focus()
        page.keyboard.press("Enter")
        expect(page.get_by_test_id("confirm")).to_contain_text(
            "Abort this game? It ends now with no result and no rating."
        )
        # From the keyboard: back from "No" to "Yes", and press it.
        page.keyboard.press("Shift+Tab")
        expect(page.get_by_test_id("confirm-yes")).to_be_focused()
        page.keyboard.press("Enter")
        expect(page.locator("#board")).to_have_attribute("data-status", "aborted")
        ending = page.locator("#board-ending")
        expect(ending).to_contain_text("This game was aborted")
        expect(ending.get_by_test_id("replay-link")).to_have_attribute(
            "href", f"/games/{game_id}/replay"
        )
        expect(page.locator("#board-actions")).to_be_hidden()
        game = page.context.request.get(f"/api/v1/games/{game_id}").json()
        assert game["status"] == "aborted" and game["result"] is None
        shoot(page, "board-aborted")
        page.goto("/status")
        row = page.locator("tr", has=page.get_by_role("link", name=f"Boatzee #{game_id}"))
        expect(row).to_contain_text("aborted: no result")
        called_off = page.locator("section", has=page.get_by_role("heading", name="Called off"))
        expect(called_off).to_contain_text(f"#{game_id}")
    finally:
        other.close()


def _move_until_both_moved(
    page: Page, other: BrowserContext, game_id: int, tokens: list[str]
) -> Any:
    """Make moves through the API until each seat has moved."""
    contexts = [page.context, other]
    for _ in range(200):
        game = page.context.request.get(f"/api/v1/games/{game_id}").json()
        if all(s["moved"] for s in game["seats"]):
            return game
        seat = game["to_act"]
        mine = contexts[seat].request.get(f"/api/v1/games/{game_id}").json()
        enders = [a for a in mine["legal"] if a["type"] in ("bank", "stop")]
        moved = contexts[seat].request.post(
            f"/api/v1/games/{game_id}/actions",
            data={"action": (enders or mine["legal"])[0], "expected_version": mine["version"]},
            headers={"X-CSRF-Token": tokens[seat]},
        )
        assert moved.ok, moved.text()
    raise AssertionError("the seats never both moved")


def test_abort_is_offered_only_while_someone_has_not_moved(
    page: Page, browser: Browser, site: LiveServer
) -> None:
    game_id, other, alice, bob = two_players(page, browser, site)
    try:
        _move_until_both_moved(page, other, game_id, [alice, bob])
        open_board(page, game_id)
        expect(page.get_by_test_id("resign")).to_be_visible()
        expect(page.get_by_test_id("abort")).to_have_count(0)
    finally:
        other.close()


def test_an_autopilot_seat_is_taken_back_from_the_board(
    page: Page, browser: Browser, site: LiveServer
) -> None:
    """Alice (seat 1, no vacation left) runs out of time in a 3-seat game: her board reads
    the game when her clock runs out, shows her seat under autopilot, and she takes it back.
    Bob (vacation left) moves whenever it is his turn."""
    bob = signup_api(page.context, "bob")
    other = browser.new_context(base_url=site.base, bypass_csp=True)
    alice = signup_api(other, "alice")
    engine = create_engine(site.db_url)
    with engine.begin() as conn:
        conn.execute(
            update(User)
            .where(User.user_id == "alice")
            .values(vacation_seconds=0, vacation_accrued_at=now())
        )
    engine.dispose()
    try:
        created = page.context.request.post(
            "/api/v1/games",
            data={
                "game": "bullseye",
                "seats": ["me", "alice", "bot:heuristic"],
                "pace": {"initial": 4, "increment": 300, "cap": 300},
            },
            headers={"X-CSRF-Token": bob},
        )
        assert created.ok, created.text()
        game_id = created.json()["id"]
        accepted = other.request.post(
            f"/api/v1/games/{game_id}/accept", headers={"X-CSRF-Token": alice}
        )
        assert accepted.ok, accepted.text()
        mine = other.new_page()
        mine.goto(f"/games/{game_id}")
        take_back = mine.get_by_test_id("take-back")
        for _ in range(200):
            game = page.context.request.get(f"/api/v1/games/{game_id}").json()
            if game["seats"][1]["status"] == "autopilot":
                break
            if game["to_act"] == 0 and game["legal"]:
                stops = [a for a in game["legal"] if a["type"] == "stop"]
                page.context.request.post(
                    f"/api/v1/games/{game_id}/actions",
                    data={
                        "action": (stops or game["legal"])[0],
                        "expected_version": game["version"],
                    },
                    headers={"X-CSRF-Token": bob},
                )
            else:
                mine.wait_for_timeout(200)
        # Her clock ran out on her board (it read the game again: the timeout applied).
        expect(take_back).to_be_visible()
        expect(mine.get_by_test_id("mark-1")).to_have_text("autopilot")
        expect(mine.get_by_test_id("autopilot-note")).to_be_visible()
        # People's time is shown, not the bot's (it never runs out).
        expect(mine.get_by_test_id("clock-0")).to_be_visible()
        expect(mine.get_by_test_id("clock-2")).to_have_count(0)
        shoot(mine, "board-autopilot")
        take_back.click()
        expect(mine.locator("#board-status")).to_have_text("Your seat is yours again.")
        expect(mine.get_by_test_id("mark-1")).to_have_count(0)
        expect(take_back).to_have_count(0)
        game = other.request.get(f"/api/v1/games/{game_id}").json()
        assert game["seats"][1]["status"] == "playing"
    finally:
        other.close()


def run_out(site: LiveServer, game_id: int) -> None:
    """Move the start of the running turn back past its bank, as days passing would."""
    # IMMEDIATE: it reads, then writes, while the site may write in between.
    engine = make_engine(site.db_url).execution_options(sqlite_begin="IMMEDIATE")
    try:
        with engine.begin() as conn:
            stored = conn.execute(select(GameRow.clock).where(GameRow.id == game_id)).scalar_one()
            assert stored is not None
            clock = Clock.loads(stored)
            assert clock.since is not None and clock.running is not None
            since = clock.since - timedelta(seconds=clock.banks[clock.running] + 60)
            late = replace(clock, since=since)
            conn.execute(
                update(GameRow)
                .where(GameRow.id == game_id)
                .values(clock=late.dumps(), deadline=late.deadline(), remind_at=None)
            )
    finally:
        engine.dispose()


def test_a_spectator_sees_the_clocks_but_no_buttons(
    page: Page, browser: Browser, site: LiveServer
) -> None:
    """...and, once vacation saved the seat to move, why it still plays."""
    game_id, other, _, _ = two_players(page, browser, site, pace="days-3")
    try:
        watcher = browser.new_context(base_url=site.base, bypass_csp=True)
        try:
            seen = watcher.new_page()
            seen.goto(f"/games/{game_id}")
            expect(seen.get_by_test_id("pace")).to_have_text("Pace: 3 days per move")
            expect(seen.locator(".clock-time")).to_have_count(2)
            expect(seen.locator('.clock-time[data-running="false"]')).to_have_text("3 d 0 h left")
            expect(seen.locator("#board-actions")).to_be_hidden()
            expect(seen.get_by_test_id("saved-0")).to_have_count(0)
            run_out(site, game_id)
            seen.reload()
            # Alice (seat 0, to move) had a week of vacation: an hour of it saved her.
            expect(seen.get_by_test_id("saved-0")).to_have_text(
                re.compile(
                    r"alice's clock ran out; vacation saved the seat until "
                    r"\w{3} \d+ \w{3} \d{4}, \d\d:\d\d UTC\."
                )
            )
            expect(seen.get_by_test_id("clock-0")).to_have_text(re.compile(r"^(59|58) min left$"))
            shoot(seen, "board-clock-vacation")
        finally:
            watcher.close()
    finally:
        other.close()


def test_the_status_page_shows_time_left_least_first(
    page: Page, browser: Browser, site: LiveServer
) -> None:
    """Games waiting on me are listed with the least time left first (a game made earlier
    but with less time comes before a later one), each with its time left."""
    quick, other, alice, bob = two_players(page, browser, site, pace="live")
    try:
        slow = page.context.request.post(
            "/api/v1/games",
            data={
                # Boatzee: its first seat always acts first (a Ten Thousand first roll
                # may bust and pass the turn before alice moves).
                "game": "boatzee",
                "seats": ["me", "bob"],
                "pace": "days-5",
            },
            headers={"X-CSRF-Token": alice},
        ).json()["id"]
        assert other.request.post(f"/api/v1/games/{slow}/accept", headers={"X-CSRF-Token": bob}).ok
        for game_id in (quick, slow):
            assert page.context.request.get(f"/api/v1/games/{game_id}").json()["your_turn"]
        page.goto("/status")
        section = page.locator("section", has=page.get_by_role("heading", name="Waiting on you"))
        rows = section.locator("tbody tr")
        expect(rows).to_have_count(2)
        expect(rows.nth(0)).to_contain_text(f"#{quick}")
        expect(rows.nth(1)).to_contain_text(f"#{slow}")
        first = rows.nth(0).get_by_test_id("time-left").inner_text()
        assert re.fullmatch(r"· (2 min \d+ s|3 min 0 s) left", first), first
        second = rows.nth(1).get_by_test_id("time-left").inner_text()
        assert second in ("· 5 d 0 h left", "· 4 d 23 h left"), second
        # Bob's page lists them as waiting on others, with the time alice has.
        theirs = other.new_page()
        theirs.goto("/status")
        waiting = theirs.locator(
            "section", has=theirs.get_by_role("heading", name="Waiting on others")
        )
        expect(waiting.get_by_test_id("time-left")).to_have_count(2)
    finally:
        other.close()


def _seconds(text: str) -> int:
    """Seconds in a clock's "4 min 58 s left"."""
    words = text.split()
    return int(words[0]) * 60 + int(words[2])
