// The Hold'em Dice board: my pocket (others' pockets as backs), the community dice in colour
// with the colour also written under each die, stacks, bets, the pot and side pots, the legal
// actions with their amounts, and the last hand's showdown with each winning five highlighted.

const COLOUR = { r: "red", k: "black", w: "white", y: "yellow" };
const CATEGORY = {
  nothing: "nothing",
  one_pair: "one pair",
  two_pair: "two pair",
  three_kind: "three of a kind",
  full_house: "full house",
  straight: "straight",
  four_kind: "four of a kind",
  flush: "flush",
  five_kind: "Yahtzee (five of a kind)",
  straight_flush: "straight flush",
  yahtzee_flush: "Yahtzee flush",
};
// The chosen bet/raise amounts survive a re-render of the same version (a push refresh).
// `dealt` is what the last drawing showed, to mark the dice dealt since (`freshBoard`, `freshPocket`).
const local = { key: null, amount: {}, gameId: null, dealt: null, freshBoard: new Set(), freshPocket: false };

/** The board's keys (the "Keys" help); controls carry them as data-shortcut. */
export const KEYS = [
  ["k", "check"],
  ["c", "call"],
  ["b", "bet the amount chosen"],
  ["r", "raise by the amount chosen"],
  ["a", "all-in"],
  ["f", "fold"],
];

/** Mark the dice dealt since the last drawing: new community dice, a new hand's pocket. */
function markDealt(game, v) {
  const now = { hand: v.hand, board: v.board.join(","), count: v.board.length };
  const before = local.dealt;
  const seen = local.gameId === game.id && before !== null;
  local.gameId = game.id;
  local.dealt = now;
  local.freshBoard = new Set();
  local.freshPocket = false;
  if (!seen || game.status !== "active") return;
  const all = v.board.map((_, i) => i);
  if (now.hand !== before.hand) {
    local.freshPocket = true;
    local.freshBoard = new Set(all);
  } else if (now.board !== before.board) {
    const added = now.count > before.count && now.board.startsWith(before.board);
    local.freshBoard = new Set(added ? all.slice(before.count) : all); // else the flop rolled again
  }
}

const STREET = { open: "The Open", flop: "The Flop", turn: "The Turn", river: "The River" };

const parse = (d) => ({ face: Number(d[0]), colour: d[1] });
const named = (d) => `${d[0]} ${COLOUR[d[1]] ?? d[1]}`;

/** A coloured die with its colour in words beneath it (colour is never the only cue). */
function cdie(h, die, notation, { extra = "", cls = "", fresh = false } = {}) {
  const { face, colour } = parse(notation);
  const el = die(face, { colour, label: `${named(notation)} die${extra}`, fresh });
  return h("span", { class: `hd-die ${cls}`.trim(), "data-die": notation },
    el, h("span", { class: "hd-cap", "aria-hidden": "true" }, COLOUR[colour] ?? colour));
}

function back(h, label) {
  return h("span", { class: "hd-die" },
    h("span", { class: "die hd-back", role: "img", "aria-label": label }, ""),
    h("span", { class: "hd-cap", "aria-hidden": "true" }, "hidden"));
}

/** Positions in `seven` of the dice in the multiset `five`. */
function positionsOf(seven, five) {
  const left = [...five];
  const out = new Set();
  seven.forEach((d, i) => {
    const at = left.indexOf(d);
    if (at >= 0) {
      left.splice(at, 1);
      out.add(i);
    }
  });
  return out;
}

export function render(root, game, ctx) {
  const { h, die, seatName } = ctx;
  const key = `${game.id}:${game.version}`;
  if (local.key !== key) {
    local.key = key;
    local.amount = {};
    markDealt(game, game.view);
  }
  const v = game.view;
  const me = game.my_seat;
  const who = (seat) => seatName(game, seat);
  const seats = v.stacks.length;
  const parts = [];
  const totalPot = v.pots.reduce((n, p) => n + p.amount, 0);

  // -- whose turn ------------------------------------------------------------------------------
  let turnLine;
  if (game.status !== "active") {
    turnLine = "The game is over.";
  } else if (game.your_turn) {
    turnLine = v.to_call ? `Your turn: ${v.to_call} to call.` : "Your turn: nothing to call.";
  } else if (v.to_act !== null && v.to_act !== undefined) {
    turnLine = `Waiting for ${who(v.to_act)}.`;
  } else {
    turnLine = "Dealing…";
  }
  parts.push(h("p", { class: "hd-turn", "data-testid": "turn" }, turnLine));

  // -- the table -------------------------------------------------------------------------------
  if (game.status === "active") {
    parts.push(h("section", { class: "hd-street", "aria-label": "This hand" },
      h("h2", { class: "hd-h" }, `Hand ${v.hand} · ${STREET[v.street] ?? v.street}`),
      h("p", { class: "hd-meta" },
        `Bets this street: ${v.limit} at most, in steps of 10; `
        + `raises ${v.raises} of ${v.max_raises}.`
        + (v.rerolls ? ` The flop has been re-rolled ${v.rerolls} time${v.rerolls === 1 ? "" : "s"} (everyone checked).` : "")),
      h("h3", { class: "hd-h3" }, "Community dice"),
      h("div", { class: "dice hd-board", "data-testid": "community" },
        v.board.length ? v.board.map((d, i) => cdie(h, die, d, { fresh: local.freshBoard.has(i) })) : h("p", { class: "hd-meta" }, "None yet: the flop brings three.")),
      h("h3", { class: "hd-h3" }, "Pots"),
      h("ul", { class: "hd-pots", "data-testid": "pots" },
        v.pots.map((p, i) => h("li", {},
          h("strong", {}, `${i === 0 ? "Main pot" : `Side pot ${i}`}: ${p.amount}`),
          ` (for ${p.eligible.map(who).join(", ")})`))),
      h("p", { class: "hd-meta" }, `In the middle: ${totalPot}.`),
    ));
  }

  // -- seats -----------------------------------------------------------------------------------
  const shown = new Map((v.last?.showdown ?? []).map((s) => [s.seat, s]));
  const rows = [];
  for (let seat = 0; seat < seats; seat += 1) {
    let state = "";
    if (v.out[seat]) state = "out";
    else if (v.folded[seat]) state = "folded";
    else if (v.stacks[seat] === 0 && game.status === "active") state = "all-in";
    if (game.status === "active" && v.to_act === seat) state = state ? `${state}, to act` : "to act";
    let pocket;
    if (v.out[seat] || game.status !== "active") pocket = "—";
    else if (seat === me) pocket = h("span", { class: "hd-pocket", "data-testid": "my-pocket" }, v.pocket.map((d) => cdie(h, die, d, { extra: " in your pocket", fresh: local.freshPocket })));
    else pocket = h("span", { class: "hd-pocket" }, [1, 2].map((n) => back(h, `${who(seat)}'s hidden pocket die ${n}`)));
    rows.push(h("tr", { class: `${seat === v.to_act && game.status === "active" ? "hd-current" : ""}${v.folded[seat] || v.out[seat] ? " hd-folded" : ""}`.trim() || null, "data-testid": `seat-${seat}` },
      h("th", { scope: "row" }, who(seat), seat === v.dealer ? h("span", { class: "hd-button", title: "dealer", "aria-label": "dealer" }, "D") : null),
      h("td", { class: "num", "data-testid": `stack-${seat}` }, v.stacks[seat]),
      h("td", { class: "num" }, v.round_bets[seat]),
      h("td", { class: "num" }, v.contributions[seat]),
      h("td", {}, pocket),
      h("td", {}, state),
    ));
  }
  parts.push(h("table", { class: "hd-seats" },
    h("caption", {}, "Seats"),
    h("thead", {}, h("tr", {},
      ["Player", "Stack", "Bet this street", "In the pot", "Pocket", "Status"].map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, rows),
  ));

  // -- my actions ------------------------------------------------------------------------------
  if (game.your_turn && game.legal.length) parts.push(actions(h, game, ctx));

  // -- the last hand ---------------------------------------------------------------------------
  if (v.last) parts.push(lastHand(h, die, who, v.last, shown));

  parts.push(h("details", { class: "hd-rules" },
    h("summary", {}, "How a hand goes"),
    h("ul", {},
      h("li", {}, "Everyone antes 10 and gets two pocket dice only they see; then a betting round."),
      h("li", {}, "The flop (three community dice), the turn (one), the river (one), each followed by betting. If everyone checks on the flop, the flop is rolled again."),
      h("li", {}, "Bets and raises go in steps of 10: up to 10 in the Open and Flop, up to 20 in the Turn and River, at most three raises a street."),
      h("li", {}, "Best five of your seven dice wins: Yahtzee flush > straight flush > Yahtzee > flush > four of a kind > straight > full house > three of a kind > two pair > pair."),
    ),
  ));
  root.append(...parts);
}

function actions(h, game, ctx) {
  const v = game.view;
  const me = game.my_seat;
  const legal = game.legal;
  const has = (t) => legal.find((a) => a.type === t);
  const bets = legal.filter((a) => a.type === "bet");
  const raises = legal.filter((a) => a.type === "raise");
  const box = h("section", { class: "hd-actions", "aria-label": "Your action" });
  const buttons = h("div", { class: "hd-controls" });
  const fold = has("fold");
  if (fold) buttons.append(h("button", { type: "button", class: "secondary", "data-testid": "fold", "data-shortcut": "f", onclick: () => ctx.post(fold) }, "Fold"));
  const check = has("check");
  // The keyboard lands on Check or Call, never on Fold.
  if (check) buttons.append(h("button", { type: "button", "data-testid": "check", "data-shortcut": "k", "data-autofocus": true, onclick: () => ctx.post(check) }, "Check"));
  const call = has("call");
  if (call) buttons.append(h("button", { type: "button", "data-testid": "call", "data-shortcut": "c", "data-autofocus": true, onclick: () => ctx.post(call) }, `Call ${v.to_call}`));
  const allIn = has("all_in");
  if (allIn) buttons.append(h("button", { type: "button", "data-testid": "all_in", "data-shortcut": "a", "data-autofocus": !check && !call, onclick: () => ctx.post(allIn) }, `All-in (${v.stacks[me]})`));
  box.append(buttons);
  for (const [list, word, label] of [[bets, "Bet", "Bet amount"], [raises, "Raise", "Raise by (on top of the call)"]]) {
    if (!list.length) continue;
    const id = `hd-${word.toLowerCase()}-amount`;
    const kind = word.toLowerCase();
    const select = h("select", { id, "data-testid": `${kind}-amount`, onchange: () => { local.amount[kind] = select.value; } },
      list.map((a) => h("option", { value: String(a.amount), selected: local.amount[kind] === String(a.amount) }, String(a.amount))));
    box.append(h("div", { class: "hd-amount" },
      h("label", { for: id }, label),
      select,
      h("button", {
        type: "button",
        "data-testid": word.toLowerCase(),
        "data-shortcut": kind === "bet" ? "b" : "r",
        onclick: () => {
          const chosen = list.find((a) => String(a.amount) === select.value);
          if (chosen) ctx.post(chosen);
        },
      }, word),
      h("span", { class: "hd-meta" }, `Allowed: ${list.map((a) => a.amount).join(", ")}.`),
    ));
  }
  return box;
}

function lastHand(h, die, who, last, shown) {
  const sec = h("section", { class: "hd-last", "aria-label": `Hand ${last.hand} result`, "data-testid": "last-hand" },
    h("h2", { class: "hd-h" }, `Hand ${last.hand}: the result`));
  const winners = new Set(last.pots.flatMap((p) => p.winners));
  if (!last.showdown.length) {
    const taker = [...winners][0];
    sec.append(h("p", { "data-testid": "last-summary" }, `${who(taker)} took ${last.pots.reduce((n, p) => n + p.amount, 0)} unseen: everyone else folded.`));
  } else {
    if (last.yahtzee_flush) sec.append(h("p", { class: "hd-big" }, "A Yahtzee flush! It ends the game at once."));
    for (const s of last.showdown) {
      const seven = [...s.pocket, ...last.board];
      const best = positionsOf(seven, s.five);
      const won = winners.has(s.seat);
      sec.append(h("div", { class: `hd-show${won ? " hd-won" : ""}`, "data-testid": `showdown-${s.seat}` },
        h("p", {}, h("strong", {}, who(s.seat)), `: ${CATEGORY[s.category] ?? s.category}${won ? " (won)" : ""}`),
        h("div", { class: "dice hd-seven" }, seven.map((d, i) => [
          i === s.pocket.length ? h("span", { class: "hd-sep", "aria-hidden": "true" }, "board:") : null,
          i === 0 ? h("span", { class: "hd-sep", "aria-hidden": "true" }, "pocket:") : null,
          cdie(h, die, d, {
            extra: `${i < s.pocket.length ? " (pocket)" : " (board)"}${best.has(i) ? ", in the best five" : ""}`,
            cls: best.has(i) ? "hd-five" : "hd-unused",
          }),
        ])),
        h("p", { class: "hd-meta" }, "Outlined in green: the best five."),
      ));
    }
  }
  sec.append(h("ul", { class: "hd-pots" }, last.pots.map((p, i) => h("li", {},
    `${i === 0 ? "Main pot" : `Side pot ${i}`} ${p.amount}: `,
    p.winners.map((w, j) => `${who(w)} ${p.shares[j]}`).join(", ")))));
  if (last.eliminated.length) sec.append(h("p", {}, `Out of chips: ${last.eliminated.map(who).join(", ")}.`));
  return sec;
}

export function renderHint(root, hint) {
  const p = (text) => {
    const el = document.createElement("p");
    el.textContent = text;
    return el;
  };
  const pct = (x) => `${(100 * x).toFixed(1)}%`;
  if (hint.kind !== "equity") {
    root.append(p(hint.note ?? "No hint now."));
    return;
  }
  const needed = hint.to_call ? hint.to_call / (hint.pot + hint.to_call) : 0;
  root.append(
    p(`Against ${hint.opponents} opponent${hint.opponents === 1 ? "" : "s"}: you win ${pct(hint.win)}, tie ${pct(hint.tie)}; your expected share of the pot is ${pct(hint.share)}${hint.exact ? " (exact)" : ` (estimated from ${hint.samples} deals)`}.`),
    hint.to_call ? p(`Calling ${hint.to_call} into ${hint.pot} needs a share of at least ${pct(needed)} to break even.`) : p("Nothing to call."),
  );
}
