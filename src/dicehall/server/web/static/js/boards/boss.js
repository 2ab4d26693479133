// The Boss Dice board: both first rolls, the Boss's kept dice and his concealed dice (his own
// faces for the Boss, a cup over each one for the opponent: the view never holds them), the
// Boss's call (come up / pick 'em up), the opponent's keep selection, the horses, and the
// hand history with both final hands after each showdown. The board only draws: a keep is
// allowed exactly when it is among the legal actions, and the reason a selection is refused
// is the rules' own sentence from the view (`refused_keeps`, `keep_rule`).

const local = { key: null, selected: new Set(), gameId: null, hands: 0, fresh: false };

/** The board's keys (the "Keys" help); controls carry them as data-shortcut. */
export const KEYS = [
  ["1 to 5", "keep or unkeep that die of your first roll"],
  ["k", "keep the chosen dice and roll the rest"],
  ["Esc", "clear the selection"],
  ["c", "come up (as the Boss)"],
  ["p", "pick 'em up (as the Boss)"],
];

/** Which of `hand` were rolled after `kept` was kept (the rest): a mask, by faces. */
function rolledMask(hand, kept) {
  const left = [...kept];
  return hand.map((face) => {
    const at = left.indexOf(face);
    if (at < 0) return true;
    left.splice(at, 1);
    return false;
  });
}

const faces = (dice) => (dice.length ? dice.join(" ") : "nothing");
const sortedKey = (dice) => [...dice].sort((a, b) => a - b).join(",");
const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
const dice = (n) => `${n} ${n === 1 ? "die" : "dice"}`;
/** A sentence from the rules, as the board prints it: capital first, full stop last. */
const sentence = (text) => {
  const s = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.!?]$/.test(s) ? s : `${s}.`;
};

/** Indices of `roll` that hold the multiset `kept` (to mark the Boss's kept dice). */
function keptIndices(roll, kept) {
  const left = [...kept];
  const out = new Set();
  roll.forEach((face, i) => {
    const at = left.indexOf(face);
    if (at >= 0) {
      left.splice(at, 1);
      out.add(i);
    }
  });
  return out;
}

function cup(h, n) {
  return h("span", { class: "die boss-cup", role: "img", "aria-label": `concealed die ${n} under the Boss's cup` }, "?");
}

export function render(root, game, ctx) {
  const { h, die, seatName } = ctx;
  const key = `${game.id}:${game.version}`;
  const v = game.view;
  if (local.key !== key) {
    // A hand that ended since the last drawing: its rolls, and the new first rolls, are new.
    local.fresh = local.gameId === game.id && v.history.length > local.hands;
    local.gameId = game.id;
    local.hands = v.history.length;
    local.key = key;
    local.selected = new Set();
  }
  const me = game.my_seat;
  const who = (seat) => seatName(game, seat);
  const boss = v.boss;
  const opponent = boss === null ? null : 1 - boss;
  const parts = [];

  const redraw = (focusKey) => {
    root.replaceChildren();
    render(root, game, ctx);
    if (focusKey) root.querySelector(`[data-key="${focusKey}"]`)?.focus();
  };

  // -- horses ---------------------------------------------------------------------------------
  parts.push(
    h("section", { class: "boss-horses", "aria-label": "Horses" },
      h("h2", { class: "boss-h" }, `Horses: first to ${v.target} wins the match`),
      h("ul", { class: "boss-horse-list" },
        [0, 1].map((seat) => h("li", { "data-testid": `horses-${seat}` },
          h("span", { class: "boss-name" }, who(seat)), ": ",
          h("strong", {}, plural(v.horses[seat], "horse")),
        )),
      ),
      h("p", { class: "boss-meta" }, `Hands played: ${v.hands}.`
        + (v.pickups ? ` Pick-ups this hand: ${v.pickups}${v.max_pickups !== null ? ` of ${v.max_pickups}` : ""}.` : "")
        + (v.max_pickups !== null && !v.pickups ? ` The Boss may pick 'em up ${plural(v.max_pickups, "time")} per hand.` : "")),
    ),
  );

  // -- whose turn, what happens now -----------------------------------------------------------
  let turnLine;
  if (game.status !== "active") {
    turnLine = "The match is over.";
  } else if (v.phase === "call") {
    turnLine = game.your_turn
      ? "You are the Boss. Look at your hand and the opponent's first roll: come up, or pick 'em up?"
      : `${who(boss)} is the Boss and is deciding: come up, or pick 'em up.`;
  } else if (v.phase === "keep") {
    turnLine = game.your_turn
      ? "The Boss came up. Choose the dice of your first roll to keep, then roll the rest."
      : `The Boss came up; ${who(opponent)} is choosing which dice to keep.`;
  } else {
    turnLine = game.your_turn ? "Your turn." : `Waiting for ${who(game.to_act ?? 0)}.`;
  }
  parts.push(h("p", { class: "boss-turn", "data-testid": "turn" }, turnLine));

  // -- the hand in progress -------------------------------------------------------------------
  if (game.status === "active" && v.first_rolls.length === 2 && boss !== null) {
    const hand = h("section", { class: "boss-table", "aria-label": "The hand in progress" });
    for (const seat of [boss, opponent]) {
      const roll = v.first_rolls[seat];
      const isBoss = seat === boss;
      const mine = seat === me;
      const card = h("div", { class: `boss-seat${isBoss ? " boss-is-boss" : ""}`, "data-testid": isBoss ? "boss-seat" : "opponent-seat" },
        h("h3", { class: "boss-h" }, who(seat), " ", h("span", { class: "boss-badge" }, isBoss ? "Boss" : "Opponent")),
      );
      if (isBoss) {
        const kept = keptIndices(roll, v.boss_kept);
        card.append(
          h("p", { class: "boss-label" }, "First roll (the kept dice are outlined):"),
          h("div", { class: "dice" }, roll.map((f, i) => {
            const d = die(f, { label: `first roll die showing ${f}${kept.has(i) ? ", kept by the Boss" : ""}`, fresh: local.fresh });
            if (kept.has(i)) d.classList.add("boss-kept");
            return d;
          })),
        );
        const hidden = 5 - v.boss_kept.length;
        // A Boss who kept all five (a full house, five of a kind) rolls nothing under the cup.
        card.append(h("p", { class: "boss-label" }, hidden
          ? `Kept: ${faces(v.boss_kept)}. Rolled out of sight:`
          : `Kept all five: ${faces(v.boss_kept)}. Nothing is rolled out of sight.`));
        const concealedRow = h("div", { class: "dice", "data-testid": "concealed" });
        if (hidden && v.concealed) {
          concealedRow.append(...v.concealed.map((f) => {
            const d = die(f, { label: `your concealed die showing ${f}`, fresh: local.fresh });
            d.classList.add("boss-hidden-own");
            return d;
          }));
          card.append(concealedRow, h("p", { class: "boss-note" },
            `Only you see these. Your hand: ${faces([...v.boss_kept, ...v.concealed].sort((a, b) => b - a))}.`));
        } else if (hidden) {
          for (let i = 1; i <= hidden; i += 1) concealedRow.append(cup(h, i));
          card.append(concealedRow, h("p", { class: "boss-note" },
            `${dice(hidden)} under the cup: the Boss sees them, you do not.`));
        }
      } else {
        card.append(h("p", { class: "boss-label" }, mine ? "Your first roll:" : "First roll:"));
        const selecting = mine && game.your_turn && v.phase === "keep";
        if (selecting) {
          card.append(keepControls(h, die, roll, game, ctx, redraw));
        } else {
          card.append(h("div", { class: "dice" }, roll.map((f) => die(f, { label: `first roll die showing ${f}`, fresh: local.fresh }))));
        }
      }
      hand.append(card);
    }
    parts.push(hand);

    // the Boss's call
    const calls = game.legal.filter((a) => a.type === "come_up" || a.type === "pick_up");
    if (game.your_turn && calls.length) {
      parts.push(h("div", { class: "boss-controls", role: "group", "aria-label": "The Boss's call" },
        calls.map((a) => h("button", {
          type: "button",
          class: a.type === "pick_up" ? "secondary" : null,
          "data-testid": a.type,
          "data-shortcut": a.type === "come_up" ? "c" : "p",
          onclick: () => ctx.post(a),
        }, a.type === "come_up" ? "Come up" : "Pick 'em up")),
      ));
      if (!calls.some((a) => a.type === "pick_up")) {
        parts.push(h("p", { class: "boss-note" }, "No pick-ups are left this hand: you must come up."));
      }
    }
  }

  // -- the rules in brief -----------------------------------------------------------------------
  parts.push(h("details", { class: "boss-rules" },
    h("summary", {}, "How a hand goes"),
    h("ul", {},
      h("li", {}, "Both roll five dice; the better first roll (pairs and better, unmatched dice never count) is the Boss."),
      h("li", {}, "The Boss keeps the dice that made him Boss and rolls the rest under a cup."),
      h("li", {}, "The Boss calls \u201ccome up\u201d (play it out) or \u201cpick 'em up\u201d (a fresh hand, no horse changes hands)."),
      h("li", {}, `After \u201ccome up\u201d the opponent keeps any of his dice and rolls the rest. ${v.keep_rule}`),
      h("li", {}, "The better final hand takes a horse; equal hands are replayed."),
    ),
  ));

  // -- history ----------------------------------------------------------------------------------
  if (v.history.length) {
    const rows = [...v.history].map((r, i) => ({ r, n: i + 1 })).reverse();
    parts.push(h("section", { class: "boss-history", "aria-label": "Hand history" },
      h("h2", { class: "boss-h" }, "Hand history (latest first)"),
      h("ol", { reversed: true, class: "boss-history-list" },
        rows.map(({ r, n }) => historyItem(h, die, who, r, n, local.fresh && n === v.history.length))),
    ));
  }

  root.append(...parts);
}

function keepControls(h, die, roll, game, ctx, redraw) {
  const selected = local.selected;
  const keeps = game.legal.filter((a) => a.type === "keep");
  const byDice = new Map(keeps.map((a) => [sortedKey(a.dice), a]));
  const refused = new Map(game.view.refused_keeps.map((r) => [sortedKey(r.dice), r.reason]));
  const chosen = [...selected].map((i) => roll[i]).sort((a, b) => b - a);
  const action = byDice.get(sortedKey(chosen));
  let reason = null;
  if (!action) {
    const why = refused.get(sortedKey(chosen));
    reason = why ? sentence(why) : "That keep is not allowed.";
  }
  const wrap = h("div", { class: "boss-keep" });
  wrap.append(
    h("p", { class: "boss-note", id: "boss-keep-help" },
      `Click (or press Enter on) the dice to keep; the rest are rolled. ${game.view.keep_rule}`),
    h("div", { class: "dice", role: "group", "aria-label": "Your first roll: choose the dice to keep", "aria-describedby": "boss-keep-help" },
      roll.map((f, i) => die(f, {
        selected: selected.has(i),
        fresh: local.fresh,
        label: `die ${i + 1} showing ${f}${selected.has(i) ? ", kept" : ""}`,
        onclick: () => {
          if (selected.has(i)) selected.delete(i);
          else selected.add(i);
          redraw(`keep-${i}`);
        },
      })).map((el, i) => {
        el.dataset.key = `keep-${i}`;
        el.dataset.shortcut = String(i + 1);
        return el;
      }),
    ),
    h("p", { class: `boss-selection${reason ? " boss-bad" : ""}`, "data-testid": "keep-summary", "aria-live": "polite" },
      reason ?? `Keeping ${faces(chosen)}; rolling ${dice(5 - chosen.length)}.`),
    h("div", { class: "boss-controls" },
      h("button", {
        type: "button",
        "data-testid": "keep",
        "data-shortcut": "k",
        disabled: !action,
        "aria-describedby": reason ? "boss-keep-reason" : null,
        onclick: () => action && ctx.post(action),
      }, chosen.length === 5 ? "Keep all five (stand)" : chosen.length ? "Keep these and roll the rest" : "Roll all five again"),
      reason ? h("span", { id: "boss-keep-reason", class: "boss-reason" }, "Not a legal keep.") : null,
      selected.size ? h("button", { type: "button", class: "secondary", "data-shortcut": "Escape", onclick: () => { selected.clear(); redraw("keep-0"); } }, "Clear selection") : null,
    ),
  );
  return wrap;
}

/** A hand of the history; `fresh`: it ended since the last drawing (its rolled dice are new). */
function historyItem(h, die, who, r, n, fresh = false) {
  const small = (dice, label, rolled = null) => h("span", { class: "dice boss-small" },
    dice.map((f, i) => die(f, { label: `${label} ${f}`, fresh: fresh && rolled !== null && rolled[i] })));
  if (r.type === "no_boss") {
    return h("li", {}, `Hand ${n}: no Boss (${faces(r.first_rolls[0])} against ${faces(r.first_rolls[1])}); both rolled again.`);
  }
  if (r.type === "picked_up") {
    return h("li", {}, `Hand ${n}: ${who(r.boss)} was Boss on ${faces(r.boss_kept)} and picked 'em up against ${faces(r.first_rolls[1 - r.boss])}.`);
  }
  const opp = 1 - r.boss;
  const outcome = r.winner === null ? "a push: the hand is replayed" : `${who(r.winner)} took a horse`;
  return h("li", { "data-testid": "showdown" },
    h("p", {}, `Hand ${n}: showdown, ${outcome}.`),
    h("div", { class: "boss-show" },
      h("div", { class: r.winner === r.boss ? "boss-won" : null },
        h("span", { class: "boss-label" }, `${who(r.boss)} (Boss, kept ${faces(r.boss_kept)})${r.winner === r.boss ? ", won" : ""}: `),
        small(r.boss_hand, "Boss's final die", rolledMask(r.boss_hand, r.boss_kept))),
      h("div", { class: r.winner === opp ? "boss-won" : null },
        h("span", { class: "boss-label" }, `${who(opp)} (kept ${faces(r.keep)})${r.winner === opp ? ", won" : ""}: `),
        small(r.opponent_hand, "opponent's final die", rolledMask(r.opponent_hand, r.keep))),
    ),
  );
}

export function renderHint(root, hint, game) {
  const p = (text) => {
    const el = document.createElement("p");
    el.textContent = text;
    return el;
  };
  const pct = (x) => `${(100 * x).toFixed(1)}%`;
  if (hint.kind === "call") {
    root.append(
      p(`Come up: you win ${pct(hint.come_up.win)}, push ${pct(hint.come_up.push)}, lose ${pct(hint.come_up.lose)} (worth ${pct(hint.come_up_equity)} of a hand) if the opponent answers by keeping ${faces(hint.reply)}.`),
      p(`Pick 'em up: a fresh hand is worth exactly 50%.`),
      p(`Best: ${hint.best === "come_up" ? "come up" : "pick 'em up"}.`),
    );
    return;
  }
  if (hint.kind === "keep") {
    const table = document.createElement("table");
    table.innerHTML = "<caption>Your best keeps (the Boss's concealed dice unknown)</caption><thead><tr><th scope=\"col\">Keep</th><th scope=\"col\">Win</th><th scope=\"col\">Push</th><th scope=\"col\">Odds against</th></tr></thead>";
    const body = document.createElement("tbody");
    for (const k of hint.keeps) {
      const tr = document.createElement("tr");
      for (const text of [faces(k.keep), pct(k.win), pct(k.push), k.odds_against_text]) {
        const td = document.createElement("td");
        td.textContent = text;
        tr.append(td);
      }
      body.append(tr);
    }
    table.append(body);
    root.append(table);
    return;
  }
  root.append(p(hint.note ?? "No hint now."));
}
