"""The Ten Thousand board in Chromium: hints, then a whole short game against a bot by clicking."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page, expect

from tests.web.conftest import create_game_api, shoot, signup_api


def open_board(page: Page, game_id: int) -> None:
    page.goto(f"/games/{game_id}")
    page.wait_for_function("document.getElementById('board').dataset.version !== undefined")


def state(page: Page, game_id: int) -> dict[str, Any]:
    response = page.context.request.get(f"/api/v1/games/{game_id}")
    assert response.ok
    data: dict[str, Any] = response.json()
    return data


def click_and_wait(page: Page, name: str) -> None:
    seen = int(page.locator("#board").get_attribute("data-version") or "0")
    page.get_by_role("button", name=name).click()
    page.wait_for_function(f"Number(document.getElementById('board').dataset.version) > {seen}")


def positions_of(roll: list[int], wanted: list[int]) -> list[int]:
    left = list(wanted)
    out = []
    for i, face in enumerate(roll):
        if face in left:
            left.remove(face)
            out.append(i)
    return out


def test_whole_ten_thousand_game_by_clicking(page: Page) -> None:
    csrf = signup_api(page.context, "tenner")
    game_id = create_game_api(
        page.context,
        csrf,
        "tenthousand",
        ["me", "bot:heuristic"],
        {"target": 1500, "entry_threshold": 300},
    )
    open_board(page, game_id)
    board = page.locator("#board")
    expect(page.get_by_test_id("entry-rule")).to_contain_text("at least 300 points")
    expect(page.get_by_test_id("final-rule")).to_contain_text("First to bank 1500")
    # Hints: closed by default; opened, they name the best choice at once; closed again for
    # the rest of the game.
    hints = page.locator("#hint-panel summary")
    hints.click()
    expect(page.locator("#hint-body")).to_contain_text("Best: Set aside")
    shoot(page, "board-tenthousand-hints")
    hints.click()
    expect(page.locator("#hint-body")).to_be_empty()
    checked_bad_selection = False
    shots = set()
    for _ in range(200):
        if board.get_attribute("data-status") != "active":
            break
        expect(board).to_have_attribute("data-your-turn", "true")
        game = state(page, game_id)
        s = game["view"]["state"]
        if s["phase"] == "set_aside":
            roll = s["dice"]
            legal = [a for a in game["legal"] if a["type"] == "set_aside"]
            dice_buttons = page.locator(".tt-dice button.die")
            expect(dice_buttons).to_have_count(len(roll))
            dead = [i for i, f in enumerate(roll) if f not in (1, 5)]
            if not checked_bad_selection and dead:
                # A die that scores nothing cannot be set aside.
                dice_buttons.nth(dead[0]).click()
                expect(page.get_by_test_id("selection")).to_contain_text("not a set-aside")
                expect(page.get_by_role("button", name="Set aside selected dice")).to_be_disabled()
                shoot(page, "board-tenthousand-bad-selection")
                page.get_by_role("button", name="Clear selection").click()
                checked_bad_selection = True
            best = max(legal, key=lambda a: (a["points"], -len(a["dice"])))
            for i in positions_of(roll, best["dice"]):
                dice_buttons.nth(i).click()
            expect(page.get_by_test_id("selection")).to_contain_text(f"{best['points']} points")
            if "select" not in shots:
                shoot(page, "board-tenthousand-select")
                page.set_viewport_size({"width": 390, "height": 844})
                width = page.evaluate("document.documentElement.scrollWidth")
                assert width <= 390, f"the board scrolls sideways at phone width ({width}px)"
                shoot(page, "board-tenthousand-phone")
                page.set_viewport_size({"width": 1100, "height": 900})
                shots.add("select")
            click_and_wait(page, f"Set aside for {best['points']}")
        else:
            assert s["phase"] == "choose"
            can_bank = any(a["type"] == "bank" for a in game["legal"])
            if not can_bank:
                expect(page.get_by_role("button", name=f"Bank {s['turn_total']}")).to_be_disabled()
                if s["banked"][s["current"]] == 0:
                    expect(page.get_by_test_id("entry-note")).to_be_visible()
                    if "entry" not in shots:
                        shoot(page, "board-tenthousand-entry")
                        shots.add("entry")
            if can_bank and (s["turn_total"] >= 350 or s["in_hand"] <= 2):
                click_and_wait(page, f"Bank {s['turn_total']}")
            else:
                button = page.locator('[data-key="roll-on"]')
                seen = int(board.get_attribute("data-version") or "0")
                button.click()
                page.wait_for_function(
                    f"Number(document.getElementById('board').dataset.version) > {seen}"
                )
        final = state(page, game_id)["view"]["state"]
        if final["final_trigger"] is not None and "final" not in shots and final["phase"] != "over":
            expect(page.get_by_test_id("final-rule")).to_contain_text("Final round")
            shoot(page, "board-tenthousand-final-round")
            shots.add("final")
    expect(board).to_have_attribute("data-status", "finished")
    expect(page.get_by_test_id("final")).to_contain_text("Final: ")
    expect(page.get_by_test_id("final-rule")).to_contain_text("reached 1500 first")
    expect(page.get_by_test_id("pot")).to_contain_text("¢")
    shoot(page, "board-tenthousand-finished")
