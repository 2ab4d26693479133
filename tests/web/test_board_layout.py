"""The hint panel beside the board on a wide screen, under it on a phone, saying its basis."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.web.boards import COUNT_FETCHES, settle
from tests.web.conftest import create_game_api, shoot, signup_api


def box(page: Page, selector: str) -> dict[str, float]:
    found = page.locator(selector).bounding_box()
    assert found is not None, selector
    return {key: float(found[key]) for key in ("x", "y", "width", "height")}


def test_hint_panel_beside_the_board_and_its_basis(page: Page) -> None:
    csrf = signup_api(page.context, "sideways")
    game_id = create_game_api(page.context, csrf, "boatzee", ["me", "bot:greedy"])
    page.add_init_script(COUNT_FETCHES)
    page.goto(f"/games/{game_id}")
    page.wait_for_function("document.getElementById('board').dataset.version !== undefined")
    page.locator("#hint-panel summary").click()
    basis = page.get_by_test_id("hint-basis")
    expect(basis).to_be_visible()
    settle(page)
    # The panel says the basis of the hint the API gives for this very position.
    answer = page.context.request.get(f"/api/v1/games/{game_id}/hint")
    assert answer.ok
    hint = answer.json()["hint"]
    assert hint["basis"] in ("exact", "estimate", "heuristic")
    expect(basis).to_have_text(hint["basis_text"])
    expect(basis).to_have_attribute("data-basis", hint["basis"])

    # 1100 px wide: the panel is to the right of the board and starts above the fold.
    board, panel = box(page, "#board"), box(page, "#hint-panel")
    assert panel["x"] >= board["x"] + board["width"], (board, panel)
    assert panel["y"] < 900 and panel["y"] < board["y"] + board["height"]
    expect(page.locator("#board-keys summary")).to_be_in_viewport()
    shoot(page, "board-boatzee-wide-hints")

    # 375 px wide: stacked, the panel under the board, and nothing scrolls sideways.
    page.set_viewport_size({"width": 375, "height": 812})
    page.reload()
    page.wait_for_function("document.getElementById('board').dataset.version !== undefined")
    expect(basis).to_have_text(hint["basis_text"])
    board, panel = box(page, "#board"), box(page, "#hint-panel")
    assert panel["y"] >= board["y"] + board["height"], (board, panel)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 375, f"the board scrolls sideways at 375 px ({width}px)"
    shoot(page, "board-boatzee-phone-hints")
