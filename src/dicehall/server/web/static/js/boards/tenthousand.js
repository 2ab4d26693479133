// The Ten Thousand board: the latest roll, selecting scoring dice with the points of the
// selection shown live (only a legal set-aside can be confirmed), the turn total, bank or
// roll on, every seat's banked total, the entry threshold and the final round explained, and
// the stakes ledger (ante, zero-out penalties, the pot and its shares).

const local = { key: null, selected: new Set(), refocus: null, fresh: false, gameId: null };

/** The board's keys (the "Keys" help); controls carry them as data-shortcut. */
export const KEYS = [
  ["1 to 6", "select or unselect that die of the roll"],
  ["s", "set the selected dice aside"],
  ["Esc", "clear the selection"],
  ["b", "bank the turn total"],
  ["r", "roll the dice left on"],
];

const cents = (n) => (n >= 100 ? `$${(n / 100).toFixed(2)}` : `${n}¢`);
const faces = (dice) => dice.join(" ");
const sortedKey = (dice) => [...dice].sort((a, b) => a - b).join(",");

export function render(root, game, ctx) {
  const { h, die, seatName } = ctx;
  const key = `${game.id}:${game.version}`;
  const s = game.view.state;
  if (local.key !== key) {
    // A new version in the set-aside phase is a new roll: every die of it was just rolled
    // (nothing on a first drawing: the page does not know what it showed before).
    local.fresh = local.gameId === game.id && s.phase === "set_aside" && s.dice.length > 0;
    local.gameId = game.id;
    local.key = key;
    local.selected = new Set();
  }
  const opts = s.options;
  const me = game.my_seat;
  const myTurn = game.your_turn;
  const setAsides = game.legal.filter((a) => a.type === "set_aside");
  const byDice = new Map(setAsides.map((a) => [sortedKey(a.dice), a]));
  const canBank = game.legal.some((a) => a.type === "bank");
  const canRoll = game.legal.some((a) => a.type === "roll_on");
  const selecting = myTurn && s.phase === "set_aside";
  const who = (seat) => seatName(game, seat);

  const redraw = (focusKey) => {
    root.replaceChildren();
    render(root, game, ctx);
    if (focusKey) root.querySelector(`[data-key="${focusKey}"]`)?.focus();
  };

  const parts = [];
  // -- what just happened ------------------------------------------------------------------------
  if (s.last) {
    const l = s.last;
    const name = who(l.seat);
    let text;
    if (l.zero_roll && l.zero_roll.length) {
      const costs = [];
      if (l.lost) costs.push(`lost ${l.lost} points`);
      if (l.penalty) costs.push(`paid ${cents(l.penalty)} into the pot`);
      text = `${name} zeroed out on ${faces(l.zero_roll)}`
        + (costs.length ? `: ${costs.join(" and ")}` : "") + ".";
    } else {
      text = `${name} banked ${l.banked} points.`;
    }
    parts.push(h("p", { class: "tt-last", "data-testid": "last" }, `Last turn: ${text}`));
  }

  const turnLine = game.status !== "active"
    ? "The game is over."
    : myTurn ? "Your turn." : `Waiting for ${who(s.current)}.`;
  parts.push(h("p", { class: "tt-turn", "data-testid": "turn" }, turnLine));

  // -- the turn in progress ---------------------------------------------------------------------
  if (game.status === "active") {
    const owner = s.current === me ? "Your turn" : `${who(s.current)}'s turn`;
    const turn = h("section", { class: "tt-turnbox", "aria-label": "The turn in progress" },
      h("h2", { class: "tt-h" }, owner, ": ",
        h("span", { "data-testid": "turn-total" }, `${s.turn_total} points`), " so far"));
    if (s.kept.length) {
      turn.append(h("p", { class: "tt-kept" }, "Set aside this turn: ",
        ...s.kept.map((group, i) => h("span", { class: "tt-group" },
          group.map((f) => die(f, { label: `set aside ${f}` })), i < s.kept.length - 1 ? " " : ""))));
    }
    if (s.dice.length && (s.phase === "set_aside" || s.phase === "choose")) {
      const label = s.phase === "set_aside"
        ? (selecting ? "The roll: select the scoring dice to set aside" : "The roll")
        : "The roll (dice set aside from it are greyed)";
      const keptNow = s.phase === "choose" && s.kept.length ? [...s.kept[s.kept.length - 1]] : [];
      const dice = s.dice.map((face, i) => {
        if (selecting) {
          const selected = local.selected.has(i);
          const b = die(face, {
            selected,
            fresh: local.fresh,
            label: `die ${i + 1} showing ${face}${selected ? ", selected" : ""}`,
            onclick: () => {
              if (local.selected.has(i)) local.selected.delete(i);
              else local.selected.add(i);
              redraw(`die-${i}`);
            },
          });
          b.dataset.key = `die-${i}`;
          b.dataset.index = String(i);
          b.dataset.shortcut = String(i + 1);
          return b;
        }
        const at = keptNow.indexOf(face);
        const wasKept = at >= 0;
        if (wasKept) keptNow.splice(at, 1);
        const fresh = local.fresh && s.phase === "set_aside";
        const d = die(face, { label: `die showing ${face}${wasKept ? ", set aside" : ""}`, fresh });
        if (wasKept) d.classList.add("tt-used");
        return d;
      });
      turn.append(h("div", { class: "dice tt-dice", role: "group", "aria-label": label }, dice));
    }
    if (selecting) {
      const chosen = [...local.selected].map((i) => s.dice[i]);
      const match = chosen.length ? byDice.get(sortedKey(chosen)) : null;
      const line = chosen.length === 0
        ? "Select the dice to set aside: every one of them must score."
        : match
          ? `Selected ${faces([...chosen].sort())}: ${match.points} points (turn total would be ${s.turn_total + match.points}).`
          : `Selected ${faces([...chosen].sort())}: not a set-aside, every die set aside must score.`;
      turn.append(
        h("p", { class: `tt-selection${chosen.length && !match ? " tt-bad" : ""}`, "aria-live": "polite", "data-testid": "selection" }, line),
        h("div", { class: "tt-controls" },
          h("button", {
            type: "button",
            "data-key": "set-aside",
            "data-shortcut": "s",
            disabled: !match,
            onclick: () => {
              if (match) { local.refocus = { after: game.version }; ctx.post({ type: "set_aside", dice: match.dice }); }
            },
          }, match ? `Set aside for ${match.points}` : "Set aside selected dice"),
          h("button", {
            type: "button",
            class: "secondary",
            "data-key": "clear",
            "data-shortcut": "Escape",
            disabled: chosen.length === 0,
            onclick: () => { local.selected.clear(); redraw("clear"); },
          }, "Clear selection")),
        h("p", { class: "tt-options" }, "Scoring set-asides from this roll: ",
          setAsides.map((a) => `${faces(a.dice)} = ${a.points}`).join("; "), "."),
      );
    }
    if (myTurn && s.phase === "choose") {
      turn.append(h("div", { class: "tt-controls" },
        h("button", {
          type: "button",
          "data-key": "bank",
          "data-shortcut": "b",
          disabled: !canBank,
          onclick: () => { local.refocus = { after: game.version }; ctx.post({ type: "bank" }); },
        }, `Bank ${s.turn_total}`),
        h("button", {
          type: "button",
          class: "secondary",
          "data-key": "roll-on",
          "data-shortcut": "r",
          disabled: !canRoll,
          onclick: () => { local.refocus = { after: game.version }; ctx.post({ type: "roll_on" }); },
        }, s.in_hand === 6 && s.kept.length ? "Hot dice! Roll all 6 again" : `Roll ${s.in_hand} ${s.in_hand === 1 ? "die" : "dice"} on`)));
      if (!canBank) {
        // Only the entry threshold ever stops a bank (the rules' legal list decides).
        turn.append(h("p", { class: "tt-note", "data-testid": "entry-note" },
          `You cannot bank yet: your first bank must be at least ${opts.entry_threshold} points in one turn.`));
      }
    }
    parts.push(turn);
  }

  // -- rules on the board -----------------------------------------------------------------------
  const final = s.phase === "over"
    ? `The final round is over: ${s.final_trigger !== null ? `${who(s.final_trigger)} reached ${opts.target} first and ` : ""}the highest bank won.`
    : s.final_trigger !== null && s.final_trigger !== undefined
    ? `Final round: ${who(s.final_trigger)} reached ${opts.target}; ${s.final_left} more turn${s.final_left === 1 ? "" : "s"} to go, then the highest bank wins.`
    : `First to bank ${opts.target} starts the final round: every other player gets one more turn, then the highest bank wins.`;
  parts.push(h("ul", { class: "tt-rules" },
    h("li", { "data-testid": "entry-rule" }, opts.entry_threshold > 0
      ? `Getting in: a player's first bank must be at least ${opts.entry_threshold} points in one turn; after that any total may be banked.`
      : "Getting in: no entry threshold in this game, any turn total may be banked."),
    h("li", { "data-testid": "final-rule" }, final),
    h("li", {}, "After every roll set aside at least one scoring die; a roll with nothing that scores zeroes the turn.")));

  // -- the table --------------------------------------------------------------------------------
  const over = game.status !== "active";
  const rows = game.seats.map((_, seat) => h("tr", { class: seat === s.current && !over ? "tt-current" : null, "data-seat": seat },
    h("th", { scope: "row" }, who(seat), seat === s.current && !over ? " (to play)" : ""),
    h("td", { class: "num", "data-testid": `banked-${seat}` }, String(s.banked[seat])),
    h("td", {}, s.banked[seat] > 0 ? "in" : "not yet"),
    h("td", { class: "num" }, cents(s.paid[seat])),
    h("td", { class: "num" }, s.payouts.length ? cents(s.payouts[seat]) : "—")));
  parts.push(h("table", { class: "tt-table" },
    h("caption", {}, `Banked totals (target ${opts.target}) and the stakes`),
    h("thead", {}, h("tr", {},
      h("th", { scope: "col" }, "Player"), h("th", { scope: "col", class: "num" }, "Banked"),
      h("th", { scope: "col" }, "Entered"), h("th", { scope: "col", class: "num" }, "Paid in"),
      h("th", { scope: "col", class: "num" }, "Share of pot"))),
    h("tbody", {}, rows),
    h("tfoot", {}, h("tr", {}, h("th", { scope: "row" }, "Pot"),
      h("td", { class: "num", colspan: 4, "data-testid": "pot" }, cents(s.paid.reduce((a, b) => a + b, 0)))))));
  parts.push(h("p", { class: "tt-stakes" },
    `Stakes (shown, never charged): everyone antes ${cents(opts.ante)}; after getting in, each zero-out adds ${cents(opts.zero_penalty)}; the winners share the pot.`));

  // A finished game's result is drawn by the board frame, in one format for every game.
  root.append(...parts);
  if (local.refocus && game.version > local.refocus.after) {
    // After a move the board is drawn anew: put the keyboard on the next thing to do.
    const target = root.querySelector('[data-key="die-0"], [data-key="bank"]:not([disabled]), [data-key="roll-on"]');
    if (target) {
      // The same game may be drawn twice (the push socket and the move's answer race).
      target.focus();
      const done = local.refocus;
      setTimeout(() => { if (local.refocus === done) local.refocus = null; }, 1500);
    }
  }
}

/** The hint panel: the best set-aside, or bank / roll on, from the strategy module. */
export function renderHint(root, hint, game) {
  const p = document.createElement("p");
  p.textContent = hint.summary ?? "No advice right now.";
  root.append(p);
  if (hint.choices?.length) {
    const list = document.createElement("ol");
    for (const c of hint.choices) {
      const li = document.createElement("li");
      li.textContent = c.text;
      list.append(li);
    }
    root.append(list);
  }
  if (hint.note) {
    const note = document.createElement("p");
    note.className = "hint-note";
    note.textContent = hint.note;
    root.append(note);
  }
  void game;
}
