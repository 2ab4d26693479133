// The Bull's Eye board: the round and its lead, the Bull's Eye as it is set, each seat's
// counted throws and total, stop or throw on with a bet (checked against the limit and the
// bank, with the reason next to the field), the pot, points per seat and past rounds.
// The board only draws: the scoring bands, what each of the lead's throws adds, what
// stopping now would score and how many dice the next throw uses all come with the view.

const local = { key: null, bet: "0", gameId: null, throw: null, fresh: new Set() };

/** The board's keys (the "Keys" help); controls carry them as data-shortcut. */
export const KEYS = [
  ["t", "throw again (or throw on)"],
  ["s", "stop (the lead: done)"],
  ["b", "go to the bet field (type the bet, then Tab to the buttons)"],
];

/** The positions of the throw on the table rolled since the last drawing: the matching dice
 * when only they were rolled again, else every die of a throw not seen before. */
function freshThrow(game, rnd) {
  const seen = local.gameId === game.id;
  const before = local.throw;
  const now = rnd && rnd.dice.length
    ? { number: rnd.number, thrower: rnd.thrower, throws: rnd.counted[rnd.thrower].length, dice: rnd.dice.join(","), rerolling: rnd.rerolling }
    : null;
  local.gameId = game.id;
  local.throw = now;
  if (!seen || !now) return new Set();
  const same = before && before.number === now.number && before.thrower === now.thrower && before.throws === now.throws;
  if (same && before.dice === now.dice) return new Set();
  if (same && before.rerolling.length) return new Set(before.rerolling);
  return new Set(rnd.dice.map((_, i) => i));
}

/** The scoring bands as a sentence: "Distance 0 scores 50, up to 3 scores 30, ..., more scores 0." */
function bandsText(bands) {
  const parts = bands.map((b) => `${b.distance === 0 ? "distance 0" : `up to ${b.distance}`} scores ${b.points}`);
  const text = [...parts, "more scores 0"].join(", ");
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

/** How many of a throw's dice count, in words (the highest ones count). */
const COUNTED = { 1: "the highest counts", 2: "the two highest count", 3: "all three count" };
const counted = (n) => COUNTED[n] ?? `the ${n} highest count`;

export function render(root, game, ctx) {
  const { h, die, seatName } = ctx;
  const key = `${game.id}:${game.version}`;
  if (local.key !== key) {
    local.key = key;
    local.bet = "0";
    local.fresh = freshThrow(game, game.view.round);
  }
  const v = game.view;
  const me = game.my_seat;
  const who = (seat) => seatName(game, seat);
  const seats = v.points.length;
  const rnd = v.round;
  const parts = [];

  // -- whose turn ------------------------------------------------------------------------------
  let turnLine;
  if (game.status !== "active") {
    turnLine = "The game is over.";
  } else if (rnd && game.your_turn) {
    turnLine = me === rnd.lead
      ? `Your turn: you are the lead, setting the Bull's Eye (${rnd.target} so far).`
      : `Your turn: your total is ${rnd.totals[me] ?? 0} against a Bull's Eye of ${rnd.target}.`;
  } else if (rnd) {
    turnLine = `Waiting for ${who(rnd.thrower)}.`;
  } else {
    turnLine = "Throwing for the first lead…";
  }
  parts.push(h("p", { class: "be-turn", "data-testid": "turn" }, turnLine));

  // -- the round -------------------------------------------------------------------------------
  const limit = v.rounds_limit;
  if (rnd) {
    parts.push(h("section", { class: "be-round", "aria-label": "This round" },
      h("div", { class: "be-figures" },
        h("div", { class: "be-figure" }, h("span", { class: "be-label" }, "Round"),
          h("strong", { "data-testid": "round" }, limit ? `${rnd.number} of ${limit}` : String(rnd.number))),
        h("div", { class: "be-figure be-target" }, h("span", { class: "be-label" }, rnd.target_set ? "Bull's Eye" : "Bull's Eye so far"),
          h("strong", { "data-testid": "target" }, String(rnd.target))),
        h("div", { class: "be-figure" }, h("span", { class: "be-label" }, "Pot"),
          h("strong", { "data-testid": "pot" }, String(v.pot))),
        h("div", { class: "be-figure" }, h("span", { class: "be-label" }, "Lead"),
          h("strong", {}, who(rnd.lead))),
      ),
      rnd.dice.length ? h("div", { class: "be-throw" },
        h("span", { class: "be-label" }, rnd.thrower === game.my_seat ? "Your throw: " : `${who(rnd.thrower)}'s throw: `),
        h("span", { class: "dice", "data-testid": "throw" }, rnd.dice.map((f, i) => {
          const again = rnd.rerolling.includes(i);
          const d = die(f, { label: `die showing ${f}${again ? ", matching: rolled again" : ""}`, fresh: local.fresh.has(i) });
          if (again) d.classList.add("be-again");
          return d;
        })),
        rnd.rerolling.length ? h("span", { class: "be-note" }, " matching dice are rolled again") : null,
      ) : null,
    ));
  } else if (v.lead_choice && game.status === "active") {
    parts.push(h("p", { class: "be-note" }, `Throwing for the first lead: ${v.lead_choice.contenders.map(who).join(", ")}.`));
  }

  // -- my choice -------------------------------------------------------------------------------
  if (rnd && game.your_turn && game.legal.length) parts.push(choice(h, game, ctx, rnd));

  // -- seats -----------------------------------------------------------------------------------
  const order = rnd ? rnd.order : [...Array(seats).keys()];
  if (!rnd) {
    parts.push(h("table", { class: "be-seats" },
      h("caption", {}, "Players"),
      h("thead", {}, h("tr", {}, ["Player", "Bank", "Points"].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, order.map((seat) => h("tr", { "data-testid": `seat-${seat}` },
        h("th", { scope: "row" }, who(seat)),
        h("td", { class: "num", "data-testid": `bank-${seat}` }, String(v.banks[seat])),
        h("td", { class: "num", "data-testid": `points-${seat}` }, String(v.points[seat])),
      ))),
    ));
  } else parts.push(h("div", { class: "be-scroll" }, h("table", { class: "be-seats" },
    h("caption", {}, "This round, in throwing order"),
    h("thead", {}, h("tr", {}, ["Player", "Throws", "Total", "Score", "Bet", "Bank", "Points"].map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, order.map((seat) => {
      const throws = rnd ? rnd.counted[seat] : [];
      const isLead = rnd && seat === rnd.lead;
      const total = !rnd ? "" : isLead ? `sets ${rnd.target}` : throws.length ? String(rnd.totals[seat]) : "";
      let score = "";
      if (rnd && !isLead && rnd.scores[seat] !== null && rnd.scores[seat] !== undefined) score = String(rnd.scores[seat]);
      else if (rnd && rnd.stop_scores[seat] !== null && rnd.stop_scores[seat] !== undefined) score = `(${rnd.stop_scores[seat]} if stops)`;
      return h("tr", { class: rnd && seat === rnd.thrower && game.status === "active" ? "be-current" : null, "data-testid": `seat-${seat}` },
        h("th", { scope: "row" }, who(seat), isLead ? [" ", h("span", { class: "be-lead" }, "lead")] : null),
        h("td", {}, h("span", { class: "be-throws" }, throws.map((t, i) => h("span", { class: "be-group", title: isLead ? `adds ${rnd.lead_adds[i]}` : null },
          t.map((f) => die(f, { label: `throw ${i + 1} die showing ${f}` })),
          isLead ? h("span", { class: "be-adds" }, `+${rnd.lead_adds[i]}`) : null)))),
        h("td", { class: "num" }, total),
        h("td", { class: "num" }, score),
        h("td", { class: "num" }, rnd ? String(rnd.bets[seat]) : ""),
        h("td", { class: "num", "data-testid": `bank-${seat}` }, String(v.banks[seat])),
        h("td", { class: "num", "data-testid": `points-${seat}` }, String(v.points[seat])),
      );
    })),
  )));

  // -- past rounds -----------------------------------------------------------------------------
  if (v.history.length) {
    parts.push(h("table", { class: "be-history", "data-testid": "history" },
      h("caption", {}, "Past rounds"),
      h("thead", {}, h("tr", {}, ["Round", "Lead", "Bull's Eye", "Totals (score)", "Pot"].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, [...v.history].reverse().map((r) => h("tr", {},
        h("td", {}, String(r.number)),
        h("td", {}, who(r.lead)),
        h("td", { class: "num" }, String(r.target)),
        h("td", {}, r.totals.map((t, s) => (t === null ? null : `${who(s)} ${t} (${r.scores[s]})`)).filter(Boolean).join("; ")),
        h("td", {}, r.pot
          ? `${r.pot}: ${r.won.map((w, s) => (w ? `${who(s)} +${w}` : null)).filter(Boolean).join(", ") || "carried over"}`
          : "0"),
      ))),
    ));
  }

  parts.push(h("details", { class: "be-rules" },
    h("summary", {}, "How a round goes"),
    h("ul", {},
      h("li", {}, "The lead throws three times: the first throw adds all three dice, the second its two highest, the third its highest. That is the Bull's Eye."),
      h("li", {}, "Everyone else in turn throws three dice, then may stop or throw two, then may stop or throw one; the total is every die thrown."),
      h("li", {}, "Matching dice in a throw are rolled again until all three differ."),
      h("li", {}, `${bandsText(v.bands)} The lead does not score.`),
      h("li", {}, `After each throw you may bet 1 to ${v.options.bet_limit} into the pot; the round's best score takes it.`),
    ),
  ));
  root.append(...parts);
}

function choice(h, game, ctx, rnd) {
  const v = game.view;
  const me = game.my_seat;
  const throwOn = game.legal.filter((a) => a.type === "throw_on");
  const stop = game.legal.filter((a) => a.type === "stop");
  const maxBet = Math.max(0, ...game.legal.map((a) => a.bet));
  const isLead = me === rnd.lead;
  const throws = rnd.counted[me].length;
  const total = rnd.totals[me] ?? 0;
  const box = h("section", { class: "be-choice", "aria-label": "Your choice" });
  const error = h("p", { class: "field-error", id: "be-bet-error", "aria-live": "polite" });
  const input = h("input", {
    id: "be-bet", type: "number", inputmode: "numeric", min: "0", max: String(maxBet), step: "1",
    value: local.bet, "aria-describedby": "be-bet-help be-bet-error", "data-shortcut": "b",
  });
  const check = () => {
    const text = input.value.trim();
    local.bet = text;
    let message = "";
    if (!/^\d+$/.test(text)) message = "Enter a whole number of chips (0 for no bet).";
    else if (Number(text) > maxBet) {
      message = Number(text) > v.banks[me]
        ? `You have only ${v.banks[me]} chips in your bank.`
        : `The most you may bet is ${maxBet}.`;
    }
    error.textContent = message;
    input.setAttribute("aria-invalid", message ? "true" : "false");
    return message ? null : Number(text);
  };
  input.addEventListener("input", check);
  const go = (list) => {
    const bet = check();
    if (bet === null) {
      input.focus();
      return;
    }
    const action = list.find((a) => a.bet === bet);
    if (action) ctx.post(action);
  };
  const dice = rnd.next_dice;
  const buttons = h("div", { class: "be-controls" });
  if (throwOn.length) {
    buttons.append(h("button", { type: "button", "data-testid": "throw_on", "data-shortcut": "t", "data-autofocus": true, onclick: () => go(throwOn) },
      `${isLead ? "Throw again" : "Throw on"} (${dice} ${dice === 1 ? "die" : "dice"})`));
  }
  if (stop.length) {
    buttons.append(h("button", { type: "button", class: throwOn.length ? "secondary" : null, "data-testid": "stop", "data-shortcut": "s", "data-autofocus": !throwOn.length, onclick: () => go(stop) },
      isLead ? `Done: the Bull's Eye is ${rnd.target}` : `Stop at ${total}`));
  }
  let note;
  if (isLead) {
    note = dice !== null && throws >= 1
      ? `Your throw ${throws} added ${rnd.lead_adds[throws - 1]}. Next: ${dice} dice, ${counted(rnd.next_counted)}.`
      : dice === null ? "Your three throws are in: the Bull's Eye is set." : null;
  } else if (rnd.target_set && rnd.stop_scores[me] !== null) {
    const distance = Math.abs(total - rnd.target);
    note = `Stopping now: ${distance} away from ${rnd.target}, worth ${rnd.stop_scores[me]} points.`
      + (throwOn.length && dice !== null ? ` Throwing on adds ${dice} more ${dice === 1 ? "die" : "dice"}.` : "");
  }
  box.append(
    note ? h("p", { class: "be-note", "data-testid": "choice-note" }, note) : null,
    maxBet > 0
      ? h("div", { class: "be-bet" },
        h("label", { for: "be-bet" }, "Bet into the pot"),
        input,
        h("span", { class: "be-note", id: "be-bet-help" }, `0 to ${maxBet} chips (limit ${v.options.bet_limit}, bank ${v.banks[me]}).`),
        error)
      : h("p", { class: "be-note" }, isLead
        ? "The lead does not bet: the lead cannot take the round's pot."
        : "No bet is possible now (no chips left or no betting)."),
    buttons,
  );
  return box;
}

export function renderHint(root, hint) {
  const p = (text) => {
    const el = document.createElement("p");
    el.textContent = text;
    return el;
  };
  const known = (x) => x !== null && x !== undefined;
  if (hint.kind === "choice") {
    const lines = [];
    if (known(hint.stop)) lines.push(`If you stop: ${hint.stop.toFixed(2)} points expected.`);
    else lines.push("You may not stop yet.");
    if (known(hint.throw)) {
      lines.push(`If you throw on (and play on well): ${hint.throw.toFixed(2)} points expected.`);
    } else {
      lines.push("You may not throw again.");
    }
    lines.push(`Best: ${hint.best === "stop" ? "stop" : "throw on"}.`);
    root.append(...lines.map(p));
    return;
  }
  root.append(p(hint.note ?? "No hint now."));
}
