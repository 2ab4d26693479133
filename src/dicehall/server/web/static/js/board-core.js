// The shared part of every game board: loading the game, posting moves with the expected
// version and an idempotency key, live updates from the push socket, and the hint panel.
//
// A board module (/static/js/boards/<game>.js) exports:
//   render(root, game, ctx)      draw `game` (the API's JSON for my seat) into `root`
//   renderHint(root, hint, game) optional: draw the hint panel's contents
// and uses ctx.post(action) to move; ctx.say(text) to announce something. It may also export
//   KEYS                         [[key, what it does], ...] for the board's "Keys" help
// and mark controls with data-shortcut="r" (a key from KEYS, e.g. "1", "r", "Escape"): the
// frame presses the control on that key, and on a move keeps the keyboard on the board (the
// control marked data-autofocus first, else the first control, else the turn line).
//
// A game that has not started (status "waiting", no view yet) or was called off before it
// started is drawn here, by the waiting board: no board module ever sees a null view.

import { connect } from "/static/js/socket.js";

const csrf = document.querySelector('meta[name="csrf-token"]')?.content ?? "";

/** Create an element: h("button", {class: "die", onclick: f}, "3"). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2), value);
    } else if (key === "class") {
      el.className = value;
    } else if (value === true) {
      el.setAttribute(key, "");
    } else {
      el.setAttribute(key, String(value));
    }
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

const PIPS = ["", "\u2680", "\u2681", "\u2682", "\u2683", "\u2684", "\u2685"];

/** A die showing `face`: a button when `onclick` is given, else a plain image-like span.
 * `fresh` marks a die just rolled: a "new" tag, ", new" in its name and a short roll. */
export function die(face, { selected = false, onclick = null, label = null, colour = null, fresh = false } = {}) {
  const name = (label ?? `die showing ${face}${colour ? ` (${colour})` : ""}`) + (fresh ? ", new" : "");
  const attrs = {
    class: `die${selected ? " selected" : ""}${colour ? ` die-${colour}` : ""}${fresh ? " die-new" : ""}`,
    "data-face": face,
    "aria-label": name,
  };
  if (onclick) {
    return h("button", { ...attrs, type: "button", "aria-pressed": selected ? "true" : "false", onclick }, PIPS[face] ?? face);
  }
  return h("span", { ...attrs, role: "img" }, PIPS[face] ?? face);
}

/** Seat names as the page shows them. */
export function seatName(game, seat) {
  const s = game.seats[seat];
  if (!s) return `seat ${seat + 1}`;
  const name = s.name ?? (s.user || (s.bot ? `${s.bot} bot` : "open seat"));
  return s.user && seat === game.my_seat ? `${name} (you)` : name;
}

/** A call to the JSON API: {ok, status, data}. */
export async function api(method, path, body, extraHeaders = {}) {
  const headers = { Accept: "application/json", ...extraHeaders };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (method !== "GET") headers["X-CSRF-Token"] = csrf;
  const response = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: "same-origin",
  });
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = { error: `the server answered ${response.status}` };
  }
  return { ok: response.ok, status: response.status, data };
}

/** The board of a game without its own module: the view as data, the legal moves as buttons. */
const genericBoard = {
  render(root, game, ctx) {
    root.append(
      h("p", {}, game.your_turn ? "Your turn." : `Waiting for ${ctx.seatName(game, game.to_act ?? 0)}.`),
      h("pre", { class: "view" }, JSON.stringify(game.view, null, 2)),
      h(
        "div",
        { class: "actions" },
        game.legal.map((action) =>
          h("button", { type: "button", onclick: () => ctx.post(action) }, JSON.stringify(action)),
        ),
      ),
    );
  },
};

/** Copy `text` to the clipboard; false when the browser would not. */
async function copyText(text, field) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // No clipboard API (a page not served over https, say): copy the selected field.
    field.focus();
    field.select();
    try {
      return document.execCommand("copy");
    } catch {
      return false;
    }
  }
}

/** Who sits in a seat of a waiting game, and whether they have answered yet. */
function seatLine(game, seat, creator) {
  const name = seatName(game, seat.seat);
  let state;
  if (seat.open) state = "open: anyone may take it";
  else if (seat.bot) state = "a bot, ready";
  else if (seat.invited) state = "invited, has not answered yet";
  else state = seat.user === creator ? "seated (created this game)" : "seated";
  return h(
    "li",
    { class: `waiting-seat${seat.open ? " open" : ""}${seat.invited ? " invited" : ""}`, "data-seat": seat.seat },
    h("strong", {}, `Seat ${seat.seat + 1}: `),
    seat.open ? "" : `${name}, `,
    state,
  );
}

/** The board of a game that has not started, or was called off before it started. */
function renderWaiting(root, game, { say, answer, creator }) {
  const heading = (text) => h("h2", { class: "waiting-title", tabindex: "-1" }, text);
  if (game.status === "cancelled") {
    root.append(
      h(
        "div",
        { class: "waiting-board called-off" },
        heading("This game was called off"),
        h("p", {}, "It never started. ", h("a", { href: "/waiting" }, "Find another game"), " or ", h("a", { href: "/new" }, "start a new one"), "."),
      ),
    );
    return;
  }
  if (game.status !== "waiting") {
    // No view for a game that has begun: nothing to draw but the state.
    root.append(h("div", { class: "waiting-board" }, heading(`This game is ${game.status}`)));
    return;
  }
  const me = game.my_seat === null ? null : game.seats[game.my_seat];
  const open = game.seats.filter((s) => s.open).length;
  const invited = game.seats.filter((s) => s.invited);
  const waitsOn = [];
  if (open) waitsOn.push(open === 1 ? "1 open seat to be taken" : `${open} open seats to be taken`);
  if (invited.length) waitsOn.push(`${invited.map((s) => s.user).join(", ")} to accept`);
  const link = `${location.origin}${location.pathname}`;
  const field = h("input", {
    id: "share-link",
    type: "text",
    readonly: true,
    value: link,
    class: "share-link",
    "data-key": "share-link",
  });
  const copy = h(
    "button",
    {
      type: "button",
      class: "secondary",
      "data-key": "copy-link",
      onclick: async () => say((await copyText(link, field)) ? "Link copied." : "Select the link and copy it."),
    },
    "Copy link",
  );
  const board = h(
    "div",
    { class: "waiting-board" },
    heading("Waiting for players"),
    h("p", {}, `The game starts when every seat is filled; it waits for ${waitsOn.join(" and ") || "a moment"}.`),
    h("h3", {}, "Seats"),
    h("ul", { class: "waiting-seats" }, game.seats.map((s) => seatLine(game, s, creator))),
  );
  if (me?.invited) {
    board.append(
      h("h3", {}, "You are invited"),
      h("p", {}, creator ? `${creator} asks you to play.` : "You are asked to play."),
      h(
        "div",
        { class: "actions" },
        h("button", { type: "button", "data-key": "accept", onclick: () => answer("accept", "You accepted the invitation.") }, "Accept the invitation"),
        h("button", { type: "button", class: "secondary", "data-key": "decline", onclick: () => answer("decline", "You declined; the game is called off.") }, "Decline the invitation"),
      ),
    );
  }
  board.append(
    h("h3", {}, "Share this game"),
    h("label", { for: "share-link" }, "Link to this board"),
    h("div", { class: "share" }, field, copy),
  );
  if (creator && me && me.user === creator) {
    board.append(
      h("h3", {}, "Changed your mind?"),
      h(
        "button",
        { type: "button", class: "secondary", "data-key": "call-off", onclick: () => answer("cancel", "You called the game off.") },
        "Call off this game",
      ),
    );
  }
  root.append(board);
}

/** A die of the story: a face, or a game's notation such as "6r" (face and colour letter). */
function storyDie(d) {
  if (typeof d === "number") return die(d);
  return die(Number.parseInt(d, 10), { colour: String(d).replace(/^\d+/, "") || null });
}

/** One sentence of the story, with the dice it names (the text says them too). */
function storyLine(game, line) {
  return h(
    "li",
    { class: "story-line", "data-seat": line.seat ?? "" },
    h("span", { class: "story-text" }, line.text),
    line.dice.length ? h("span", { class: "dice story-dice", "aria-hidden": "true" }, line.dice.map(storyDie)) : null,
  );
}

/** "Since your last move", the move list of the whole game, and the end of a finished game. */
function renderStory(box, banner, game, story, { rematch }) {
  box.replaceChildren();
  banner.replaceChildren();
  banner.hidden = true;
  if (!story) return;
  const events = story.events;
  const lines = (list) => list.flatMap((e) => e.lines.map((line) => storyLine(game, line)));
  if (story.outcome) {
    const o = story.outcome;
    banner.hidden = false;
    banner.dataset.verdict = o.verdict ?? "watching";
    banner.append(
      h("h2", { class: "game-over-title", "data-testid": "verdict", tabindex: "-1" }, o.headline),
      h("ul", { class: "story-lines final-lines", "data-testid": "final" }, o.lines.map((line) => storyLine(game, line))),
      h(
        "div",
        { class: "actions game-over-actions" },
        game.my_seat !== null
          ? h("button", { type: "button", "data-key": "rematch", "data-testid": "rematch", onclick: rematch }, "Rematch: same game, options and seats")
          : null,
        h("a", { class: "button secondary", href: `/new/${encodeURIComponent(game.game)}`, "data-testid": "new-game" }, "New game"),
      ),
    );
  }
  // What happened since my last move; a spectator (or a game I have not moved in yet) sees
  // the latest events.
  const recent = story.last_own === null
    ? events.slice(-12)
    : events.filter((e) => e.index > story.last_own);
  const recentLines = lines(recent);
  if (recentLines.length) {
    box.append(
      h("section", { class: "story-since", "aria-labelledby": "story-since-title", "data-testid": "since" },
        h("h2", { id: "story-since-title", class: "story-h" }, story.last_own === null ? "Latest moves" : "Since your last move"),
        h("ol", { class: "story-lines" }, recentLines)),
    );
  }
  const all = lines(events);
  if (all.length) {
    // The count is of the list's own entries (an event may tell several lines, or none).
    const moves = h("details", { class: "story-moves", "data-testid": "moves", "data-key": "moves" },
      h("summary", {}, `Move list (${all.length} ${all.length === 1 ? "entry" : "entries"})`),
      h("ol", { class: "story-lines" }, all));
    moves.open = storyOpen;
    moves.addEventListener("toggle", () => { storyOpen = moves.open; });
    box.append(moves);
  }
}

/** The page is a signed-in member's (it carries their CSRF token). */
function signedIn() {
  return document.querySelector('meta[name="csrf-token"]') !== null;
}

// Whether the move list is open, kept across redraws.
let storyOpen = false;

export async function start(root) {
  const id = root.dataset.gameId;
  const kind = root.dataset.kind;
  const statusLine = document.getElementById("board-status");
  const hintPanel = document.getElementById("hint-panel");
  const hintBody = document.getElementById("hint-body");
  const module = await import(`/static/js/boards/${kind}.js`).catch(() => genericBoard);
  let game = null;
  let busy = false;
  const storyBox = h("section", { id: "story", class: "story", "aria-label": "What happened" });
  const banner = h("section", { id: "game-over", class: "game-over", "aria-live": "polite", hidden: true });
  root.after(storyBox);
  root.before(banner);
  // The story so far (events only grow, and an event's sentences never change): fetched
  // from where the last answer ended.
  let story = null;

  const say = (text) => {
    statusLine.textContent = text;
  };

  async function refresh() {
    const got = await api("GET", `/api/v1/games/${id}`);
    if (!got.ok) {
      say(got.data.error);
      return;
    }
    show(got.data);
  }

  function show(next) {
    // A push and a move's own answer can bring the same version twice: draw it once.
    if (game && next.version === game.version && next.my_seat === game.my_seat) return;
    // Keep keyboard focus on the "same" control across the redraw (boards set data-key).
    const hadFocus = root.contains(document.activeElement);
    const focused = hadFocus ? document.activeElement?.dataset?.key : null;
    game = next;
    root.dataset.version = String(game.version);
    root.dataset.status = game.status;
    root.dataset.yourTurn = game.your_turn ? "true" : "false";
    // The rest of the page (clocks, resign and abort: board-clock.js) draws from it too.
    root.dispatchEvent(new CustomEvent("dicehall:game", { detail: { game, show, refresh, say } }));
    root.replaceChildren();
    if (game.status === "waiting" || game.view === null || game.view === undefined) {
      renderWaiting(root, game, waitingCtx);
      if (focused) root.querySelector(`[data-key="${CSS.escape(focused)}"]`)?.focus();
      showBotTurn(game);
      loadHint();
      pollWhileWaiting(game);
      return;
    }
    clearTimeout(waitPoll);
    module.render(root, game, ctx);
    if (focused) root.querySelector(`[data-key="${CSS.escape(focused)}"]`)?.focus();
    showBotTurn(game);
    for (const control of root.querySelectorAll("[data-shortcut]")) {
      control.setAttribute("aria-keyshortcuts", control.dataset.shortcut);
    }
    keepKeyboard(hadFocus);
    loadHint();
    loadStory();
  }

  // After my move the keyboard stays on the board: on the next thing to do when I may act,
  // else on the turn line, until my turn comes back (bots move after my request).
  let afterMove = false;
  /** Where the keyboard goes on this board now: the next thing to do, or the turn line. */
  function focusTarget() {
    const live = "button:not([disabled]), input:not([disabled]), select:not([disabled])";
    const control = root.dataset.thinking === "true"
      ? null
      : root.querySelector(`[data-autofocus]:is(${live})`) ?? root.querySelector(live);
    if (control) return control;
    const line = root.querySelector('[data-testid="turn"]') ?? root;
    if (!line.hasAttribute("tabindex")) line.setAttribute("tabindex", "-1");
    return line;
  }
  function keepKeyboard(hadFocus) {
    const active = document.activeElement;
    const lost = !active || active === document.body || active.disabled || !active.isConnected;
    const placeholder = active === root || active?.dataset?.testid === "turn";
    if (!(lost || (root.contains(active) && placeholder)) || !(hadFocus || afterMove)) return;
    const target = focusTarget();
    target.focus();
    if (target.matches("button, input, select")) afterMove = false;
  }

  async function loadStory() {
    const seat = game.my_seat;
    const known = story && story.my_seat === seat ? story.events : [];
    const got = await api("GET", `/api/v1/games/${id}/events?since=${known.length}`);
    if (!got.ok || !game) return;
    const next = got.data;
    // Two answers may cross: keep each event once, in order, and never a gap.
    const have = story && story.my_seat === next.my_seat ? story.events : [];
    if (next.since > have.length) return;
    if (story && story.total > next.total) return;
    story = { ...next, events: [...have, ...next.events.filter((e) => e.index >= have.length)] };
    renderStory(storyBox, banner, game, story, { rematch });
    root.dataset.story = String(story.total);
  }

  async function rematch() {
    if (busy || !game) return;
    busy = true;
    try {
      const got = await api("POST", `/api/v1/games/${id}/rematch`);
      if (!got.ok) {
        say(got.data.error ?? "no rematch now");
        return;
      }
      say("Rematch created: opening it…");
      location.assign(`/games/${got.data.id}`);
    } finally {
      busy = false;
    }
  }

  // A waiting game is looked at again now and then: pushes reach only the seated players.
  let waitPoll = null;
  function pollWhileWaiting(current) {
    clearTimeout(waitPoll);
    if (current.status !== "waiting") return;
    waitPoll = setTimeout(refresh, 5000);
  }

  /** Accept, decline or call off the waiting game; `done` is said once it is through. */
  async function answer(what, done) {
    if (busy || !game) return;
    busy = true;
    try {
      const got = await api("POST", `/api/v1/games/${id}/${what}`);
      if (!got.ok) {
        say(got.data.error ?? "that was not accepted");
        await refresh();
        return;
      }
      say(done);
      show(got.data);
      // The pressed button is gone: keep the keyboard on the board's new heading.
      if (!root.contains(document.activeElement)) root.querySelector("h2[tabindex]")?.focus();
    } finally {
      busy = false;
    }
  }

  // While a bot (or the dice) has the turn, say so, keep every control off, and look again
  // now and then in case a push is missed.
  let botPoll = null;
  function showBotTurn(current) {
    const turn = current.status === "active" ? current.bot_turn : null;
    const wasThinking = root.dataset.thinking === "true";
    root.dataset.thinking = turn ? "true" : "false";
    clearTimeout(botPoll);
    if (!turn) {
      if (wasThinking) say("");
      return;
    }
    for (const control of root.querySelectorAll("button, input, select, textarea")) {
      control.disabled = true;
    }
    if (turn.bot === null) {
      say("Rolling the dice…");
    } else if (turn.warming_up) {
      say(`The ${turn.bot} bot is warming up, about ${turn.eta_s} s.`);
    } else {
      say(`The ${turn.bot} bot (${seatName(current, turn.seat)}) is thinking…`);
    }
    botPoll = setTimeout(() => {
      game = null; // redraw even at the same version: the warm-up estimate changes
      refresh();
    }, turn.warming_up ? 3000 : 1500);
  }

  async function post(action) {
    if (busy || !game) return null;
    busy = true;
    try {
      const got = await api(
        "POST",
        `/api/v1/games/${id}/actions`,
        { action, expected_version: game.version },
        { "Idempotency-Key": crypto.randomUUID() },
      );
      if (got.ok) {
        say("");
        afterMove = true;
        show(got.data);
        return got.data;
      }
      say(got.data.error ?? "that move was not accepted");
      if (got.status === 409) await refresh();
      return null;
    } finally {
      busy = false;
    }
  }

  // The hint panel: open, it shows the odds and hints of my seat now (asked for only while
  // it is open); closed, it asks for nothing.
  async function loadHint() {
    if (!hintPanel.open || !game) {
      hintBody.replaceChildren();
      return;
    }
    if (game.my_seat === null) {
      hintBody.replaceChildren(h("p", {}, "Odds and hints are for this game's players."));
      return;
    }
    if (game.status === "waiting" || game.view === null || game.view === undefined) {
      hintBody.replaceChildren(h("p", {}, "Odds and hints come once the game has started."));
      return;
    }
    const asked = game.version;
    const got = await api("GET", `/api/v1/games/${id}/hint`);
    // Closed meanwhile, or a newer position asked for its own hint: this answer is stale.
    if (!hintPanel.open || !game || game.version !== asked) return;
    hintBody.replaceChildren();
    if (got.status === 503) {
      // The hint workers are busy: say so, and ask again after the wait unless the game moved on.
      const wait = Number(got.data.retry_after) || 2;
      hintBody.append(h("p", {}, `${got.data.error} (asking again in ${wait} s)`));
      setTimeout(() => {
        if (game && game.version === asked) loadHint();
      }, wait * 1000);
    } else if (!got.ok) {
      hintBody.append(h("p", {}, got.data.error));
    } else {
      const hint = got.data.hint;
      if (module.renderHint) module.renderHint(hintBody, hint, game);
      else hintBody.append(h("pre", {}, JSON.stringify(hint, null, 2)));
      // The basis changes when the solver's tables get ready: every hint says which it is.
      if (hint?.basis) {
        hintBody.prepend(h("p", { class: "hint-basis", "data-basis": hint.basis, "data-testid": "hint-basis" },
          hint.basis_text ?? hint.basis));
      }
    }
  }

  /** The board's "Keys" help: the module's keys, then the frame's own. */
  function showKeys() {
    const list = document.getElementById("keys-list");
    if (!list) return;
    const keys = [...(module.KEYS ?? []), ["?", "open this help"]];
    // Signed in: n opens the next game waiting on my move (least time left first).
    if (signedIn()) keys.push(["n", "open the next game waiting on you"]);
    list.replaceChildren(...keys.flatMap(([key, what]) => [h("dt", {}, h("kbd", {}, key)), h("dd", {}, what)]));
  }

  // Shortcuts: a key presses the board's control marked with it (never while typing).
  const typing = 'textarea, select, input:not([type="checkbox"], [type="radio"], [type="button"], [type="submit"])';
  document.addEventListener("keydown", (event) => {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.target instanceof Element && (event.target.closest(typing) || event.target.isContentEditable)) return;
    if (event.key === "?") {
      const help = document.getElementById("board-keys");
      if (!help) return;
      event.preventDefault();
      help.open = true;
      help.querySelector("summary")?.focus();
      return;
    }
    if (event.key.toLowerCase() === "n" && signedIn()) {
      event.preventDefault();
      location.assign(`/next?skip=${encodeURIComponent(id)}`);
      return;
    }
    if (busy || root.dataset.thinking === "true") return;
    const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
    const control = [...root.querySelectorAll("[data-shortcut]")]
      .find((el) => el.dataset.shortcut === key && !el.disabled);
    if (!control) return;
    event.preventDefault();
    if (control.matches("input, select, textarea")) control.focus();
    else control.click();
  });

  // The skip link goes straight to the next thing to do on the board.
  document.getElementById("skip-board")?.addEventListener("click", (event) => {
    event.preventDefault();
    focusTarget().focus();
  });

  const ctx = { post, say, refresh, h, die, seatName };
  const waitingCtx = { say, answer, creator: root.dataset.creator || null };

  // Whether the hint panel is open is one choice for all my boards: the hints_open setting
  // (on <html>, kept current by settings-live.js), saved whenever I open or close it here.
  const hintsWanted = () => document.documentElement.dataset.hintsOpen === "true";
  let saving = 0; // my own changes of the choice on their way to the server
  hintPanel.open = hintsWanted();
  hintPanel.addEventListener("toggle", async () => {
    loadHint();
    if (hintPanel.open === hintsWanted() || !signedIn()) return; // the setting's own doing
    document.documentElement.dataset.hintsOpen = hintPanel.open ? "true" : "false";
    saving += 1;
    try {
      const saved = await api("PATCH", "/api/v1/users/me/settings", { hints_open: hintPanel.open });
      // The server's answer is the choice now (a push meanwhile may have said an older one).
      if (saved.ok && saving === 1) document.documentElement.dataset.hintsOpen = saved.data.hints_open ? "true" : "false";
    } finally {
      saving -= 1;
    }
  });
  // My settings changed on another page (settings-live.js): follow the hints setting (not
  // while a choice made here is being saved: a push may bring an older one), and draw the
  // board again (a setting such as confirm_moves changes its controls).
  document.addEventListener("dicehall:settings", () => {
    if (!saving && hintPanel.open !== hintsWanted()) hintPanel.open = hintsWanted();
    if (!game) return;
    const current = game;
    game = null;
    show(current);
  });

  showKeys();
  // The push socket follows this game too (?watch: a spectator's board, signed in or not);
  // a newer version of it is fetched.
  connect({
    query: { watch: id },
    onMessage(message) {
      if (message.type === "game" && String(message.game) === String(id)) {
        if (!game || message.version > game.version) refresh();
      }
    },
  });
  await refresh();
}
