"""Boards from the keyboard alone: the skip link, shortcuts, focus after each move, the Confirm
after the boxes; dice just rolled carry a mark (and roll unless motion is reduced)."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.web.boards import COUNT_FETCHES, game_json, settle, settled_game, wait_version
from tests.web.conftest import ARTIFACTS, create_game_api, signup_api

FRESH = "els => els.flatMap((e, i) => e.classList.contains('die-new') ? [i] : [])"
LABELS = "els => els.map(e => e.getAttribute('aria-label'))"


def open_board(page: Page, game_id: int) -> None:
    page.add_init_script(COUNT_FETCHES)
    page.goto(f"/games/{game_id}")
    page.wait_for_function("document.getElementById('board').dataset.version !== undefined")
    settle(page)


def press_and_wait(page: Page, key: str) -> None:
    """Press ``key`` on a settled board and wait for the game's next version."""
    settle(page)
    old = page.locator("#board").get_attribute("data-version") or ""
    page.keyboard.press(key)
    wait_version(page, old)


def focused(page: Page, script: str) -> object:
    return page.evaluate(f"(() => {{ const e = document.activeElement; return {script}; }})()")


def test_boatzee_from_the_keyboard_alone(page: Page) -> None:
    csrf = signup_api(page.context, "keyboarder")
    game_id = create_game_api(page.context, csrf, "boatzee", ["me", "bot:greedy"])
    open_board(page, game_id)
    dice = page.locator(".bz-dice .die")
    # The first Tab reaches the skip link; Enter puts the keyboard on the first die.
    page.keyboard.press("Tab")
    assert focused(page, "e.textContent") == "Skip to the board"
    page.keyboard.press("Enter")
    expect(dice.first).to_be_focused()
    # The keys are documented on the board; ? opens their help.
    expect(page.locator("#board-keys summary")).to_be_visible()
    page.keyboard.press("?")
    keys = page.locator("#keys-list")
    for key, what in (("r", "re-roll"), ("c", "confirm"), ("1 to 5", "die")):
        expect(keys.locator("dt", has_text=key).first).to_be_visible()
        expect(keys).to_contain_text(what)
    # Digits select dice, Escape starts over, r re-rolls exactly the selected dice.
    for key in ("2", "4", "5"):
        page.keyboard.press(key)
    expect(page.locator(".bz-dice .die.selected")).to_have_count(3)
    page.keyboard.press("Escape")
    expect(page.locator(".bz-dice .die.selected")).to_have_count(0)
    assert dice.evaluate_all(FRESH) == []  # nothing rolled since the page was drawn
    page.keyboard.press("2")
    page.keyboard.press("4")
    before = [int(f) for f in dice.evaluate_all("els => els.map(e => e.dataset.face)")]
    press_and_wait(page, "r")
    # Exactly the re-rolled dice carry the mark, in their class and their accessible name.
    assert dice.evaluate_all(FRESH) == [1, 3]
    labels = dice.evaluate_all(LABELS)
    assert [i for i, label in enumerate(labels) if label.endswith(", new")] == [1, 3]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)  # the roll finished, for a still picture
    page.screenshot(path=str(ARTIFACTS / "board-boatzee-new-dice.png"), animations="disabled")
    after = [int(f) for f in dice.evaluate_all("els => els.map(e => e.dataset.face)")]
    assert [after[i] for i in (0, 2, 4)] == [before[i] for i in (0, 2, 4)]
    # The keyboard stays on the dice after the move (on the die last toggled).
    assert focused(page, "e.matches('.bz-dice .die')")
    # Confirm follows every open box of my card in the page's order (Tab goes forward to it).
    confirm = page.get_by_role("button", name="Confirm")
    follows = page.locator(".bz-box").evaluate_all(
        "(boxes, confirm) => boxes.every(b =>"
        " b.compareDocumentPosition(confirm) & Node.DOCUMENT_POSITION_FOLLOWING)",
        confirm.element_handle(),
    )
    assert follows
    # Tab to a box, Enter chooses it; one more Tab past the last box reaches Confirm.
    for _ in range(20):
        page.keyboard.press("Tab")
        if focused(page, "e.classList.contains('bz-box')"):
            break
    assert focused(page, "e.dataset.box") == "ones"
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("choice")).to_contain_text("Ones would score")
    for _ in range(20):
        if focused(page, "e.dataset.key") == "confirm":
            break
        page.keyboard.press("Tab")
    assert focused(page, "e.dataset.key") == "confirm"
    # c confirms; once the bot has moved, the keyboard is on my new dice, all of them new.
    press_and_wait(page, "c")
    game = settled_game(page, game_id)
    assert game["your_turn"] and game["view"]["sheets"][0]["boxes"][0][0] is not None
    expect(page.locator("#board")).to_have_attribute("data-version", str(game["version"]))
    expect(dice.first).to_be_focused()
    assert dice.evaluate_all(FRESH) == [0, 1, 2, 3, 4]
    # The roll animates the new dice, unless the reader asks for reduced motion.
    animation = "e => getComputedStyle(e).animationName"
    assert dice.first.evaluate(animation) == "die-roll"
    page.emulate_media(reduced_motion="reduce")
    assert dice.first.evaluate(animation) == "none"
    expect(dice.first).to_have_class("die die-new")  # the mark stays without the motion


def test_ten_thousand_shortcuts_and_the_new_roll(page: Page) -> None:
    csrf = signup_api(page.context, "tenkeys")
    game_id = create_game_api(
        page.context, csrf, "tenthousand", ["me", "bot:heuristic"], {"entry_threshold": 0}
    )
    open_board(page, game_id)
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    rolled_on = False
    for _ in range(40):
        game = settled_game(page, game_id)
        state = game["view"]["state"]
        if not game["your_turn"]:
            break
        dice = page.locator(".tt-dice .die")
        if state["phase"] == "set_aside":
            if rolled_on:
                # The roll after "r": every die of it is new.
                assert dice.evaluate_all(FRESH) == list(range(len(state["dice"])))
                return
            # Select the first legal set-aside with digit keys, then s.
            wanted = list(game["legal"][0]["dice"])
            for i, face in enumerate(state["dice"]):
                if face in wanted:
                    wanted.remove(face)
                    page.keyboard.press(str(i + 1))
            expect(page.get_by_test_id("selection")).to_contain_text("points")
            press_and_wait(page, "s")
        else:
            # Bank is b, rolling on is r; the keyboard is on the board after each move.
            assert focused(page, "document.getElementById('board').contains(e)")
            rolled_on = True
            press_and_wait(page, "r")
    raise AssertionError("no roll after rolling on was seen on my turn")


def test_shortcuts_never_fire_while_typing(page: Page) -> None:
    csrf = signup_api(page.context, "betkeys")
    options: dict[str, object] = {"allow_two_seats": True, "bet_limit": 5, "bank": 20}
    game_id = create_game_api(page.context, csrf, "bullseye", ["me", "bot:heuristic"], options)
    open_board(page, game_id)
    for _ in range(30):
        game = settled_game(page, game_id)
        rnd = game["view"]["round"]
        if game["your_turn"] and rnd and rnd["lead"] != game["my_seat"]:
            break
        if game["your_turn"]:  # the lead throws: t throws again, s is done
            press_and_wait(
                page, "t" if any(a["type"] == "throw_on" for a in game["legal"]) else "s"
            )
    else:
        raise AssertionError("never my turn to throw against a Bull's Eye")
    bet = page.locator("#be-bet")
    if bet.count():
        page.keyboard.press("b")
        expect(bet).to_be_focused()
        version = page.locator("#board").get_attribute("data-version")
        page.keyboard.type("st")  # s (stop) and t (throw on) go into the field, not the game
        assert page.evaluate("window.__inflight") == 0
        assert page.locator("#board").get_attribute("data-version") == version
        bet.fill("0")
        page.keyboard.press("Tab")  # out of the field: the keys work again
    press_and_wait(page, "s")
    assert game_json(page, game_id)["version"] > game["version"]
