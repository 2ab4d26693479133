"""The Hold'em Dice board in Chromium: a hand folded, a hand checked and called down to the
showdown (with the winning five highlighted), pockets hidden from others, a bet amount."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.web.boards import COUNT_FETCHES
from tests.web.boards import click_and_wait as _click_and_wait
from tests.web.boards import game_json as _game_now
from tests.web.boards import settled_game as _game
from tests.web.conftest import create_game_api, shoot, signup_api


def test_holdem_fold_then_showdown(page: Page) -> None:
    csrf = signup_api(page.context, "holdy")
    game_id = create_game_api(
        page.context, csrf, "holdem", ["me", "bot:equity"], {"stack": 200, "max_flop_rerolls": 1}
    )
    page.add_init_script(COUNT_FETCHES)
    page.goto(f"/games/{game_id}")
    board = page.locator("#board")
    first = _game_now(page, game_id)
    if first["bot_turn"] is not None:
        # The bot acts first: the board says so and keeps every control off meanwhile.
        expect(board).to_have_attribute("data-thinking", "true")
        expect(page.locator("#board-status")).to_contain_text("equity bot")
    game = _game(page, game_id)
    expect(board).to_have_attribute("data-version", str(game["version"]))
    expect(board).to_have_attribute("data-thinking", "false")
    me = game["my_seat"]

    # my pocket is shown with its colours in words; the bot's pocket is two backs
    pocket = page.get_by_test_id("my-pocket")
    # (Two dice of one colour may show one face: "3k" twice.)
    for die in set(game["view"]["pocket"]):
        expect(pocket.locator(f'[data-die="{die}"]')).to_have_count(
            game["view"]["pocket"].count(die)
        )
        expect(pocket.locator(f'[data-die="{die}"]').first).to_be_visible()
    expect(page.get_by_test_id(f"seat-{1 - me}").locator(".hd-back")).to_have_count(2)
    page.get_by_text("Odds and hints", exact=True).click()
    # the first equity may compile its kernels (Numba) on a cold cache: allow for it
    expect(page.locator("#hint-body")).to_contain_text(
        "Against 1 opponent: you win", timeout=60_000
    )
    shoot(page, "board-holdem-open")

    # hand 1: fold at once
    assert game["your_turn"]
    hand = game["view"]["hand"]
    _click_and_wait(page, "fold")
    game = _game(page, game_id)
    assert game["view"]["hand"] == hand + 1
    expect(page.get_by_test_id("last-summary")).to_contain_text("unseen: everyone else folded")

    # the next hands: check or call only (the equity bot never folds to a check), to showdown
    showdown = False
    bet_made = False
    for _ in range(60):
        game = _game(page, game_id)
        expect(board).to_have_attribute("data-version", str(game["version"]))
        last = game["view"]["last"]
        # a showdown may also be the game's last hand (someone lost every chip)
        if last and last["showdown"] and last["hand"] > hand:
            showdown = True
            break
        if game["status"] != "active":
            break
        types = {a["type"] for a in game["legal"]}
        if "bet" in types and not bet_made:
            amounts = [a["amount"] for a in game["legal"] if a["type"] == "bet"]
            page.get_by_label("Bet amount").select_option(str(amounts[-1]))
            _click_and_wait(page, "bet")
            bet_made = True
        elif "check" in types:
            _click_and_wait(page, "check")
        elif "call" in types:
            _click_and_wait(page, "call")
        else:
            _click_and_wait(page, "all_in")
    assert showdown, "no showdown was reached"
    last = game["view"]["last"]
    section = page.get_by_test_id("last-hand")
    expect(section.locator(".hd-show")).to_have_count(len(last["showdown"]))
    for shown in last["showdown"]:
        five = section.get_by_test_id(f"showdown-{shown['seat']}").locator(".hd-five")
        expect(five).to_have_count(5)
    winners = {w for p in last["pots"] for w in p["winners"]}
    for w in winners:
        expect(section.get_by_test_id(f"showdown-{w}")).to_contain_text("(won)")
    section.scroll_into_view_if_needed()
    shoot(page, "board-holdem-showdown")
    page.set_viewport_size({"width": 390, "height": 844})
    shoot(page, "board-holdem-phone")
    # chips are conserved on the board as in the game
    assert sum(game["view"]["stacks"]) + sum(p["amount"] for p in game["view"]["pots"]) == 400
    page.set_viewport_size({"width": 1100, "height": 900})
    _side_pots_and_raise_amounts(page)


FAKE = """
async () => {
  const core = await import('/static/js/board-core.js');
  const board = await import('/static/js/boards/holdem.js');
  const css = document.createElement('link');
  css.rel = 'stylesheet';
  css.href = '/static/css/boards/holdem.css';
  await new Promise((done) => { css.onload = done; document.head.append(css); });
  const game = {
    id: 998, version: 9, status: 'active', my_seat: 2, to_act: 2, your_turn: true,
    seats: [{seat: 0, user: 'ann'}, {seat: 1, user: 'bob'}, {seat: 2, user: 'me'}],
    legal: [{type: 'fold'}, {type: 'call'}, {type: 'raise', amount: 10},
            {type: 'raise', amount: 20}],
    result: null,
    view: {type: 'holdem_view', seat: 2, hand: 4, dealer: 0, stage: 'betting',
      street: 'turn', stacks: [0, 150, 130], out: [false, false, false],
      folded: [false, false, false], contributions: [20, 50, 30], round_bets: [0, 20, 0],
      board: ['6r', '6k', '2w', '5y'], pocket: ['6w', '1y'], to_act: 2, to_call: 20,
      raises: 0, limit: 20, max_raises: 3,
      pots: [{type: 'pot', amount: 60, eligible: [0, 1, 2]},
             {type: 'pot', amount: 40, eligible: [1, 2]}],
      rerolls: 1, max_flop_rerolls: null, last: null, winners: []},
  };
  const root = document.createElement('div');
  root.id = 'board';
  document.querySelector('main').replaceChildren(root);
  window.__posted = [];
  board.render(root, game, {h: core.h, die: core.die, seatName: core.seatName,
    post: (a) => { window.__posted.push(a); }, say: () => {}});
}
"""


def _side_pots_and_raise_amounts(page: Page) -> None:
    """Side pots and the raise amounts on a made-up position (no second site start)."""
    page.goto("/")
    page.evaluate(FAKE)
    pots = page.get_by_test_id("pots")
    expect(pots).to_contain_text("Main pot: 60 (for ann, bob, me (you))")
    expect(pots).to_contain_text("Side pot 1: 40 (for bob, me (you))")
    expect(page.get_by_test_id("seat-0")).to_contain_text("all-in")
    community = page.get_by_test_id("community")
    expect(community.get_by_role("img", name="6 red die")).to_be_visible()
    expect(community.locator(".hd-cap")).to_have_text(["red", "black", "white", "yellow"])
    expect(page.get_by_test_id("call")).to_have_text("Call 20")
    amount = page.get_by_label("Raise by (on top of the call)")
    expect(amount.locator("option")).to_have_text(["10", "20"])
    amount.select_option("20")
    page.get_by_test_id("raise").press("Enter")
    assert page.evaluate("window.__posted") == [{"type": "raise", "amount": 20}]
    shoot(page, "board-holdem-side-pots")
