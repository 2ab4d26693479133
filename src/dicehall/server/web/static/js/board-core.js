// The shared part of every game board: loading the game, posting moves with the expected
// version and an idempotency key, live updates from the push socket, and the hint panel.
//
// A board module (/static/js/boards/<game>.js) exports:
//   render(root, game, ctx)      draw `game` (the API's JSON for my seat) into `root`
//   renderHint(root, hint, game) optional: draw the hint panel's contents
// and uses ctx.post(action) to move; ctx.say(text) to announce something.

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

/** A die showing `face`: a button when `onclick` is given, else a plain image-like span. */
export function die(face, { selected = false, onclick = null, label = null, colour = null } = {}) {
  const name = label ?? `die showing ${face}${colour ? ` (${colour})` : ""}`;
  const attrs = {
    class: `die${selected ? " selected" : ""}${colour ? ` die-${colour}` : ""}`,
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
  if (s.user) return seat === game.my_seat ? `${s.user} (you)` : s.user;
  if (s.bot) return `${s.bot} bot`;
  return "open seat";
}

async function api(method, path, body, extraHeaders = {}) {
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

export async function start(root) {
  const id = root.dataset.gameId;
  const kind = root.dataset.kind;
  const statusLine = document.getElementById("board-status");
  const hintToggle = document.getElementById("hint-toggle");
  const hintBody = document.getElementById("hint-body");
  const module = await import(`/static/js/boards/${kind}.js`).catch(() => genericBoard);
  let game = null;
  let busy = false;

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
    const focused = root.contains(document.activeElement) ? document.activeElement?.dataset?.key : null;
    game = next;
    root.dataset.version = String(game.version);
    root.dataset.status = game.status;
    root.dataset.yourTurn = game.your_turn ? "true" : "false";
    root.replaceChildren();
    module.render(root, game, ctx);
    if (focused) root.querySelector(`[data-key="${CSS.escape(focused)}"]`)?.focus();
    loadHint();
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

  async function loadHint() {
    if (!hintToggle.checked || !game || game.my_seat === null) {
      hintBody.replaceChildren();
      return;
    }
    const got = await api("GET", `/api/v1/games/${id}/hint`);
    hintBody.replaceChildren();
    if (!got.ok) {
      hintBody.append(h("p", {}, got.data.error));
    } else if (module.renderHint) {
      module.renderHint(hintBody, got.data.hint, game);
    } else {
      hintBody.append(h("pre", {}, JSON.stringify(got.data.hint, null, 2)));
    }
  }

  const ctx = { post, say, refresh, h, die, seatName };

  const hintKey = `dicehall-hints-${id}`;
  hintToggle.checked = localStorage.getItem(hintKey) === "on";
  if (hintToggle.checked) document.getElementById("hint-panel").open = true;
  hintToggle.addEventListener("change", () => {
    localStorage.setItem(hintKey, hintToggle.checked ? "on" : "off");
    loadHint();
  });

  connect(id, () => game, refresh);
  await refresh();
}

function connect(id, current, refresh, delay = 500) {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  let socket;
  try {
    socket = new WebSocket(`${scheme}://${location.host}/api/v1/ws`);
  } catch {
    return;
  }
  socket.addEventListener("message", (event) => {
    let message;
    try {
      message = JSON.parse(event.data);
    } catch {
      return;
    }
    const game = current();
    if (message.type === "game" && String(message.game) === String(id)) {
      if (!game || message.version > game.version) refresh();
    }
  });
  socket.addEventListener("open", () => {
    delay = 500;
    document.body.dataset.live = "on";
  });
  socket.addEventListener("close", () => {
    document.body.dataset.live = "off";
    setTimeout(() => connect(id, current, refresh, Math.min(delay * 2, 10000)), delay);
  });
}
