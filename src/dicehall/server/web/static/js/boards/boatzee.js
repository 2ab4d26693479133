// The Boatzee board (Boatzee, Double and Triple Boatzee), as the seed's site plays it:
// click dice to select them for a re-roll (red border; click again to unselect), "Re-roll
// selected dice" (permanent), click an open box to see what it would score, "Confirm" to
// score it, "Start this move over" to clear the selection and the unconfirmed choice (never
// the dice). Every seat's card is shown with each column's upper subtotal, bonus and total.

const BOXES = [
  "ones", "twos", "threes", "fours", "fives", "sixes",
  "three_kind", "four_kind", "full_house", "small_straight", "large_straight", "boatzee", "chance",
];
const TITLES = {
  ones: "Ones", twos: "Twos", threes: "Threes", fours: "Fours", fives: "Fives", sixes: "Sixes",
  three_kind: "3 of a kind", four_kind: "4 of a kind", full_house: "Full House",
  small_straight: "Small Straight", large_straight: "Large Straight", boatzee: "Boatzee!",
  chance: "Chance",
};
const VARIANTS = { 1: "Boatzee", 2: "Double Boatzee", 3: "Triple Boatzee" };
const UPPER_BONUS = 35;
const UPPER_THRESHOLD = 63;
const EXTRA_BONUS = 100;
const BOATZEE = 11;

// What this browser is doing with the current move; reset whenever the game moves on.
const local = { key: null, selected: new Set(), choice: null, refocus: null, cards: null, moves: [] };

/** The unmultiplied points `dice` score in `box` (no joker): the rules' scoring table. */
export function boxScore(box, dice) {
  const counts = [0, 0, 0, 0, 0, 0, 0];
  for (const d of dice) counts[d] += 1;
  const most = Math.max(...counts);
  const sum = dice.reduce((a, b) => a + b, 0);
  const faces = new Set(dice);
  const has = (run) => run.every((f) => faces.has(f));
  const index = BOXES.indexOf(box);
  if (index < 6) return (index + 1) * counts[index + 1];
  const sorted = counts.slice(1).sort((a, b) => a - b);
  switch (box) {
    case "three_kind": return most >= 3 ? sum : 0;
    case "four_kind": return most >= 4 ? sum : 0;
    case "full_house": return sorted[5] === 3 && sorted[4] === 2 ? 25 : 0;
    case "small_straight":
      return [[1, 2, 3, 4], [2, 3, 4, 5], [3, 4, 5, 6]].some(has) ? 30 : 0;
    case "large_straight":
      return faces.size === 5 && [[1, 2, 3, 4, 5], [2, 3, 4, 5, 6]].some(has) ? 40 : 0;
    case "boatzee": return most === 5 ? 50 : 0;
    default: return sum;
  }
}

function jokerInForce(card, dice, ruleset) {
  return ruleset === "yahtzee" && dice.length === 5 && new Set(dice).size === 1
    && card.boxes.every((column) => column[BOATZEE] !== null);
}

/** What (box, column) would show if `dice` were scored there now (multiplied). */
export function preview(card, dice, ruleset, box, column) {
  let points = boxScore(box, dice);
  if (jokerInForce(card, dice, ruleset)) {
    points = { full_house: 25, small_straight: 30, large_straight: 40 }[box] ?? points;
  }
  return column * points;
}

const upperOf = (column) => column.slice(0, 6).reduce((a, v) => a + (v ?? 0), 0);
const bonusOf = (column) => (upperOf(column) >= UPPER_THRESHOLD ? UPPER_BONUS : 0);
const columnTotal = (column, k) =>
  k * column.reduce((a, v) => a + (v ?? 0), 0) + bonusOf(column);

function sameMove(game, seatName) {
  const key = `${game.id}:${game.version}`;
  if (local.key === key) return;
  local.key = key;
  local.selected = new Set();
  local.choice = null;
  // What the other seats scored since this page last drew the game.
  const before = local.cards;
  const now = game.view.cards;
  if (before && before.gameId === game.id) {
    const moves = [];
    now.forEach((card, seat) => {
      if (seat === game.my_seat) return;
      card.boxes.forEach((column, k) => column.forEach((value, i) => {
        if (value !== null && before.cards[seat]?.boxes[k][i] === null) {
          const where = card.boxes.length > 1 ? ` (column ${k + 1})` : "";
          moves.push(`${seatName(game, seat)} scored ${(k + 1) * value} in ${TITLES[BOXES[i]]}${where}.`);
        }
      }));
    });
    if (moves.length) local.moves = moves;
  }
  local.cards = { gameId: game.id, cards: now };
}

export function render(root, game, ctx) {
  const { h, die, seatName } = ctx;
  sameMove(game, seatName);
  const view = game.view;
  const columns = view.options.columns;
  const ruleset = view.options.ruleset;
  const me = game.my_seat;
  const myTurn = game.your_turn && view.dice.length === 5;
  const canScore = new Set(
    game.legal.filter((a) => a.type === "score").map((a) => `${a.box}:${a.column}`),
  );
  const canReroll = myTurn && game.legal.some((a) => a.type === "reroll");

  const redraw = (focusKey) => {
    root.replaceChildren();
    render(root, game, ctx);
    if (focusKey) root.querySelector(`[data-key="${focusKey}"]`)?.focus();
  };

  // -- heading: variant, whose turn, re-rolls left -------------------------------------------
  const variant = VARIANTS[columns] + (ruleset === "yahtzee" ? " (yahtzee rules)" : "");
  const turnLine = game.status !== "active"
    ? "The game is over."
    : game.your_turn
      ? "Your turn."
      : `Waiting for ${seatName(game, view.current)}.`;
  const parts = [
    h("p", { class: "bz-variant" }, h("strong", {}, variant),
      columns > 1 ? ` — column 2 scores double${columns > 2 ? ", column 3 triple" : ""}` : " — one column"),
    h("p", { class: "bz-turn", "data-testid": "turn" }, turnLine),
  ];
  if (local.moves.length) {
    parts.splice(1, 0, h("p", { class: "bz-last", "data-testid": "last" }, "Last: ", local.moves.join(" ")));
  }

  // -- the dice --------------------------------------------------------------------------------
  if (view.dice.length) {
    const owner = view.current === me ? "Your dice" : `${seatName(game, view.current)}'s dice`;
    parts.push(
      h("h2", { class: "bz-h" }, owner),
      h(
        "div",
        { class: "dice bz-dice", role: "group", "aria-label": myTurn ? "Dice: select the ones to re-roll" : "Dice" },
        view.dice.map((face, i) => {
          if (!canReroll) return die(face, { label: `die ${i + 1} showing ${face}` });
          const selected = local.selected.has(i);
          const button = die(face, {
            selected,
            label: `die ${i + 1} showing ${face}${selected ? ", selected for re-roll" : ""}`,
            onclick: () => {
              if (local.selected.has(i)) local.selected.delete(i);
              else local.selected.add(i);
              redraw(`die-${i}`);
            },
          });
          button.dataset.key = `die-${i}`;
          button.dataset.index = String(i);
          return button;
        }),
      ),
    );
  }

  if (myTurn) {
    const left = view.rerolls_left;
    const chosen = local.choice;
    const choiceText = chosen
      ? `${TITLES[chosen.box]}${columns > 1 ? ` in column ${chosen.column}` : ""} would score ${preview(view.cards[me], view.dice, ruleset, chosen.box, chosen.column)}.`
      : "Click an open box on your card to see what it would score.";
    parts.push(
      h("p", { class: "bz-rerolls", "data-testid": "rerolls-left" },
        left > 0
          ? `${left} re-roll${left === 1 ? "" : "s"} left. A re-roll is final: the old dice are gone for good.`
          : "No re-rolls left: choose a box to score."),
      h("div", { class: "bz-controls" },
        h("button", {
          type: "button",
          "data-key": "reroll",
          disabled: !canReroll || local.selected.size === 0,
          onclick: () => {
            const positions = [...local.selected].sort((a, b) => a - b);
            if (positions.length) {
              local.refocus = { key: "die-0", after: game.version };
              ctx.post({ type: "reroll", positions });
            }
          },
        }, "Re-roll selected dice"),
        h("button", {
          type: "button",
          "data-key": "confirm",
          disabled: !chosen,
          onclick: () => {
            if (local.choice) {
              local.refocus = { key: "die-0", after: game.version };
              ctx.post({ type: "score", box: local.choice.box, column: local.choice.column });
            }
          },
        }, chosen ? `Confirm ${TITLES[chosen.box]}${columns > 1 ? ` (column ${chosen.column})` : ""}` : "Confirm"),
        h("button", {
          type: "button",
          class: "secondary",
          "data-key": "start-over",
          onclick: () => {
            local.selected.clear();
            local.choice = null;
            redraw("start-over");
            ctx.say("Move started over: nothing selected.");
          },
        }, "Start this move over"),
      ),
      h("p", { class: "bz-choice", "aria-live": "polite", "data-testid": "choice" }, choiceText),
    );
  }

  // -- the cards -------------------------------------------------------------------------------
  const order = game.seats.map((_, i) => i);
  if (me !== null && me !== undefined) order.sort((a, b) => (a === me ? -1 : b === me ? 1 : a - b));
  const cards = h("div", { class: "bz-cards" });
  for (const seat of order) {
    cards.append(cardTable(seat));
  }
  parts.push(cards);

  if (game.status !== "active" && game.result) {
    const best = Math.max(...view.totals);
    const winners = order.filter((s) => view.totals[s] === best).map((s) => seatName(game, s));
    parts.push(h("p", { class: "bz-result", "data-testid": "result" },
      `Final: ${winners.join(" and ")} win${winners.length === 1 && !winners[0].endsWith("(you)") ? "s" : ""} with ${best}.`));
  }
  root.append(...parts);
  if (local.refocus && game.version > local.refocus.after) {
    // After a move the board is drawn anew: put the keyboard back on the dice (or the boxes).
    const target = root.querySelector(`[data-key="${local.refocus.key}"]`) ?? root.querySelector(".bz-box");
    if (target) {
      // The same game may be drawn twice (the push socket and the move's answer race).
      target.focus();
      const done = local.refocus;
      setTimeout(() => { if (local.refocus === done) local.refocus = null; }, 1500);
    }
  }

  function cardTable(seat) {
    const card = view.cards[seat];
    const mine = seat === me && myTurn;
    const head = h("tr", {}, h("th", { scope: "col" }, "Box"),
      ...card.boxes.map((_, k) => h("th", { scope: "col", class: "num" }, columns > 1 ? `×${k + 1}` : "Score")));
    const rows = [];
    BOXES.forEach((box, i) => {
      rows.push(h("tr", { class: i === 5 ? "bz-last-upper" : null },
        h("th", { scope: "row" }, TITLES[box]),
        ...card.boxes.map((column, k) => cell(seat, card, box, i, column, k + 1, mine))));
      if (i === 5) {
        rows.push(
          h("tr", { class: "bz-sub" }, h("th", { scope: "row" }, columns > 1 ? "Upper subtotal, unmultiplied (63 for bonus)" : "Upper subtotal (63 for bonus)"),
            ...card.boxes.map((column) => h("td", { class: "num" }, `${upperOf(column)} / 63`))),
          h("tr", { class: "bz-sub" }, h("th", { scope: "row" }, "Bonus"),
            ...card.boxes.map((column) => h("td", { class: "num" }, String(bonusOf(column))))),
        );
      }
    });
    rows.push(h("tr", { class: "bz-sub" }, h("th", { scope: "row" }, "Column total"),
      ...card.boxes.map((column, k) => h("td", { class: "num" }, String(columnTotal(column, k + 1))))));
    if (card.extra_bonuses) {
      rows.push(h("tr", { class: "bz-sub" }, h("th", { scope: "row" }, "Extra Boatzee bonuses"),
        h("td", { class: "num", colspan: columns }, String(EXTRA_BONUS * card.extra_bonuses))));
    }
    const current = game.status === "active" && seat === view.current;
    return h("section", { class: `bz-card${current ? " bz-current" : ""}`, "data-seat": seat },
      h("table", {},
        h("caption", {}, seatName(game, seat), current ? " — to play" : ""),
        h("thead", {}, head),
        h("tbody", {}, rows),
        h("tfoot", {}, h("tr", {}, h("th", { scope: "row" }, "TOTAL SCORE"),
          h("td", { class: "num bz-total", colspan: columns, "data-testid": `total-${seat}` }, String(view.totals[seat]))))));
  }

  function cell(seat, card, box, i, column, k, mine) {
    const value = column[i];
    const where = columns > 1 ? ` column ${k}` : "";
    if (value !== null) {
      return h("td", { class: "num bz-filled" }, String(k * value));
    }
    if (!mine || !canScore.has(`${box}:${k}`)) return h("td", { class: "num bz-open" }, "");
    const chosen = local.choice && local.choice.box === box && local.choice.column === k;
    const points = preview(card, view.dice, ruleset, box, k);
    const key = `box-${box}-${k}`;
    return h("td", { class: "num bz-open" },
      h("button", {
        type: "button",
        class: `bz-box${chosen ? " chosen" : ""}`,
        "data-key": key,
        "data-box": box,
        "data-column": k,
        "aria-pressed": chosen ? "true" : "false",
        "aria-label": `${TITLES[box]}${where}${chosen ? `: would score ${points}` : ": see its score"}`,
        onclick: () => {
          local.choice = { box, column: k };
          redraw(key);
          ctx.say("");
        },
      }, chosen ? String(points) : "\u00a0"));
  }
}

/** The hint panel: the best choices with their expected final totals. */
export function renderHint(root, hint, game) {
  const lines = [];
  if (hint.summary) lines.push(document.createElement("p"));
  if (hint.summary) lines[0].textContent = hint.summary;
  const list = document.createElement("ol");
  for (const choice of hint.choices ?? []) {
    const item = document.createElement("li");
    item.textContent = choice.text;
    list.append(item);
  }
  if (list.children.length) lines.push(list);
  if (hint.note) {
    const note = document.createElement("p");
    note.className = "hint-note";
    note.textContent = hint.note;
    lines.push(note);
  }
  root.append(...lines);
  void game;
}
