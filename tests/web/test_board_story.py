"""Every board tells what happened since my last move (each seat's rolls, choices and
results, with the dice) and keeps a move list of the whole game; a finished board says
whether I won, in one format, and offers a rematch and a new game."""

from __future__ import annotations

import random
from typing import Any

from playwright.sync_api import Page, expect

from tests.web.boards import COUNT_FETCHES, game_json, settle, settled_game
from tests.web.conftest import create_game_api, shoot, signup_api


def open_board(page: Page, game_id: int) -> None:
    page.add_init_script(COUNT_FETCHES)
    page.goto(f"/games/{game_id}")
    page.wait_for_function("document.getElementById('board').dataset.version !== undefined")


def story_shown(page: Page, game: dict[str, Any]) -> None:
    """Wait until the board shows the story up to ``game``'s events."""
    told = page.context.request.get(f"/api/v1/games/{game['id']}/events").json()
    page.wait_for_function(
        "n => Number(document.getElementById('board').dataset.story) >= n", arg=told["total"]
    )
    settle(page)


def since_lines(page: Page, seat: int) -> list[str]:
    texts: list[str] = page.locator(
        f'[data-testid="since"] .story-line[data-seat="{seat}"] .story-text'
    ).all_inner_texts()
    return texts


def test_ten_thousand_shows_each_of_three_bots_turns_with_their_dice(page: Page) -> None:
    csrf = signup_api(page.context, "watcher")
    game_id = create_game_api(
        page.context,
        csrf,
        "tenthousand",
        ["me", "bot:heuristic", "bot:heuristic", "bot:heuristic"],
        {"target": 5000, "entry_threshold": 0},
    )
    open_board(page, game_id)
    board = page.locator("#board")
    for _ in range(3):  # a few turns of mine, each followed by the three bots'
        game = settled_game(page, game_id)
        s = game["view"]["state"]
        if s["phase"] == "set_aside":
            best = max(
                (a for a in game["legal"] if a["type"] == "set_aside"), key=lambda a: a["points"]
            )
            left = list(best["dice"])
            for i, face in enumerate(s["dice"]):
                if face in left:
                    left.remove(face)
                    page.locator(f'.tt-dice button.die[data-index="{i}"]').click()
            page.locator('[data-key="set-aside"]').click()
            game = settled_game(page, game_id)
        page.locator('[data-key="bank"]').click()
        page.wait_for_function(
            "v => Number(document.getElementById('board').dataset.version) > v",
            arg=game["version"],
        )
        game = settled_game(page, game_id)
        story_shown(page, game)
        expect(page.get_by_test_id("since")).to_contain_text("Since your last move")
        for seat in (1, 2, 3):
            texts = since_lines(page, seat)
            assert any(t.startswith(f"heuristic bot {seat} rolls ") for t in texts), texts
            rolls = page.locator(
                f'[data-testid="since"] .story-line[data-seat="{seat}"]:has(.story-dice)'
            )
            first = rolls.first
            faces = first.locator(".story-text").inner_text()
            shown = [
                int(f)
                for f in first.locator(".die").evaluate_all("els => els.map(e => e.dataset.face)")
            ]
            assert faces.rstrip(".").split(" ")[-len(shown) :] == [str(f) for f in shown]
        # My own moves are not "since my last move" (lines about my seat may be: my next
        # roll, the final round), but they are in the move list.
        mine = since_lines(page, 0)
        assert not any(t.startswith(("You bank", "You set aside")) for t in mine), mine
        if board.get_attribute("data-status") != "active":
            break
    moves = page.get_by_test_id("moves")
    expect(moves.locator("summary")).to_contain_text("Move list")
    moves.locator("summary").click()
    expect(moves.locator(".story-line").first).to_be_visible()
    # The summary counts the entries the list shows, and stays on one line.
    entries = moves.locator(".story-line").count()
    expect(moves.locator("summary")).to_have_text(f"Move list ({entries} entries)")
    summary = moves.locator("summary").bounding_box()
    assert summary is not None and summary["height"] < 40, summary
    expect(moves).to_contain_text("You bank ")
    shoot(page, "board-tenthousand-after-bots")


def test_boatzee_shows_the_bots_dice_and_boxes(page: Page) -> None:
    csrf = signup_api(page.context, "boater")
    game_id = create_game_api(page.context, csrf, "boatzee", ["me", "bot:greedy", "bot:greedy"])
    open_board(page, game_id)
    game = settled_game(page, game_id)
    box = page.locator(".bz-box").first
    box.click()
    page.locator('[data-key="confirm"]').click()
    page.wait_for_function(
        "v => Number(document.getElementById('board').dataset.version) > v", arg=game["version"]
    )
    game = settled_game(page, game_id)
    story_shown(page, game)
    for seat in (1, 2):
        name = f"greedy bot {seat}"
        texts = since_lines(page, seat)
        assert any(t.startswith(f"{name} rolls ") for t in texts), texts
        scored = [t for t in texts if t.startswith(f"{name} scores ")]
        assert len(scored) == 1, texts
        # The box and the dice that filled it, as the card shows them.
        sheet = game["view"]["sheets"][seat]
        filled = [v for column in sheet["boxes"] for v in column if v is not None]
        assert scored[0].startswith(f"{name} scores {filled[0]} in ")
        line = page.locator(
            f'[data-testid="since"] .story-line[data-seat="{seat}"]', has_text=f"{name} scores"
        )
        expect(line.locator(".die")).to_have_count(5)
    shoot(page, "board-boatzee-after-bots")


def test_holdem_keeps_the_earlier_hands_in_the_move_list(page: Page) -> None:
    csrf = signup_api(page.context, "holder")
    game_id = create_game_api(
        page.context, csrf, "holdem", ["me", "bot:random", "bot:random"], {"stack": 500}
    )
    open_board(page, game_id)
    rng = random.Random(4)
    for _ in range(300):
        game = settled_game(page, game_id)
        if game["status"] != "active" or game["view"]["hand"] >= 4:
            break
        legal = [a["type"] for a in game["legal"]]
        choice = (
            "fold"
            if "fold" in legal and rng.random() < 0.7
            else "check"
            if "check" in legal
            else "call"
        )
        page.get_by_test_id(choice).click()
        page.wait_for_function(
            "v => Number(document.getElementById('board').dataset.version) > v",
            arg=game["version"],
        )
    game = settled_game(page, game_id)
    story_shown(page, game)
    moves = page.get_by_test_id("moves")
    moves.locator("summary").click()
    hands = game["view"]["hand"]
    assert hands >= 3
    for hand in range(2, hands + 1):
        expect(moves).to_contain_text(f"Hand {hand}: ")
    # Each ended hand says where its pot went.
    ended = moves.locator(".story-line", has_text="The pot of ")
    assert (
        ended.count() + moves.locator(".story-line", has_text="The main pot").count() >= hands - 1
    )
    # My own pocket dice are named to me; nobody else's are before a showdown.
    expect(moves).to_contain_text("Your pocket dice: ")
    shoot(page, "board-holdem-move-list")


def finish_by_api(page: Page, game_id: int, rng: random.Random) -> dict[str, Any]:
    csrf = page.locator('meta[name="csrf-token"]').get_attribute("content") or ""
    for _ in range(500):
        game = game_json(page, game_id)
        if game["status"] == "finished":
            return game
        if not game["your_turn"]:
            page.wait_for_timeout(100)
            continue
        response = page.context.request.post(
            f"/api/v1/games/{game_id}/actions",
            data={"action": rng.choice(game["legal"]), "expected_version": game["version"]},
            headers={"X-CSRF-Token": csrf},
        )
        assert response.ok, response.text()
    raise AssertionError("the game did not end")


def test_a_finished_board_says_who_won_and_offers_a_rematch_and_a_new_game(page: Page) -> None:
    csrf = signup_api(page.context, "ender")
    game_id = create_game_api(page.context, csrf, "boss", ["me", "bot:odds"], {"horses": 1})
    open_board(page, game_id)
    final = finish_by_api(page, game_id, random.Random(2))
    page.reload()
    page.wait_for_function("document.getElementById('board').dataset.status === 'finished'")
    won = final["result"]["winners"] == [0]
    banner = page.locator("#game-over")
    expect(banner).to_have_attribute("data-verdict", "won" if won else "lost")
    expect(page.get_by_test_id("verdict")).to_have_text(
        "You won!" if won else "You lost: odds bot won."
    )
    scores = final["result"]["scores"]
    horses = ["horse" if n == 1 else "horses" for n in scores]
    expect(page.get_by_test_id("final")).to_contain_text(
        f"Final: You {scores[0]} {horses[0]}, odds bot {scores[1]} {horses[1]}."
    )
    expect(page.get_by_test_id("final")).to_contain_text("You won." if won else "odds bot won.")
    expect(page.get_by_test_id("new-game")).to_have_attribute("href", "/new/boss")
    shoot(page, "board-boss-finished")
    page.get_by_test_id("rematch").click()
    page.wait_for_url(lambda url: url.rstrip("/").split("/")[-1] not in ("", str(game_id)))
    page.wait_for_function("document.getElementById('board').dataset.version !== undefined")
    new_id = int(page.url.rstrip("/").split("/")[-1])
    again = game_json(page, new_id)
    assert again["game"] == "boss" and again["status"] == "active"
    assert again["options"] == final["options"]
    assert [s["bot"] for s in again["seats"]] == [None, "odds"]
