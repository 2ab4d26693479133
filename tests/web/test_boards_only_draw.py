"""Boards only draw: every rule a board needs comes from the server (issue 14, item 2).

Two kinds of proof. The module check reads each board's source and fails if a rule it used
to carry comes back (a scoring table, the joker, the upper bonus, the two-pair ban, the
Bull's Eye bands, the lead's throw sizes, Hold'em's street limits). The browser checks draw
each board on positions the rules made (bot games recorded as the golden files are, and a
few made-up ones), through the codec exactly as the API sends them, and compare what the
board offers with the server's ``legal`` list: a choice is offered (a button, an enabled
control) exactly when it is legal, and the figures it shows are the ones the legal action
or the view carries. Feeding a board doctored figures shows the doctored figures: the board
computes nothing itself.
"""

from __future__ import annotations

import copy
import itertools
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

from dicehall import games as games_registry
from dicehall.engine import codec
from dicehall.games.boatzee.card import Card, empty_card
from dicehall.games.boatzee.rules import GAME as BOATZEE
from dicehall.games.boatzee.rules import BoatzeeOptions, BoatzeeState
from dicehall.games.boss.rules import GAME as BOSS
from dicehall.games.boss.rules import BossState
from dicehall.games.bullseye.model import BullseyeOptions, BullseyeState, Round
from dicehall.games.bullseye.rules import GAME as BULLSEYE
from tests.golden.record import SPECS, record

BOARDS = Path(__file__).resolve().parents[2] / "src/dicehall/server/web/static/js/boards"

JSON = Any

# -- the module check --------------------------------------------------------------------------

#: Per board: (pattern, what it would mean) for rules that used to live in the module.
FORBIDDEN: dict[str, tuple[tuple[str, str], ...]] = {
    "boatzee": (
        (r"\bboxScore\b|\bpreview\s*\(", "a scoring table for the boxes"),
        (r"\bjoker", "the joker rule"),
        (r"UPPER_BONUS|UPPER_THRESHOLD|EXTRA_BONUS|\b63\b|\b35\b|\b100\b", "bonus constants"),
        (r"\b(25|30|40|50)\b", "fixed box values (full house, straights, Boatzee)"),
        (r"\b[kK]\s*\*|\*\s*k\b|column\s*\*", "the column multiplier"),
        (r"Math\.max\(\s*\.\.\.\s*view\.totals", "ranking the totals"),
    ),
    "boss": (
        (r"twoPairs|two_pairs", "the two-pair keep ban"),
        (r"[Tt]wo pairs?", "the two-pair ban written into the module"),
        (r"\bcounts\s*[\[.]", "counting faces"),
    ),
    "bullseye": (
        (r"\bBANDS\b|\bband\s*\(", "the scoring bands"),
        (r"\b(50|30|20)\b", "band points"),
        (r"leadAdds|slice\(\s*0\s*,\s*3", "what the lead's throws add"),
        (r"\b3\s*-\s*throws", "the throw sizes"),
    ),
    "holdem": (
        (r"\?\s*10\s*:\s*20", "the street limits"),
        (r"of 3\b", "the raise cap"),
        (r"Math\.min\(\s*v\.to_call", "the call amount"),
    ),
    "tenthousand": (
        (r"\b(500|1000|2000|3000|4000)\b", "combination values"),
        (r"Math\.max\(\s*\.\.\.\s*s\.banked", "ranking the banks"),
        (r"entered", "the entry rule"),
    ),
}


@pytest.mark.parametrize("name", sorted(FORBIDDEN))
def test_board_module_holds_no_rules(name: str) -> None:
    source = (BOARDS / f"{name}.js").read_text()
    # the hint panel draws the hint service's answer: only render() is the board
    board = source.split("export function renderHint")[0]
    code = re.sub(r"/\*.*?\*/", "", board, flags=re.S)  # comments may name the old rules
    code = re.sub(r"(^|\s)//.*$", "", code, flags=re.M)
    found = [
        f"{why}: {m.group(0)!r}"
        for pattern, why in FORBIDDEN[name]
        for m in [re.search(pattern, code)]
        if m is not None
    ]
    assert not found, f"boards/{name}.js computes rules the server owns: {found}"


def test_every_board_is_checked() -> None:
    assert {p.stem for p in BOARDS.glob("*.js")} == set(FORBIDDEN)


# -- drawing positions the rules made ----------------------------------------------------------

RENDER = """
async ([name, game]) => {
  const core = await import('/static/js/board-core.js');
  const board = await import(`/static/js/boards/${name}.js`);
  let root = document.getElementById('board');
  if (!root) {
    root = document.createElement('div');
    root.id = 'board';
    document.querySelector('main').replaceChildren(root);
  }
  root.replaceChildren();
  window.__posted = [];
  board.render(root, game, {h: core.h, die: core.die, seatName: core.seatName,
    post: (a) => { window.__posted.push(a); }, say: () => {}});
}
"""

#: Toggles `n` dice through every subset (Gray code: one click a step) and reads the board
#: after each: `[{mask, ...read()}]`, `mask` bit i set when die i is selected.
GRAY = """
const gray = (n, toggle, read) => {
  const out = [{ mask: 0, ...read() }];
  let mask = 0;
  for (let g = 1; g < (1 << n); g += 1) {
    const bit = 31 - Math.clz32(g & -g);
    mask ^= 1 << bit;
    toggle(bit);
    out.push({ mask, ...read() });
  }
  return out;
};
"""

_versions = itertools.count(1)


def api_game(
    name: str, view: JSON, legal: list[JSON], seat: int, seats: int, *, status: str = "active"
) -> JSON:
    """A game as ``GET /api/v1/games/{id}`` gives it to ``seat``, whose turn it is."""
    return {
        "id": 900,
        "title": _title(name, view),
        "version": next(_versions),  # a new version: the board forgets its local selection
        "status": status,
        "my_seat": seat,
        "to_act": seat,
        "your_turn": True,
        "seats": [{"seat": s, "user": f"p{s}", "bot": None} for s in range(seats)],
        "legal": legal,
        "result": None,
        "view": view,
    }


def _title(name: str, view: JSON) -> str:
    """The game's name for the view's options, as the API words it."""
    game = games_registry.get(name).game
    encoded = view.get("options") if isinstance(view, dict) else None
    if not isinstance(encoded, dict):
        return game.title
    options = game.options({k: v for k, v in encoded.items() if k != "type"})
    return game.variant_title(options)


def from_state(name: str, game: Any, state: Any, seat: int) -> JSON:
    """The API's game for a state the rules made (view and legal through the codec)."""
    view = codec.encode(game.view(state, seat))
    legal = [codec.encode(a) for a in game.legal(state, seat)]
    return api_game(name, view, legal, seat, _seats(state))


def _seats(state: Any) -> int:
    for attr in ("cards", "points", "horses", "banked", "stacks"):
        if hasattr(state, attr):
            return len(getattr(state, attr))
    raise AssertionError(f"how many seats has {state!r}?")  # pragma: no cover


def recorded(name: str, kind: Callable[[JSON], object], per_kind: int = 2) -> Iterator[JSON]:
    """Positions from the golden bot games of ``name`` where a seat must act, at most
    ``per_kind`` of each kind (phase, street...), as the API gives them to that seat."""
    seen: dict[object, int] = {}
    for spec in SPECS:
        if spec.game != name:
            continue
        data = record(spec)
        for frame in [data["start"], *(step for step in data["steps"])]:
            turn = frame["turn"]
            if turn["type"] != "to_act" or not frame["legal"]:
                continue
            seat = turn["seat"]
            view = frame["views"][seat]
            key = kind(view)
            if seen.get(key, 0) >= per_kind:
                continue
            seen[key] = seen.get(key, 0) + 1
            yield api_game(name, view, frame["legal"], seat, spec.seats)


def draw(page: Page, name: str, game: JSON) -> None:
    page.evaluate(RENDER, [name, game])


@pytest.fixture
def blank(page: Page) -> Page:
    """A page of the site with an empty board: boards are drawn into it from test data."""
    page.goto("/")
    return page


# -- Boatzee -----------------------------------------------------------------------------------

BOATZEE_BOXES = """
() => {
  const root = document.getElementById('board');
  const out = [];
  const keys = [...root.querySelectorAll('.bz-box')].map((b) => b.dataset.key);
  for (const key of keys) {
    root.querySelector(`[data-key="${key}"]`).click();
    const b = root.querySelector(`[data-key="${key}"]`);
    out.push({ box: b.dataset.box, column: Number(b.dataset.column), shown: b.textContent,
      choice: root.querySelector('[data-testid="choice"]').textContent });
  }
  return out;
}
"""

BOATZEE_DICE = (
    "() => {"
    + GRAY
    + """
  const root = document.getElementById('board');
  if (!root.querySelector('.bz-dice button')) return null;
  return gray(5, (i) => root.querySelector(`[data-key="die-${i}"]`).click(),
    () => ({ enabled: !root.querySelector('[data-key="reroll"]').disabled }));
}
"""
)

BOATZEE_SHEET = """
(seat) => {
  const card = document.querySelector(`.bz-card[data-seat="${seat}"]`);
  const row = (title) => [...card.querySelectorAll('tbody tr')]
    .find((tr) => tr.querySelector('th').textContent === title);
  const cells = (tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent);
  const boxes = [...card.querySelectorAll('tbody tr')]
    .filter((tr) => !tr.classList.contains('bz-sub')).map((tr) => cells(tr));
  return { boxes, bonus: cells(row('Bonus')), totals: cells(row('Column total')),
    upper: cells([...card.querySelectorAll('tbody tr.bz-sub')][0]) };
}
"""


def _scores(game: JSON) -> dict[tuple[str, int], JSON]:
    return {(a["box"], a["column"]): a for a in game["legal"] if a["type"] == "score"}


def check_boatzee(page: Page, game: JSON) -> None:
    """The boxes offered are the legal ones, each previewing the points its action carries;
    a selection of dice can be re-rolled exactly when it is a legal re-roll; the cards show
    the view's sheets."""
    draw(page, "boatzee", game)
    scores = _scores(game)
    offered = page.evaluate(BOATZEE_BOXES)
    assert {(o["box"], o["column"]) for o in offered} == set(scores)
    for o in offered:
        action = scores[(o["box"], o["column"])]
        assert o["shown"] == str(action["points"])
        assert f"would score {action['points']}" in o["choice"]
        for bonus, words in (("upper_bonus", "upper bonus"), ("extra_bonus", "Boatzee bonus")):
            assert (f"+{action[bonus]} {words}" in o["choice"]) == bool(action[bonus])
    if offered:
        page.locator('[data-key="confirm"]').click()
        last = offered[-1]
        assert page.evaluate("window.__posted") == [scores[(last["box"], last["column"])]]
    rerolls = {tuple(a["positions"]) for a in game["legal"] if a["type"] == "reroll"}
    draw(page, "boatzee", game)
    masks = page.evaluate(BOATZEE_DICE)
    if masks is None:
        assert not rerolls
    else:
        for m in masks:
            positions = tuple(i for i in range(5) if m["mask"] >> i & 1)
            assert m["enabled"] == (positions in rerolls), positions
    view = game["view"]
    for seat, sheet in enumerate(view["sheets"]):
        drawn = page.evaluate(BOATZEE_SHEET, seat)
        assert drawn["totals"] == [str(t) for t in sheet["column_totals"]]
        assert drawn["bonus"] == [str(b) for b in sheet["upper_bonus"]]
        threshold = view["upper_bonus_threshold"]
        assert drawn["upper"] == [f"{u} / {threshold}" for u in sheet["upper"]]
        for i, row in enumerate(drawn["boxes"]):
            for k, text in enumerate(row):
                value = sheet["boxes"][k][i]
                if value is not None:
                    assert text == str(value)


def _card(columns: int, filled: dict[tuple[str, int], int], extra: int = 0) -> Card:
    from dicehall.games.boatzee.scoring import BOX_INDEX

    boxes = [list(column) for column in empty_card(columns).boxes]
    for (box, k), value in filled.items():
        boxes[k - 1][BOX_INDEX[box]] = value
    return Card(tuple(tuple(column) for column in boxes), extra)


def _boatzee(ruleset: str, columns: int, card: Card, dice: tuple[int, ...], rolls: int = 1) -> JSON:
    options = BoatzeeOptions(columns=columns, ruleset=ruleset)  # type: ignore[arg-type]
    state = BoatzeeState(options, (card, empty_card(columns)), 0, dice, rolls)
    return from_state("boatzee", BOATZEE, state, 0)


UPPER_51 = {("ones", 1): 3, ("twos", 1): 6, ("threes", 1): 9, ("fives", 1): 15, ("sixes", 1): 18}


def made_up_boatzee() -> list[JSON]:
    """Positions where the rules do most: the forced joker with both bonuses, the joker's
    lower boxes at full value, a column multiplier, a full house, no re-rolls left."""
    joker = {**UPPER_51, ("boatzee", 1): 50}
    return [
        _boatzee("boatzee", 1, empty_card(1), (3, 3, 3, 5, 5)),
        _boatzee("yahtzee", 1, _card(1, joker), (4, 4, 4, 4, 4)),
        _boatzee("yahtzee", 1, _card(1, {**joker, ("fours", 1): 12}), (4, 4, 4, 4, 4), 3),
        _boatzee("boatzee", 3, _card(3, {("chance", 2): 20, ("sixes", 3): 18}), (2, 3, 4, 5, 6)),
    ]


def test_boatzee_board_offers_exactly_the_legal_moves(blank: Page) -> None:
    games = [*made_up_boatzee(), *recorded("boatzee", lambda v: v["rerolls_left"], 3)]
    # the made-up positions do show both bonuses and the joker's narrowed choice
    joker = _scores(games[1])
    assert set(joker) == {("fours", 1)}
    fours = joker[("fours", 1)]
    assert (fours["points"], fours["upper_bonus"], fours["extra_bonus"]) == (20, 35, 100)
    assert _scores(games[2])[("full_house", 1)]["points"] == 25
    for game in games:
        check_boatzee(blank, game)


def test_boatzee_board_draws_doctored_figures(blank: Page) -> None:
    """Given other figures than the rules', the board shows them: it computes none."""
    game = copy.deepcopy(made_up_boatzee()[3])
    scores = [a for a in game["legal"] if a["type"] == "score"]
    dropped = scores[0]
    for i, action in enumerate(scores):
        action.update(points=900 + i, upper_bonus=7 if i % 2 else 0, extra_bonus=0)
    game["legal"].remove(dropped)
    game["legal"] = [a for a in game["legal"] if a.get("positions") != [0]]
    sheet = game["view"]["sheets"][0]
    sheet["column_totals"] = [4321, 4322, 4323]
    sheet["upper"] = [61, 62, 64]
    sheet["upper_bonus"] = [1, 2, 3]
    sheet["boxes"][1][12] = 777
    game["view"]["upper_bonus_threshold"] = 99
    check_boatzee(blank, game)
    assert blank.locator(f'.bz-box[data-box="{dropped["box"]}"][data-column="1"]').count() == 0


# -- Boss Dice ---------------------------------------------------------------------------------

BOSS_KEEPS = (
    "() => {"
    + GRAY
    + """
  const root = document.getElementById('board');
  const dice = root.querySelectorAll('[data-key^="keep-"]');
  if (!dice.length) return null;
  return gray(dice.length, (i) => root.querySelector(`[data-key="keep-${i}"]`).click(),
    () => ({ enabled: !root.querySelector('[data-testid="keep"]').disabled,
      summary: root.querySelector('[data-testid="keep-summary"]').textContent,
      help: root.querySelector('#boss-keep-help').textContent }));
}
"""
)

CALLS = """
() => ['come_up', 'pick_up'].filter((t) => document.querySelector(`[data-testid="${t}"]`))
"""


def _sentence(text: str) -> str:
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


def check_boss(page: Page, game: JSON) -> None:
    """The calls offered are the legal ones; a keep can be made exactly when it is legal,
    and a refused one shows the view's reason for it."""
    draw(page, "boss", game)
    legal = game["legal"]
    assert page.evaluate(CALLS) == [a["type"] for a in legal if a["type"] != "keep"]
    keeps = {tuple(a["dice"]) for a in legal if a["type"] == "keep"}
    refused = {tuple(r["dice"]): r["reason"] for r in game["view"]["refused_keeps"]}
    masks = page.evaluate(BOSS_KEEPS)
    if masks is None:
        assert not keeps
        return
    roll = game["view"]["first_rolls"][game["my_seat"]]
    for m in masks:
        chosen = tuple(sorted(roll[i] for i in range(5) if m["mask"] >> i & 1))
        assert m["enabled"] == (chosen in keeps), chosen
        assert game["view"]["keep_rule"] in m["help"]
        if chosen in keeps:
            assert m["summary"].startswith("Keeping"), m
        elif chosen in refused:
            assert m["summary"] == _sentence(refused[chosen])
        else:
            assert m["summary"] == "That keep is not allowed."


def _boss_keeping(roll: tuple[int, ...]) -> JSON:
    state = BossState(2, None, (0, 0), "keep", ((6, 6, 6, 2, 1), roll), boss=0, concealed=(3, 4))
    return from_state("boss", BOSS, state, 1)


def test_boss_board_offers_exactly_the_legal_moves(blank: Page) -> None:
    made_up = [_boss_keeping(r) for r in ((2, 2, 5, 5, 3), (4, 4, 1, 1, 1), (6, 5, 4, 3, 2))]
    # every selection of the opponent's dice is either legal or refused with a reason
    for game in made_up:
        roll = game["view"]["first_rolls"][1]
        keeps = {tuple(a["dice"]) for a in game["legal"]}
        refused = {tuple(r["dice"]) for r in game["view"]["refused_keeps"]}
        subsets = {tuple(sorted(c)) for n in range(6) for c in itertools.combinations(roll, n)}
        assert keeps | refused == subsets and not keeps & refused
    for game in [*made_up, *recorded("boss", lambda v: v["phase"])]:
        check_boss(blank, game)


def test_boss_board_draws_doctored_rules(blank: Page) -> None:
    game = copy.deepcopy(_boss_keeping((2, 2, 5, 5, 3)))
    game["legal"] = [a for a in game["legal"] if a["dice"] != [5]]
    game["view"]["refused_keeps"][0]["reason"] = "a made-up reason from the server"
    game["view"]["keep_rule"] = "Any keep goes, says this server."
    check_boss(blank, game)


# -- Bull's Eye --------------------------------------------------------------------------------

BULLSEYE_CHOICES = """
() => {
  const root = document.getElementById('board');
  const text = (sel) => root.querySelector(sel)?.textContent ?? null;
  return { buttons: ['throw_on', 'stop'].filter((t) => root.querySelector(`[data-testid="${t}"]`)),
    throwOn: text('[data-testid="throw_on"]'), note: text('[data-testid="choice-note"]'),
    max: root.querySelector('#be-bet')?.max ?? null,
    adds: [...root.querySelectorAll('.be-adds')].map((e) => e.textContent),
    rules: root.querySelector('.be-rules').textContent,
    rows: Object.fromEntries([...root.querySelectorAll('.be-seats tbody tr')]
      .map((tr) => [tr.dataset.testid, [...tr.querySelectorAll('td')].map((d) => d.textContent)]))
  };
}
"""


def check_bullseye(page: Page, game: JSON) -> dict[str, Any]:
    """Throw on and stop are offered exactly when legal, bets up to the largest legal bet;
    the lead's additions, what stopping would score and the bands are the view's."""
    draw(page, "bullseye", game)
    drawn: dict[str, Any] = page.evaluate(BULLSEYE_CHOICES)
    legal = game["legal"]
    kinds = {a["type"] for a in legal}
    assert drawn["buttons"] == [t for t in ("throw_on", "stop") if t in kinds]
    top = max(a["bet"] for a in legal)
    assert drawn["max"] == (str(top) if top > 0 else None)
    view = game["view"]
    rnd = view["round"]
    assert drawn["adds"] == [f"+{a}" for a in rnd["lead_adds"]]
    bands = ", ".join(
        f"{'distance 0' if b['distance'] == 0 else 'up to ' + str(b['distance'])} scores "
        f"{b['points']}"
        for b in view["bands"]
    )
    assert f"{bands[0].upper()}{bands[1:]}, more scores 0." in drawn["rules"]
    for seat, stop in enumerate(rnd["stop_scores"]):
        if stop is not None:
            assert f"({stop} if stops)" in drawn["rows"][f"seat-{seat}"]
    me = game["my_seat"]
    if "throw_on" in drawn["buttons"]:
        assert f"({rnd['next_dice']} di" in drawn["throwOn"]
    if me == rnd["lead"] and rnd["next_dice"] is not None:
        assert f"Next: {rnd['next_dice']} dice" in drawn["note"]
    elif me != rnd["lead"] and rnd["stop_scores"][me] is not None:
        assert f"worth {rnd['stop_scores'][me]} points" in drawn["note"]
    return drawn


def _bullseye(counted: tuple[tuple[tuple[int, ...], ...], ...], thrower: int) -> JSON:
    options = BullseyeOptions(allow_two_seats=True)
    rnd = Round(1, 0, thrower, counted[thrower][-1], counted, (0,) * len(counted))
    seats = len(counted)
    state = BullseyeState(options, (0,) * seats, (100,) * seats, 0, None, rnd, ())
    return from_state("bullseye", BULLSEYE, state, thrower)


LEAD = ((6, 4, 1), (5, 3, 2), (6, 2, 1))


def test_bullseye_board_offers_exactly_the_legal_moves(blank: Page) -> None:
    # the lead after one throw: three dice again, the two highest count
    lead = _bullseye((LEAD[:1], ()), 0)
    drawn = check_bullseye(blank, lead)
    assert drawn["throwOn"] == "Throw again (3 dice)"
    assert drawn["note"] == "Your throw 1 added 11. Next: 3 dice, the two highest count."
    # a thrower after two throws against a set Bull's Eye of 11 + 8 + 6 = 25: 23 is 2 away
    thrower = _bullseye((LEAD, ((6, 4, 2), (6, 5))), 1)
    drawn = check_bullseye(blank, thrower)
    assert drawn["throwOn"] == "Throw on (1 die)"
    assert drawn["note"].startswith("Stopping now: 2 away from 25, worth 30 points.")
    done = _bullseye((LEAD, ((6, 5, 4), (6, 3), (1,))), 1)
    assert check_bullseye(blank, done)["buttons"] == ["stop"]
    for game in recorded(
        "bullseye", lambda v: (v["round"]["lead"] == v["seat"], v["round"]["target_set"])
    ):
        check_bullseye(blank, game)


def test_bullseye_board_draws_doctored_figures(blank: Page) -> None:
    game = copy.deepcopy(_bullseye((LEAD, ((6, 4, 2),)), 1))
    rnd = game["view"]["round"]
    rnd["lead_adds"] = [1, 2, 3]
    rnd["stop_scores"] = [None, 77]
    rnd["next_dice"] = 5
    game["view"]["bands"] = [{"type": "band", "distance": 0, "points": 99}]
    drawn = check_bullseye(blank, game)
    assert drawn["throwOn"] == "Throw on (5 dice)"
    assert "Distance 0 scores 99, more scores 0." in drawn["rules"]


# -- Hold'em Dice and Ten Thousand -------------------------------------------------------------

HOLDEM_CHOICES = """
() => {
  const root = document.getElementById('board');
  const options = (id) => [...root.querySelectorAll(`[data-testid="${id}-amount"] option`)]
    .map((o) => Number(o.value));
  return { buttons: ['fold', 'check', 'call', 'all_in']
      .filter((t) => root.querySelector(`[data-testid="${t}"]`)),
    bet: options('bet'), raise: options('raise'),
    meta: root.querySelector('.hd-street .hd-meta')?.textContent ?? '' };
}
"""


def check_holdem(page: Page, game: JSON) -> None:
    draw(page, "holdem", game)
    drawn = page.evaluate(HOLDEM_CHOICES)
    legal = game["legal"]
    kinds = [a["type"] for a in legal]
    assert drawn["buttons"] == [t for t in ("fold", "check", "call", "all_in") if t in kinds]
    for kind in ("bet", "raise"):
        assert drawn[kind] == [a["amount"] for a in legal if a["type"] == kind]
    view = game["view"]
    assert f"{view['limit']} at most" in drawn["meta"]
    assert f"raises {view['raises']} of {view['max_raises']}." in drawn["meta"]


def test_holdem_board_offers_exactly_the_legal_moves(blank: Page) -> None:
    games = list(recorded("holdem", lambda v: v["street"], 3))
    for game in games:
        check_holdem(blank, game)
    doctored = copy.deepcopy(games[0])
    doctored["view"].update(limit=70, max_raises=9)
    doctored["legal"] = [a for a in doctored["legal"] if a["type"] != "fold"]
    check_holdem(blank, doctored)


TEN_SELECT = (
    "() => {"
    + GRAY
    + """
  const root = document.getElementById('board');
  const dice = root.querySelectorAll('.tt-dice [data-key^="die-"]');
  const button = (key) => root.querySelector(`[data-key="${key}"]`);
  if (!dice.length) {
    return { bank: button('bank') && !button('bank').disabled,
      roll: button('roll-on') && !button('roll-on').disabled };
  }
  return gray(dice.length, (i) => button(`die-${i}`).click(),
    () => ({ enabled: !button('set-aside').disabled, text: button('set-aside').textContent }));
}
"""
)


def check_tenthousand(page: Page, game: JSON) -> None:
    draw(page, "tenthousand", game)
    drawn = page.evaluate(TEN_SELECT)
    legal = game["legal"]
    kinds = {a["type"] for a in legal}
    if isinstance(drawn, dict):
        assert drawn == {"bank": "bank" in kinds, "roll": "roll_on" in kinds}
        return
    dice = game["view"]["state"]["dice"]
    set_asides = {tuple(a["dice"]): a["points"] for a in legal if a["type"] == "set_aside"}
    for m in drawn:
        chosen = tuple(sorted(dice[i] for i in range(len(dice)) if m["mask"] >> i & 1))
        assert m["enabled"] == (chosen in set_asides), chosen
        if chosen in set_asides:
            assert m["text"] == f"Set aside for {set_asides[chosen]}"


def test_tenthousand_board_offers_exactly_the_legal_moves(blank: Page) -> None:
    games = list(recorded("tenthousand", lambda v: v["state"]["phase"], 3))
    for game in games:
        check_tenthousand(blank, game)
    doctored = copy.deepcopy(next(g for g in games if g["view"]["state"]["phase"] == "set_aside"))
    for i, action in enumerate(doctored["legal"]):
        action["points"] = 5000 + i
    doctored["legal"] = doctored["legal"][1:]
    check_tenthousand(blank, doctored)
