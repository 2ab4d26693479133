// The Boatzee board (Boatzee, Double and Triple Boatzee), as the seed's site plays it:
// click dice to select them for a re-roll (red border; click again to unselect), "Re-roll
// selected dice" (permanent), click an open box to see what it would score, "Confirm" to
// score it, "Start this move over" to clear the selection and the unconfirmed choice (never
// the dice). Every seat's card is shown with each column's upper subtotal, bonus and total.
// With the confirm_moves setting off (<html data-confirm="false">) every open box shows what
// it would score and one click scores it: no Confirm.
// The board only draws: what a box would score comes with its legal `score` action, and
// every figure of a card (shown points, subtotals, bonuses, totals) comes with the view.

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

// What this browser is doing with the current move; reset whenever the game moves on.
// `roll` is the dice last drawn (to tell the dice just rolled), `rerolled` the positions of
// my own re-roll in flight, `fresh` the positions drawn as new at this version.
const local = {
  key: null, selected: new Set(), choice: null, refocus: null, sheets: null, moves: [],
  roll: null, rerolled: null, fresh: new Set(),
};

/** The board's keys (the "Keys" help); controls carry them as data-shortcut. */
export const KEYS = [
  ["1 to 5", "select or unselect that die for a re-roll"],
  ["r", "re-roll the selected dice"],
  ["Tab, Enter", "choose an open box of your card (it shows what it would score)"],
  ["c", "confirm the chosen box (with one-click scoring set, Enter on a box scores it)"],
  ["Esc", "start this move over"],
];

const filled = (sheet) => sheet.boxes.flat().filter((value) => value !== null).length;

/** The dice rolled since this page last drew the game: all five on a fresh turn, else the
 * positions of my own re-roll, else (another seat's re-roll) the dice whose face changed. */
function freshDice(game) {
  const view = game.view;
  const now = { gameId: game.id, current: view.current, left: view.rerolls_left, dice: view.dice,
    filled: filled(view.sheets[view.current]) };
  const before = local.roll;
  local.roll = now;
  const mine = local.rerolled;
  local.rerolled = null;
  if (!before || before.gameId !== now.gameId || now.dice.length !== 5) return new Set();
  const sameTurn = before.current === now.current && before.filled === now.filled
    && before.dice.length === 5 && before.left >= now.left;
  if (!sameTurn) return new Set([0, 1, 2, 3, 4]);
  if (before.left === now.left) return new Set();
  if (mine) return new Set(mine);
  return new Set(now.dice.flatMap((face, i) => (face !== before.dice[i] ? [i] : [])));
}

const positionsKey = (positions) => [...positions].sort((a, b) => a - b).join(",");

/** What the legal `score` action says taking its box does: the box's points, then bonuses. */
function worth(action) {
  const extras = [];
  if (action.upper_bonus) extras.push(`+${action.upper_bonus} upper bonus`);
  if (action.extra_bonus) extras.push(`+${action.extra_bonus} Boatzee bonus`);
  return extras.length ? `${action.points} (${extras.join(", ")})` : String(action.points);
}

function sameMove(game, seatName) {
  const key = `${game.id}:${game.version}`;
  if (local.key === key) return;
  local.key = key;
  local.selected = new Set();
  local.choice = null;
  local.fresh = game.view.dice.length === 5 ? freshDice(game) : new Set();
  // What the other seats scored since this page last drew the game.
  const before = local.sheets;
  const now = game.view.sheets;
  if (before && before.gameId === game.id) {
    const moves = [];
    now.forEach((sheet, seat) => {
      if (seat === game.my_seat) return;
      sheet.boxes.forEach((column, k) => column.forEach((value, i) => {
        if (value !== null && before.sheets[seat]?.boxes[k][i] === null) {
          const where = sheet.boxes.length > 1 ? ` (column ${k + 1})` : "";
          moves.push(`${seatName(game, seat)} scored ${value} in ${TITLES[BOXES[i]]}${where}.`);
        }
      }));
    });
    if (moves.length) local.moves = moves;
  }
  local.sheets = { gameId: game.id, sheets: now };
}

/** Whether a box is scored in one click (the confirm_moves setting is off). */
const oneClick = () => document.documentElement.dataset.confirm === "false";

export function render(root, game, ctx) {
  const { h, die, seatName } = ctx;
  sameMove(game, seatName);
  const quick = oneClick();
  if (quick) local.choice = null;
  const view = game.view;
  const columns = view.options.columns;
  const me = game.my_seat;
  const myTurn = game.your_turn && view.dice.length === 5;
  // Every choice is a legal action: a box is a button only when it is there (with its
  // points), and a selection of dice can be re-rolled only when it is there.
  const scores = new Map(
    game.legal.filter((a) => a.type === "score").map((a) => [`${a.box}:${a.column}`, a]),
  );
  const rerolls = new Map(
    game.legal.filter((a) => a.type === "reroll").map((a) => [positionsKey(a.positions), a]),
  );
  const canReroll = myTurn && rerolls.size > 0;
  const chosenAction = local.choice ? scores.get(`${local.choice.box}:${local.choice.column}`) : undefined;
  if (!chosenAction) local.choice = null;
  const rerollAction = rerolls.get(positionsKey(local.selected));

  const redraw = (focusKey) => {
    root.replaceChildren();
    render(root, game, ctx);
    if (focusKey) root.querySelector(`[data-key="${focusKey}"]`)?.focus();
  };

  // -- heading: variant, whose turn, re-rolls left -------------------------------------------
  // The variant's name as the server words it for these options.
  const variant = game.title;
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
          const fresh = local.fresh.has(i);
          if (!canReroll) return die(face, { label: `die ${i + 1} showing ${face}`, fresh });
          const selected = local.selected.has(i);
          const button = die(face, {
            selected,
            fresh,
            label: `die ${i + 1} showing ${face}${selected ? ", selected for re-roll" : ""}`,
            onclick: () => {
              if (local.selected.has(i)) local.selected.delete(i);
              else local.selected.add(i);
              redraw(`die-${i}`);
            },
          });
          button.dataset.key = `die-${i}`;
          button.dataset.index = String(i);
          button.dataset.shortcut = String(i + 1);
          return button;
        }),
      ),
    );
  }

  // Confirm comes after the boxes it confirms (under my card), so the keyboard reaches it
  // going forward from the box just chosen.
  let confirmBar = null;
  if (myTurn) {
    const left = view.rerolls_left;
    const chosen = local.choice;
    const choiceText = quick
      ? "Click an open box on your card to score it (each shows what it would score)."
      : chosen
      ? `${TITLES[chosen.box]}${columns > 1 ? ` in column ${chosen.column}` : ""} would score ${worth(chosenAction)}.`
      : "Click an open box on your card to see what it would score.";
    confirmBar = h("div", { class: "bz-confirm" },
      h("p", { class: "bz-choice", "aria-live": "polite", "data-testid": "choice" }, choiceText),
      quick ? null : h("div", { class: "bz-controls" },
        h("button", {
          type: "button",
          "data-key": "confirm",
          "data-shortcut": "c",
          disabled: !chosen,
          onclick: () => {
            if (chosenAction) {
              local.refocus = { key: "die-0", after: game.version };
              ctx.post(chosenAction);
            }
          },
        }, chosen ? `Confirm ${TITLES[chosen.box]}${columns > 1 ? ` (column ${chosen.column})` : ""}` : "Confirm")));
    parts.push(
      h("p", { class: "bz-rerolls", "data-testid": "rerolls-left" },
        left > 0
          ? `${left} re-roll${left === 1 ? "" : "s"} left. A re-roll is final: the old dice are gone for good.`
          : "No re-rolls left: choose a box to score."),
      h("div", { class: "bz-controls" },
        h("button", {
          type: "button",
          "data-key": "reroll",
          "data-shortcut": "r",
          disabled: !canReroll || !rerollAction,
          onclick: () => {
            if (rerollAction) {
              local.refocus = { key: "die-0", after: game.version };
              local.rerolled = [...rerollAction.positions];
              ctx.post(rerollAction);
            }
          },
        }, "Re-roll selected dice"),
        h("button", {
          type: "button",
          class: "secondary",
          "data-key": "start-over",
          "data-shortcut": "Escape",
          onclick: () => {
            local.selected.clear();
            local.choice = null;
            redraw("start-over");
            ctx.say("Move started over: nothing selected.");
          },
        }, "Start this move over"),
      ),
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

  // A finished game's result is drawn by the board frame, in one format for every game.
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
    const sheet = view.sheets[seat];
    const mine = seat === me && myTurn;
    const threshold = view.upper_bonus_threshold;
    const head = h("tr", {}, h("th", { scope: "col" }, "Box"),
      ...sheet.boxes.map((_, k) => h("th", { scope: "col", class: "num" }, columns > 1 ? `×${k + 1}` : "Score")));
    const rows = [];
    BOXES.forEach((box, i) => {
      rows.push(h("tr", { class: i === 5 ? "bz-last-upper" : null },
        h("th", { scope: "row" }, TITLES[box]),
        ...sheet.boxes.map((column, k) => cell(box, column[i], k + 1, mine))));
      if (i === 5) {
        rows.push(
          h("tr", { class: "bz-sub" }, h("th", { scope: "row" }, columns > 1 ? `Upper subtotal, unmultiplied (${threshold} for bonus)` : `Upper subtotal (${threshold} for bonus)`),
            ...sheet.upper.map((upper) => h("td", { class: "num" }, `${upper} / ${threshold}`))),
          h("tr", { class: "bz-sub" }, h("th", { scope: "row" }, "Bonus"),
            ...sheet.upper_bonus.map((bonus) => h("td", { class: "num" }, String(bonus)))),
        );
      }
    });
    rows.push(h("tr", { class: "bz-sub" }, h("th", { scope: "row" }, "Column total"),
      ...sheet.column_totals.map((total) => h("td", { class: "num" }, String(total)))));
    if (sheet.extra_bonus) {
      rows.push(h("tr", { class: "bz-sub" }, h("th", { scope: "row" }, "Extra Boatzee bonuses"),
        h("td", { class: "num", colspan: columns }, String(sheet.extra_bonus))));
    }
    const current = game.status === "active" && seat === view.current;
    return h("section", { class: `bz-card${current ? " bz-current" : ""}`, "data-seat": seat },
      h("table", {},
        h("caption", {}, seatName(game, seat), current ? " — to play" : ""),
        h("thead", {}, head),
        h("tbody", {}, rows),
        h("tfoot", {}, h("tr", {}, h("th", { scope: "row" }, "TOTAL SCORE"),
          h("td", { class: "num bz-total", colspan: columns, "data-testid": `total-${seat}` }, String(view.totals[seat]))))),
      mine ? confirmBar : null);
  }

  function cell(box, value, k, mine) {
    const where = columns > 1 ? ` column ${k}` : "";
    if (value !== null) {
      return h("td", { class: "num bz-filled" }, String(value));
    }
    const action = mine ? scores.get(`${box}:${k}`) : undefined;
    if (!action) return h("td", { class: "num bz-open" }, "");
    const chosen = local.choice && local.choice.box === box && local.choice.column === k;
    const points = action.points;
    const key = `box-${box}-${k}`;
    if (quick) {
      return h("td", { class: "num bz-open" },
        h("button", {
          type: "button",
          class: "bz-box bz-quick",
          "data-key": key,
          "data-box": box,
          "data-column": k,
          "aria-label": `${TITLES[box]}${where}: score ${worth(action)}`,
          onclick: () => {
            local.refocus = { key: "die-0", after: game.version };
            ctx.post(action);
          },
        }, String(points)));
    }
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
