"""What boards say, word for word, where they used to say it badly (issue 15, item 7)."""

from __future__ import annotations

import copy
from typing import Any

from playwright.sync_api import Page

from dicehall.games.boss.rules import GAME as BOSS
from dicehall.games.boss.rules import BossState
from tests.web.test_boards_only_draw import blank, draw, from_state, recorded

__all__ = ["blank"]  # the fixture, shared with the boards-only-draw checks

HINT = """
async ([name, hint]) => {
  const board = await import(`/static/js/boards/${name}.js`);
  const root = document.createElement('div');
  board.renderHint(root, hint, null);
  return [...root.querySelectorAll('p')].map((p) => p.textContent);
}
"""


def test_bullseye_hint_says_what_each_choice_is_worth_in_plain_words(blank: Page) -> None:
    both = {"kind": "choice", "stop": 12.5, "throw": 14.25, "best": "throw"}
    assert blank.evaluate(HINT, ["bullseye", both]) == [
        "If you stop: 12.50 points expected.",
        "If you throw on (and play on well): 14.25 points expected.",
        "Best: throw on.",
    ]
    must_throw = {"kind": "choice", "stop": None, "throw": 9.0, "best": "throw"}
    lines = blank.evaluate(HINT, ["bullseye", must_throw])
    assert lines[0] == "You may not stop yet." and "not allowed" not in " ".join(lines)
    must_stop = {"kind": "choice", "stop": 20.0, "throw": None, "best": "stop"}
    assert blank.evaluate(HINT, ["bullseye", must_stop])[1:] == [
        "You may not throw again.",
        "Best: stop.",
    ]


def test_tenthousand_zero_out_line_names_only_what_was_lost(blank: Page) -> None:
    game = copy.deepcopy(next(iter(recorded("tenthousand", lambda v: v["state"]["phase"], 1))))
    cases = {
        (0, 5): "zeroed out on 2 3 4 6: paid 5¢ into the pot.",
        (300, 5): "zeroed out on 2 3 4 6: lost 300 points and paid 5¢ into the pot.",
        (300, 0): "zeroed out on 2 3 4 6: lost 300 points.",
        (0, 0): "zeroed out on 2 3 4 6.",
    }
    for (lost, penalty), expected in cases.items():
        game["version"] += 1
        game["view"]["state"]["last"] = {
            "type": "turn_end", "seat": 0, "banked": 0, "zero_roll": [2, 3, 4, 6],
            "lost": lost, "penalty": penalty,
        }  # fmt: skip
        draw(blank, "tenthousand", game)
        text = blank.locator('[data-testid="last"]').inner_text()
        assert text.endswith(expected), text


def test_my_own_throw_is_your_throw(blank: Page) -> None:
    def mine(view: dict[str, Any]) -> bool:
        rnd = view["round"]
        return bool(rnd and rnd["dice"] and rnd["thrower"] == view["seat"])

    game = next(g for g in recorded("bullseye", mine, 1) if mine(g["view"]))
    draw(blank, "bullseye", game)
    assert blank.locator(".be-throw .be-label").inner_text().strip() == "Your throw:"


def test_a_boss_who_kept_all_five_rolled_nothing_out_of_sight(blank: Page) -> None:
    rolls = ((6, 6, 6, 2, 2), (3, 3, 1, 2, 4))
    state = BossState(2, None, (0, 0), "call", rolls, boss=0, concealed=())
    for seat in (0, 1):  # the Boss, then the opponent
        draw(blank, "boss", from_state("boss", BOSS, state, seat))
        card = blank.get_by_test_id("boss-seat")
        assert "Kept all five: 2 2 6 6 6. Nothing is rolled out of sight." in card.inner_text()
        assert "Rolled out of sight" not in card.inner_text()
        assert "under the cup" not in card.inner_text()
        assert card.get_by_test_id("concealed").count() == 0
