"""The replay page in Chromium: stepping with the buttons, ←/→, Home/End and the slider
moves the frame counter and redraws the event, the score sheet and the table; the last frame
shows the ranking; at phone width nothing scrolls sideways."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import BrowserContext, Page, expect

from tests.waiting import wait_until
from tests.web.conftest import create_game_api, shoot, signup_api

#: Short games against a bot: options that end them quickly.
SHORT: dict[str, tuple[dict[str, object], str]] = {
    "tenthousand": ({"target": 1500, "entry_threshold": 0}, "heuristic"),
    "boatzee": ({}, "greedy"),
    "boss": ({"horses": 1}, "random"),
    "holdem": ({"stack": 30}, "random"),
    "bullseye": ({"rounds": 1, "allow_two_seats": True}, "heuristic"),
}
ENDERS = ("bank", "stop", "score", "fold", "come_up", "keep", "check", "call")


def finished_game(context: BrowserContext, csrf: str, kind: str) -> int:
    """A short game of ``kind`` against a bot, played to the end through the API."""
    options, bot = SHORT[kind]
    game_id = create_game_api(context, csrf, kind, ["me", f"bot:{bot}"], options)

    def movable() -> Any:
        game = context.request.get(f"/api/v1/games/{game_id}").json()
        # No legal move: a bot (or the bot driver's dice) has the turn.
        return game if game["status"] == "finished" or game["legal"] else None

    for _ in range(2000):
        game = wait_until(movable, timeout=10, what=f"a move of mine in game {game_id}")
        if game["status"] == "finished":
            return game_id
        enders = [a for a in game["legal"] if a["type"] in ENDERS]
        moved = context.request.post(
            f"/api/v1/games/{game_id}/actions",
            data={"action": (enders or game["legal"])[0], "expected_version": game["version"]},
            headers={"X-CSRF-Token": csrf},
        )
        assert moved.ok, moved.text()
    raise AssertionError(f"{kind} did not end")


def open_replay(page: Page, game_id: int) -> int:
    """Open the replay; the number of frames."""
    page.goto(f"/games/{game_id}/replay")
    page.wait_for_function("document.getElementById('replay').dataset.ready === 'true'")
    frames: int = page.context.request.get(f"/api/v1/games/{game_id}/replay").json()["frames"]
    return len(frames) if isinstance(frames, list) else 0


def test_step_through_a_finished_game_with_keys_buttons_and_slider(page: Page) -> None:
    csrf = signup_api(page.context, "replayer")
    game_id = finished_game(page.context, csrf, "tenthousand")
    n = open_replay(page, game_id)
    assert n > 3
    counter = page.get_by_test_id("frame-counter")
    expect(counter).to_have_text(f"1 of {n}")
    expect(page.locator("#replay-event")).to_contain_text("Event 1: The dice")
    expect(page.get_by_test_id("rolled").locator(".die")).to_have_count(6)
    expect(page.get_by_test_id("standing")).to_be_visible()
    expect(page.get_by_test_id("replay-board")).not_to_be_empty()
    # ← at the first event stays; → and ← step; Home and End go to either end.
    page.keyboard.press("ArrowLeft")
    expect(counter).to_have_text(f"1 of {n}")
    page.keyboard.press("ArrowRight")
    expect(counter).to_have_text(f"2 of {n}")
    expect(page.locator("#replay-event")).to_contain_text("Event 2:")
    page.keyboard.press("ArrowRight")
    expect(counter).to_have_text(f"3 of {n}")
    page.keyboard.press("ArrowLeft")
    expect(counter).to_have_text(f"2 of {n}")
    page.keyboard.press("End")
    expect(counter).to_have_text(f"{n} of {n}")
    expect(page.get_by_test_id("ranking").locator("li")).to_have_count(2)
    page.keyboard.press("ArrowRight")
    expect(counter).to_have_text(f"{n} of {n}")
    page.keyboard.press("Home")
    expect(counter).to_have_text(f"1 of {n}")
    expect(page.locator("#replay-end")).to_be_hidden()
    # The buttons (the board inside may use the same test ids, e.g. its "last" turn).
    controls = page.get_by_role("group", name="Step through the game")
    controls.get_by_test_id("forward").click()
    expect(counter).to_have_text(f"2 of {n}")
    controls.get_by_test_id("back").click()
    expect(counter).to_have_text(f"1 of {n}")
    controls.get_by_test_id("last").click()
    expect(counter).to_have_text(f"{n} of {n}")
    controls.get_by_test_id("first").click()
    expect(counter).to_have_text(f"1 of {n}")
    # The slider: set, and moved with its own arrow keys.
    slider = page.locator("#replay-slider")
    slider.fill(str(n // 2))
    expect(counter).to_have_text(f"{n // 2 + 1} of {n}")
    slider.focus()
    page.keyboard.press("ArrowRight")
    expect(counter).to_have_text(f"{n // 2 + 2} of {n}")
    expect(page).to_have_url(re.compile(rf"#event-{n // 2 + 2}$"))
    # The table is read-only: no control of the board can be used.
    assert page.evaluate(
        "[...document.querySelectorAll('#replay-board button, #replay-board input')]"
        ".every((c) => c.disabled)"
    )
    shoot(page, "replay-tenthousand")
    # A link to a frame opens at that frame.
    page.goto(f"/games/{game_id}/replay#event-3")
    page.wait_for_function("document.getElementById('replay').dataset.ready === 'true'")
    expect(counter).to_have_text(f"3 of {n}")


def test_every_game_replays_at_phone_width_without_sideways_scrolling(page: Page) -> None:
    csrf = signup_api(page.context, "phoneuser")
    page.set_viewport_size({"width": 390, "height": 844})
    for kind in SHORT:
        game_id = finished_game(page.context, csrf, kind)
        n = open_replay(page, game_id)
        counter = page.get_by_test_id("frame-counter")
        for frame in sorted({0, n // 3, n // 2, n - 1}):
            page.locator("#replay-slider").fill(str(frame))
            expect(counter).to_have_text(f"{frame + 1} of {n}")
            wide = page.evaluate("document.documentElement.scrollWidth")
            assert wide <= 390, (kind, frame, wide)
        expect(page.get_by_test_id("ranking")).to_be_visible()
        shoot(page, f"replay-{kind}-phone")


def test_a_game_in_play_has_no_replay_page(page: Page) -> None:
    csrf = signup_api(page.context, "eager")
    game_id = create_game_api(page.context, csrf, "boss", ["me", "bot:random"], {"horses": 1})
    answer = page.goto(f"/games/{game_id}/replay")
    assert answer is not None and answer.status == 409
    expect(page.get_by_role("heading", name="No replay yet")).to_be_visible()
    assert page.goto("/games/99999/replay").status == 404  # type: ignore[union-attr]
