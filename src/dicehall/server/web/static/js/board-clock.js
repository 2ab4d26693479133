// The table around a board, drawn from the same game JSON: each seat's time left (the
// running bank counting down each second), what saved a seat whose bank ran out (the
// clock's saved_by: vacation or an announced absence) and the pace; seats that resigned,
// ran out of time or are played by the autopilot; for a seated player of a game in play,
// resign, abort (while some person at the table has not moved yet) and "take my seat back",
// the first two asked again on the page; and once the game is over, the site's ranking and
// its replay. Boards only draw the game (tests/web/test_boards_only_draw.py): this is the
// page's part.

import { api, h, seatName } from "/static/js/board-core.js";
import { exact } from "/static/js/moments.js";

/** Put `children` in `box`, leaving out the ones that are not there (null, false). */
function fill(box, ...children) {
  box.replaceChildren(...children.filter((c) => c !== null && c !== undefined && c !== false));
}

/** A time bank as people say it: "2 d 4 h", "3 h 5 min", "4 min 5 s", "45 s" (the same
 * rules as the server's dicehall.server.domain.games.ending.time_left). */
export function timeLeft(seconds) {
  const whole = Math.max(0, Math.trunc(Number(seconds) || 0));
  const days = Math.floor(whole / 86400);
  const hours = Math.floor((whole % 86400) / 3600);
  const minutes = Math.floor((whole % 3600) / 60);
  const secs = whole % 60;
  if (days) return `${days} d ${hours} h`;
  if (hours) return `${hours} h ${minutes} min`;
  if (minutes) return minutes < 10 ? `${minutes} min ${secs} s` : `${minutes} min`;
  return `${secs} s`;
}

/** Why a running seat's deadline lies past the moment its bank ran out, in the server's
 * terms (its clock's `saved_by`); null when nothing saved it. */
export function savedNote(name, seatClock) {
  if (!seatClock?.running || !seatClock.deadline) return null;
  const until = exact(new Date(seatClock.deadline));
  if (seatClock.saved_by === "vacation") return `${name}'s clock ran out; vacation saved the seat until ${until}.`;
  if (seatClock.saved_by === "away") return `${name}'s clock ran out while away; the absence holds the seat until ${until}.`;
  return null;
}

/** How a seat that no longer plays for itself is marked. */
export const MARKS = { autopilot: "autopilot", resigned: "resigned", timed_out: "out of time" };

/** The pace's name as people say it: "daily", "3 days per move". */
export function paceName(pace) {
  const days = /^days-(\d+)$/.exec(pace.name);
  if (days) return days[1] === "1" ? "1 day per move" : `${days[1]} days per move`;
  if (pace.name === "custom") {
    return `custom: ${timeLeft(pace.initial)}, +${timeLeft(pace.increment)} a move, at most ${timeLeft(pace.cap)}`;
  }
  return pace.name;
}

const QUESTIONS = {
  resign: (game) => ({
    ask: "Resign this game?",
    then: game.seats.length === 2
      ? "The other player wins."
      : "The autopilot plays your seat to the end, and you rank last of those still in.",
    yes: "Yes, resign",
    done: "You resigned.",
  }),
  abort: () => ({
    ask: "Abort this game?",
    then: "It ends now with no result and no rating.",
    yes: "Yes, abort",
    done: "The game is aborted.",
  }),
};

/** Draw the clocks, the seat's buttons and the ending next to the board `root`, each time
 * the board shows a game (board-core.js sends "dicehall:game"). */
export function attach(root) {
  const id = root.dataset.gameId;
  const clockBox = document.getElementById("board-clock");
  const actionBox = document.getElementById("board-actions");
  const endBox = document.getElementById("board-ending");
  if (!clockBox || !actionBox || !endBox) return;
  let game = null;
  let board = null; // {show, refresh, say} from the board
  let fetchedAt = 0; // performance.now() when `game` was read: the running bank counts from it
  let asking = null; // "resign" | "abort" while the page asks to confirm
  let busy = false;
  let lookedAt = 0; // when a run-out clock last made us read the game again

  root.addEventListener("dicehall:game", (event) => {
    board = event.detail;
    draw(event.detail.game);
  });

  function draw(next) {
    game = next;
    fetchedAt = performance.now();
    // A question stands while the game is in play (the answer goes at the latest version).
    if (game.status !== "active") asking = null;
    drawClocks();
    drawActions();
    drawEnding();
  }

  // -- the clocks ----------------------------------------------------------------------------

  function remaining(seatClock) {
    if (!seatClock.running) return seatClock.remaining;
    return seatClock.remaining - (performance.now() - fetchedAt) / 1000;
  }

  function drawClocks() {
    const started = game.status !== "waiting" && game.status !== "cancelled";
    const marked = game.seats.some((s) => s.status !== "playing");
    if (!started || (!game.clock && !marked)) {
      clockBox.hidden = true;
      clockBox.replaceChildren();
      return;
    }
    const clocks = new Map((game.clock?.seats ?? []).map((c) => [c.seat, c]));
    const rows = game.seats.map((seat) => {
      // A bot's bank never runs out (it moves at once): only people's time is shown.
      const clock = game.status === "active" && !seat.bot ? clocks.get(seat.seat) : undefined;
      const mark = MARKS[seat.status];
      return h(
        "li",
        { class: `clock-seat${clock?.running ? " running" : ""}`, "data-seat": seat.seat, "data-testid": `clock-seat-${seat.seat}` },
        h("span", { class: "clock-name" }, seatName(game, seat.seat)),
        clock
          ? h("span", { class: "clock-time", "data-testid": `clock-${seat.seat}`, "data-running": clock.running ? "true" : "false" },
            `${timeLeft(remaining(clock))} left`)
          : null,
        clock?.running ? h("span", { class: "clock-note" }, "to move") : null,
        mark ? h("span", { class: `seat-mark seat-${seat.status}`, "data-testid": `mark-${seat.seat}` }, mark) : null,
        saved(seat, clock),
      );
    });
    clockBox.hidden = false;
    fill(clockBox,
      h("h2", { class: "clock-h", id: "clock-title" }, game.clock && game.status === "active" ? "Time left" : "Seats"),
      game.pace ? h("p", { class: "clock-pace", "data-testid": "pace" }, `Pace: ${paceName(game.pace)}`) : null,
      h("ul", { class: "clock-seats" }, rows),
    );
  }

  function saved(seat, clock) {
    const note = savedNote(seatName(game, seat.seat), clock);
    return note ? h("span", { class: "clock-saved", "data-testid": `saved-${seat.seat}` }, note) : null;
  }

  /** Once a second: the running bank counts down; once it is out, read the game again (the
   * server applies the timeout on reading it, so nobody waits for its sweeper). */
  function tick() {
    if (!game || game.status !== "active" || !game.clock) return;
    const running = game.clock.seats.find((c) => c.running);
    if (!running) return;
    const left = remaining(running);
    const text = clockBox.querySelector(`[data-testid="clock-${running.seat}"]`);
    if (text) text.textContent = `${timeLeft(left)} left`;
    if (left <= 0 && performance.now() - lookedAt > 3000) {
      lookedAt = performance.now();
      lookAgain();
    }
  }
  setInterval(tick, 1000);

  async function lookAgain() {
    const got = await api("GET", `/api/v1/games/${id}`);
    if (!got.ok || !board) return;
    // A new version goes through the board; vacation moves a deadline at the same version.
    if (got.data.version !== game.version) board.show(got.data);
    else draw(got.data);
    // Said aloud too (the board's status is a live region): the clock ran out, and why the
    // game still waits on the seat.
    const running = got.data.status === "active" ? got.data.clock?.seats.find((c) => c.running) : null;
    const note = running ? savedNote(seatName(got.data, running.seat), running) : null;
    if (note) board.say(note);
  }

  // -- resign, abort, take back --------------------------------------------------------------

  function drawActions(focusKey = null) {
    const me = game.my_seat === null ? null : game.seats[game.my_seat];
    if (game.status !== "active" || !me || !me.user) {
      actionBox.hidden = true;
      actionBox.replaceChildren();
      return;
    }
    const hadFocus = actionBox.contains(document.activeElement) ? document.activeElement.dataset.key : null;
    actionBox.hidden = false;
    if (asking) {
      const q = QUESTIONS[asking](game);
      const no = h("button", { type: "button", class: "secondary", "data-key": "confirm-no", "data-testid": "confirm-no", onclick: () => answer(false) }, "No");
      const box = h(
        "div",
        { class: "confirm", role: "group", "aria-labelledby": "confirm-question", "data-testid": "confirm" },
        h("p", { id: "confirm-question" }, h("strong", {}, q.ask), " ", q.then),
        h("div", { class: "actions" },
          h("button", { type: "button", class: "danger", "data-key": "confirm-yes", "data-testid": "confirm-yes", onclick: () => answer(true) }, q.yes),
          no),
      );
      box.addEventListener("keydown", (event) => {
        if (event.key === "Escape") {
          event.preventDefault();
          event.stopPropagation();
          answer(false);
        }
      });
      fill(actionBox, h("h2", { class: "visually-hidden" }, "Your seat"), box);
      const key = focusKey ?? hadFocus;
      if (key) (actionBox.querySelector(`[data-key="${key}"]`) ?? no).focus();
      return;
    }
    const buttons = [];
    if (me.status === "autopilot") {
      buttons.push(h("button", { type: "button", "data-key": "take-back", "data-testid": "take-back", onclick: takeBack }, "Take my seat back"));
    }
    if (me.status !== "resigned") {
      buttons.push(h("button", { type: "button", class: "secondary", "data-key": "resign", "data-testid": "resign", onclick: () => ask("resign") }, "Resign"));
    }
    if (game.seats.some((s) => s.user && !s.moved)) {
      buttons.push(h("button", { type: "button", class: "secondary", "data-key": "abort", "data-testid": "abort", onclick: () => ask("abort") }, "Abort the game"));
    }
    const note = me.status === "autopilot"
      ? h("p", { class: "seat-note", "data-testid": "autopilot-note" }, "You ran out of time: the autopilot plays your seat until you take it back.")
      : me.status === "resigned"
        ? h("p", { class: "seat-note" }, "You resigned: the autopilot plays your seat to the end.")
        : null;
    fill(actionBox,
      h("h2", { class: "visually-hidden" }, "Your seat"),
      note,
      buttons.length ? h("div", { class: "actions" }, buttons) : null,
    );
    if (hadFocus) actionBox.querySelector(`[data-key="${hadFocus}"]`)?.focus();
  }

  function ask(what) {
    asking = what;
    drawActions("confirm-no");
  }

  async function answer(yes) {
    const what = asking;
    if (!yes || !what) {
      asking = null;
      drawActions();
      actionBox.querySelector(`[data-key="${what}"]`)?.focus();
      return;
    }
    const done = QUESTIONS[what](game).done;
    if (await change(what, done)) {
      // The buttons are gone with the game in play: keep the keyboard on what ended it.
      const target = endBox.hidden ? actionBox.querySelector("button") : endBox.querySelector("h2");
      target?.focus();
    }
  }

  function takeBack() {
    change("take-back", "Your seat is yours again.");
  }

  /** Post `what` at the version shown; the board draws the answer. */
  async function change(what, done) {
    if (busy || !game || !board) return false;
    busy = true;
    try {
      const got = await api("POST", `/api/v1/games/${id}/${what}`, { expected_version: game.version });
      asking = null;
      if (!got.ok) {
        board.say(got.data.error ?? "that was not accepted");
        drawActions();
        await board.refresh();
        return false;
      }
      board.say(done);
      if (got.data.version === game.version) draw(got.data);
      else board.show(got.data);
      return true;
    } finally {
      busy = false;
    }
  }

  // -- the end ---------------------------------------------------------------------------------

  function drawEnding() {
    // Right under the board's "game over" banner, once there is one.
    const banner = document.getElementById("game-over");
    if (banner && endBox.previousElementSibling !== banner) banner.after(endBox);
    if (game.status !== "finished" && game.status !== "aborted") {
      endBox.hidden = true;
      endBox.replaceChildren();
      return;
    }
    const replay = h("p", { class: "replay-link" },
      h("a", { class: "button secondary", href: `/games/${encodeURIComponent(id)}/replay`, "data-testid": "replay-link" }, "Replay this game"));
    endBox.hidden = false;
    if (game.status === "aborted") {
      fill(endBox,
        h("h2", { tabindex: "-1", "data-testid": "ending-title" }, "This game was aborted"),
        h("p", {}, "It ended before every player had moved: no result, no rating."),
        replay,
      );
      return;
    }
    const proofFile = `dicehall-game-${id}-proof.json`;
    const verify = h("section", { class: "verify-dice", "aria-labelledby": "verify-dice-title" },
      h("h3", { id: "verify-dice-title" }, "Fair dice"),
      h("p", {}, "Every die and bag draw of this game was committed in public before it was played. ",
        "Check them yourself, offline: download the proof, then run the command."),
      h("p", {},
        h("a", { class: "button secondary", href: `/api/v1/games/${encodeURIComponent(id)}/proof`,
          download: proofFile, "data-testid": "verify-dice" }, "Verify these dice")),
      h("p", {}, "No ", h("code", {}, "dicehall"), " command yet? It installs with Python 3.11 or later: ",
        h("code", { class: "command", "data-testid": "install-command" }, "pip install dicehall"), "."),
      h("pre", { class: "verify-command" },
        h("code", { "data-testid": "verify-command" }, `dicehall verify-game ${proofFile}`)),
      h("p", {}, h("a", { href: "/fairness" }, "How the dice are committed and checked")));
    const scores = game.result?.scores ?? [];
    const ranking = game.ranking ?? game.seats.map((s) => s.seat);
    fill(endBox,
      h("h2", { tabindex: "-1", "data-testid": "ending-title" }, "Final ranking"),
      h("ol", { class: "ranking", "data-testid": "ranking" },
        ranking.map((seat) => {
          const s = game.seats[seat];
          const mark = MARKS[s?.status];
          return h("li", { "data-seat": seat },
            h("span", { class: "ranking-name" }, seatName(game, seat)),
            scores[seat] !== undefined ? h("span", { class: "ranking-score" }, ` ${scores[seat].toLocaleString("en")}`) : null,
            mark ? h("span", { class: `seat-mark seat-${s.status}` }, mark) : null);
        })),
      replay,
      verify,
    );
  }
}
