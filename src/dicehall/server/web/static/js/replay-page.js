// The replay page: a game that is over, one frame per event of its log (GET
// /api/v1/games/{id}/replay). Each frame shows the event told in sentences with its dice as
// they fell, the score sheet after it, and a spectator's view of the table drawn read-only by
// the game's own board module. Buttons, the slider, ←/→ and Home/End step through it.

import { MARKS } from "/static/js/board-clock.js";
import { api, die, h, seatName } from "/static/js/board-core.js";

const root = document.getElementById("replay");
const id = root.dataset.gameId;
const slider = document.getElementById("replay-slider");
const counter = document.getElementById("replay-counter");
const eventBox = document.getElementById("replay-event");
const standingBox = document.getElementById("replay-standing");
const boardBox = document.getElementById("replay-board");
const endBox = document.getElementById("replay-end");
const buttons = Object.fromEntries([...root.querySelectorAll("[data-step]")].map((b) => [b.dataset.step, b]));

let replay = null;
let board = null; // the game's board module
let at = 0;

/** Put `children` in `box`, leaving out the ones that are not there (null, false). */
function fill(box, ...children) {
  box.replaceChildren(...children.filter((c) => c !== null && c !== undefined && c !== false));
}

/** A die of a sentence: a face, or a game's notation such as "6r" (face and colour). */
function lineDie(d) {
  if (typeof d === "number") return die(d);
  return die(Number.parseInt(d, 10), { colour: String(d).replace(/^\d+/, "") || null });
}

/** The dice of a chance event as they fell: faces as dice, anything else (a colour drawn
 * from a bag) as it is written; dice never shown to the table say so. */
function outcome(event) {
  const o = event.outcome;
  if (o && !Array.isArray(o) && o.hidden) {
    return h("p", { class: "replay-dice hidden-dice", "data-testid": "hidden-dice" },
      `${o.count} ${o.count === 1 ? "die" : "dice"} never shown to the table.`);
  }
  if (!Array.isArray(o) || !o.length) return null;
  if (o.every((x) => typeof x === "number")) {
    return h("div", { class: "replay-dice", "data-testid": "rolled" },
      h("span", { class: "replay-dice-label" }, "As they fell: "),
      h("span", { class: "dice", role: "group", "aria-label": `rolled ${o.join(" ")}` }, o.map((f) => die(f))));
  }
  return h("p", { class: "replay-dice", "data-testid": "drawn" }, `Drawn: ${o.join(" ")}`);
}

/** The game as a board module expects it, for a spectator at frame `i` (nothing to do). */
function gameAt(i) {
  const frame = replay.frames[i];
  const last = i === replay.frames.length - 1;
  const next = replay.frames[i + 1];
  return {
    id: Number(id),
    game: replay.game,
    title: root.dataset.title,
    version: i + 1,
    status: last ? root.dataset.status : "active",
    options: {},
    seats: replay.seats,
    my_seat: null,
    // Who acts next is who acted in the next event (dice: nobody).
    to_act: next && next.event.type === "acted" ? next.seat : null,
    your_turn: false,
    view: frame.view,
    legal: [],
    result: last ? replay.result : null,
    bot_turn: null,
    ranking: last ? replay.ranking : null,
    pace: null,
    clock: null,
  };
}

function drawEvent(frame, game) {
  const who = frame.seat === null ? "The dice" : seatName(game, frame.seat);
  const lines = frame.lines.map((line) =>
    h("li", { class: "story-line", "data-seat": line.seat ?? "" },
      h("span", { class: "story-text" }, line.text),
      line.dice.length ? h("span", { class: "dice story-dice", "aria-hidden": "true" }, line.dice.map(lineDie)) : null));
  if (!lines.length && frame.event.type === "acted") {
    const kind = String(frame.event.action?.type ?? "a move").replaceAll("_", " ");
    lines.push(h("li", { class: "story-line" }, h("span", { class: "story-text" }, `${who}: ${kind}.`)));
  }
  fill(eventBox,
    h("h2", { class: "replay-h" }, `Event ${frame.index + 1}: ${who}`),
    frame.event.type === "resolved" ? outcome(frame.event) : null,
    lines.length ? h("ol", { class: "story-lines", "data-testid": "lines" }, lines) : null,
  );
}

function drawStanding(frame, game) {
  const s = frame.standing;
  if (!s) {
    fill(standingBox, h("h2", { id: "replay-standing-title" }, "Score sheet"), h("p", { class: "muted" }, "This game keeps no running score."));
    return;
  }
  fill(standingBox,
    h("h2", { id: "replay-standing-title" }, `Score sheet, ${s.noun} ${s.number}`),
    h("table", { class: "replay-scores", "data-testid": "standing" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Seat"), h("th", { scope: "col" }, "Score"))),
      h("tbody", {}, game.seats.map((seat) =>
        h("tr", { "data-seat": seat.seat },
          h("th", { scope: "row" }, seatName(game, seat.seat)),
          h("td", {}, (s.scores[seat.seat] ?? 0).toLocaleString("en")))))),
  );
}

function drawBoard(game) {
  boardBox.replaceChildren();
  if (!board) {
    boardBox.append(h("pre", { class: "view" }, JSON.stringify(game.view, null, 2)));
    return;
  }
  const nothing = () => null;
  board.render(boardBox, game, { h, die, seatName, post: nothing, say: nothing, refresh: nothing });
  // Read-only: a replay takes no moves.
  for (const control of boardBox.querySelectorAll("button, input, select, textarea")) control.disabled = true;
}

function drawEnd(game, last) {
  if (!last) {
    endBox.hidden = true;
    endBox.replaceChildren();
    return;
  }
  endBox.hidden = false;
  if (!replay.ranking) {
    fill(endBox, h("h2", {}, "The game was aborted here"), h("p", {}, "No result, no rating."));
    return;
  }
  const scores = replay.result?.scores ?? [];
  fill(endBox,
    h("h2", {}, "Final ranking"),
    h("ol", { class: "ranking", "data-testid": "ranking" }, replay.ranking.map((seat) => {
      const s = replay.seats[seat];
      const mark = MARKS[s?.status];
      return h("li", {},
        h("span", { class: "ranking-name" }, seatName(game, seat)),
        scores[seat] !== undefined ? h("span", { class: "ranking-score" }, ` ${scores[seat].toLocaleString("en")}`) : null,
        mark ? h("span", { class: `seat-mark seat-${s.status}` }, mark) : null);
    })),
  );
}

/** Show frame `i` (clamped to the game). */
function go(i) {
  if (!replay || !replay.frames.length) return;
  at = Math.max(0, Math.min(replay.frames.length - 1, i));
  const frame = replay.frames[at];
  const game = gameAt(at);
  const last = at === replay.frames.length - 1;
  slider.value = String(at);
  const words = `${at + 1} of ${replay.frames.length}`;
  counter.value = words;
  counter.textContent = words;
  slider.setAttribute("aria-valuetext", `event ${words}`);
  root.dataset.frame = String(at);
  for (const [step, button] of Object.entries(buttons)) {
    // aria-disabled, not disabled: a pressed button keeps the keyboard at either end.
    const end = step === "first" || step === "back" ? at === 0 : last;
    button.setAttribute("aria-disabled", end ? "true" : "false");
  }
  drawEvent(frame, game);
  drawStanding(frame, game);
  drawBoard(game);
  drawEnd(game, last);
  history.replaceState(null, "", `#event-${at + 1}`);
}

const STEPS = {
  first: () => go(0),
  back: () => go(at - 1),
  forward: () => go(at + 1),
  last: () => go(Infinity),
};

for (const [step, button] of Object.entries(buttons)) button.addEventListener("click", STEPS[step]);
slider.addEventListener("input", () => go(Number(slider.value)));

const typing = "textarea, select, input";
document.addEventListener("keydown", (event) => {
  if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || !replay) return;
  // The slider moves itself on the arrow keys (its input event follows); fields type.
  if (event.target instanceof Element && event.target.closest(typing)) return;
  const step = { ArrowLeft: "back", ArrowRight: "forward", Home: "first", End: "last" }[event.key];
  if (!step) return;
  event.preventDefault();
  STEPS[step]();
});

async function load() {
  const got = await api("GET", `/api/v1/games/${id}/replay`);
  if (!got.ok) {
    fill(eventBox, h("p", { class: "status" }, got.data.error ?? "The replay could not be loaded."));
    return;
  }
  replay = got.data;
  board = await import(`/static/js/boards/${replay.game}.js`).catch(() => null);
  if (!replay.frames.length) {
    fill(eventBox, h("p", {}, "Nothing happened in this game."));
    counter.textContent = "0 of 0";
    return;
  }
  slider.max = String(replay.frames.length - 1);
  slider.disabled = false;
  for (const button of Object.values(buttons)) button.disabled = false;
  go(askedFrame() ?? 0);
  root.dataset.ready = "true";
}

/** The frame a link asks for ("#event-12" is frame 11), if any. */
function askedFrame() {
  const asked = /^#event-(\d+)$/.exec(location.hash);
  return asked ? Number(asked[1]) - 1 : null;
}

window.addEventListener("hashchange", () => {
  const i = askedFrame();
  if (i !== null) go(i);
});

load();
