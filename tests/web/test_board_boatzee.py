"""The Boatzee board in Chromium: a whole game by clicking; Triple Boatzee, hints, phone width."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page, expect

from dicehall.games.boatzee import box_score
from tests.waiting import wait_until
from tests.web.conftest import create_game_api, shoot, signup_api


def settings(page: Page) -> dict[str, Any]:
    """My settings, as the API gives them."""
    found: dict[str, Any] = page.context.request.get("/api/v1/users/me/settings").json()
    return found


def version(page: Page) -> int:
    return int(page.locator("#board").get_attribute("data-version") or "0")


def open_board(page: Page, game_id: int) -> None:
    page.goto(f"/games/{game_id}")
    page.wait_for_function("document.getElementById('board').dataset.version !== undefined")


def wait_past(page: Page, seen: int) -> None:
    page.wait_for_function(f"Number(document.getElementById('board').dataset.version) > {seen}")


def faces(page: Page) -> list[str]:
    found = page.locator(".bz-dice .die").evaluate_all("els => els.map(e => e.dataset.face)")
    return [str(face) for face in found]


def after_rerolls_left(page: Page) -> bool:
    return "No re-rolls left" not in page.get_by_test_id("rerolls-left").inner_text()


def test_whole_boatzee_game_by_clicking(page: Page) -> None:
    csrf = signup_api(page.context, "boater")
    game_id = create_game_api(page.context, csrf, "boatzee", ["me", "bot:greedy"])
    open_board(page, game_id)
    board = page.locator("#board")
    reroll = page.get_by_role("button", name="Re-roll selected dice")
    for turn in range(13):
        expect(board).to_have_attribute("data-your-turn", "true")
        expect(reroll).to_be_disabled()
        if turn == 0:
            # Select two dice and a box, then start over: the dice must not change.
            before = faces(page)
            page.locator(".bz-dice .die").nth(0).click()
            page.locator(".bz-dice .die").nth(3).click()
            expect(page.locator(".bz-dice .die.selected")).to_have_count(2)
            expect(page.locator(".bz-dice .die").nth(0)).to_have_attribute("aria-pressed", "true")
            page.locator(".bz-box").first.click()
            expect(page.get_by_test_id("choice")).to_contain_text("would score")
            shoot(page, "board-boatzee-choice")
            page.get_by_role("button", name="Start this move over").click()
            expect(page.locator(".bz-dice .die.selected")).to_have_count(0)
            expect(page.get_by_test_id("choice")).to_contain_text("Click an open box")
            expect(page.get_by_role("button", name="Confirm")).to_be_disabled()
            assert faces(page) == before
            # Unselect by clicking again, with the keyboard this time.
            page.locator(".bz-dice .die").nth(1).focus()
            page.keyboard.press("Enter")
            expect(page.locator(".bz-dice .die.selected")).to_have_count(1)
            page.keyboard.press("Space")
            expect(page.locator(".bz-dice .die.selected")).to_have_count(0)
        # Re-roll the two lowest dice twice (when re-rolls are left), then score a box.
        for _ in range(2 if turn % 3 == 0 else 1):
            values = [int(f) for f in faces(page)]
            low = sorted(range(5), key=lambda i: values[i])[:2]
            kept = {i: values[i] for i in range(5) if i not in low}
            for i in low:
                page.locator(".bz-dice .die").nth(i).click()
            seen = version(page)
            reroll.click()
            wait_past(page, seen)
            after = [int(f) for f in faces(page)]
            assert all(after[i] == v for i, v in kept.items())
            # The board is drawn anew: the keyboard is back on the dice, or the boxes.
            target = ".bz-dice .die" if after_rerolls_left(page) else ".bz-box"
            expect(page.locator(target).first).to_be_focused()
        if turn % 3 == 0:
            expect(page.get_by_test_id("rerolls-left")).to_contain_text("No re-rolls left")
            expect(reroll).to_be_disabled()
        # Score the open box worth most now; the board's preview must agree with the rules.
        values = [int(f) for f in faces(page)]
        boxes = page.locator(".bz-box")
        open_boxes = boxes.evaluate_all("els => els.map(e => e.dataset.box)")
        best = max(open_boxes, key=lambda box: box_score(box, values))
        best_points = box_score(best, values)
        page.locator(f'.bz-box[data-box="{best}"]').click()
        expect(page.locator(f'.bz-box[data-box="{best}"]')).to_have_text(str(best_points))
        expect(page.get_by_test_id("choice")).to_contain_text(f"would score {best_points}")
        seen = version(page)
        if turn == 1:  # this turn's box is confirmed from the keyboard
            page.get_by_role("button", name="Confirm").focus()
            page.keyboard.press("Enter")
        else:
            page.get_by_role("button", name="Confirm").click()
        wait_past(page, seen)
        if turn == 0:
            expect(page.get_by_test_id("last")).to_contain_text("greedy bot scored")
        if turn == 6:
            shoot(page, "board-boatzee-midgame")
    expect(board).to_have_attribute("data-status", "finished")
    expect(page.get_by_test_id("final")).to_contain_text("Final: ")
    assert page.locator(".bz-card").count() == 2
    assert page.locator(".bz-box").count() == 0
    total = int(page.get_by_test_id("total-0").inner_text())
    assert total > 0
    shoot(page, "board-boatzee-finished")


def test_triple_boatzee_hints_and_phone_width(page: Page) -> None:
    csrf = signup_api(page.context, "tripler")
    game_id = create_game_api(page.context, csrf, "boatzee", ["me", "bot:greedy"], {"columns": 3})
    open_board(page, game_id)
    expect(page.locator(".bz-variant")).to_contain_text("Triple Boatzee")
    my_card = page.locator(".bz-card").first
    expect(my_card.locator("thead th")).to_have_count(4)
    # A box in column 3 previews three times its points.
    dice = [int(f) for f in faces(page)]
    my_card.locator('.bz-box[data-box="chance"][data-column="3"]').click()
    expect(page.get_by_test_id("choice")).to_contain_text(f"would score {3 * sum(dice)}")
    seen = version(page)
    page.get_by_role("button", name="Confirm Chance (column 3)").click()
    wait_past(page, seen)
    expect(my_card.locator("tbody tr").filter(has_text="Chance").locator("td").nth(2)).to_have_text(
        str(3 * sum(dice))
    )
    shoot(page, "board-boatzee-triple")
    # The hint panel: closed by default; opened, it shows the hints at once (no second
    # control to tick), and the choice is mine (the hints_open setting): kept across reloads
    # and on my other boards.
    panel = page.locator("#hint-panel")
    expect(panel).not_to_have_attribute("open", "")
    panel.locator("summary").click()
    expect(page.locator("#hint-body")).to_contain_text("Best:")
    expect(page.locator("#hint-body li").first).to_be_visible()
    shoot(page, "board-boatzee-hints")
    wait_until(lambda: settings(page)["hints_open"], what="the panel's choice saved")
    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    page.wait_for_function("document.getElementById('board').dataset.version !== undefined")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the board scrolls sideways at phone width ({width}px)"
    expect(page.locator("#hint-body")).to_contain_text("Best:")
    shoot(page, "board-boatzee-triple-phone")
    other = create_game_api(page.context, csrf, "boatzee", ["me", "bot:greedy"])
    open_board(page, other)
    expect(panel).to_have_attribute("open", "")
    expect(page.locator("#hint-body")).to_contain_text("Best:")
    panel.locator("summary").click()  # closed: closed on every board of mine from now on
    wait_until(lambda: not settings(page)["hints_open"], what="the panel's choice saved")
    open_board(page, game_id)
    expect(panel).not_to_have_attribute("open", "")
    expect(page.locator("#hint-body")).to_be_empty()
