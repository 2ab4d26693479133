// A tournament page, live. The page opens its own push socket following the tournament
// (socket.js with /api/v1/ws?tournament=ID, signed in or not), which passes every message on
// as a "dicehall:push" event, as push.js does on other pages, so the header's bell still
// hears its user's pushes. When a push says the tournament changed (someone joined, a table
// finished, a round began), it fetches GET /api/v1/tournaments/ID and re-renders the
// state, the players, Join / Withdraw, the standings and the rounds.

import { exact } from "/static/js/moments.js";
import { connect } from "/static/js/socket.js";

const body = document.getElementById("tournament-body");
const note = document.getElementById("tournament-live");
const id = body?.dataset.id;

const STATES = { open: "open to join", running: "running", finished: "finished", cancelled: "cancelled" };
const PLAYER_STATES = { active: "playing", withdrawn: "withdrew", timed_out: "timed out", out: "knocked out" };

let rendered = Number(body?.dataset.version ?? 0);
let pending = false;
let again = false;

function el(tag, attrs = {}, ...children) {
  const made = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    made.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined) continue;
    made.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return made;
}

function points(value) {
  if (value === null || value === undefined) return "";
  return Number(value).toFixed(2).replace(/0+$/, "").replace(/\.$/, "");
}

function timeLeft(seconds) {
  const whole = Math.max(0, Math.floor(seconds));
  const days = Math.floor(whole / 86400);
  const hours = Math.floor((whole % 86400) / 3600);
  const minutes = Math.floor((whole % 3600) / 60);
  const secs = whole % 60;
  if (days) return `${days} d ${hours} h`;
  if (hours) return `${hours} h ${minutes} min`;
  if (minutes) return minutes < 10 ? `${minutes} min ${secs} s` : `${minutes} min`;
  return `${secs} s`;
}

function playerState(tournament, player) {
  if (player === "active" && (tournament === "finished" || tournament === "cancelled")) return tournament;
  return PLAYER_STATES[player] ?? player;
}

function stateWords(t) {
  if (t.status !== "running") return STATES[t.status] ?? t.status;
  return `round ${t.round}` + (t.rounds_planned ? ` of ${t.rounds_planned}` : "");
}

function userLink(userId, name) {
  return el("a", { href: `/users/${encodeURIComponent(userId)}` }, name);
}

function renderFacts(t) {
  document.getElementById("t-state").textContent = stateWords(t);
  document.getElementById("t-players").textContent = t.size ? `${t.players} of ${t.size}` : String(t.players);
  const deadline = document.getElementById("t-deadline");
  if (t.status === "running" && t.round_deadline) {
    const when = new Date(t.round_deadline);
    const seconds = (when.getTime() - Date.now()) / 1000;
    const away = seconds >= 0 ? `in ${timeLeft(seconds)}` : `${timeLeft(-seconds)} ago`;
    deadline.replaceChildren(el("time", { datetime: t.round_deadline }, exact(when)), " ", el("span", { class: "muted" }, `(${away})`));
  } else {
    deadline.replaceChildren(el("span", { class: "muted" }, "none now"));
  }
  body.dataset.status = t.status;
  // "Tournament created" (or "You joined") is news while it is open: gone once it runs.
  const notice = document.getElementById("t-notice");
  if (notice && t.status !== "open" && ["created", "joined"].includes(notice.dataset.notice)) notice.remove();
}

function csrfField() {
  const token = document.querySelector('meta[name="csrf-token"]')?.content ?? "";
  return el("input", { type: "hidden", name: "csrf_token", value: token });
}

function renderActions(t) {
  const actions = document.getElementById("t-actions");
  const signedIn = Boolean(body.dataset.viewer);
  const parts = [];
  if (!signedIn) {
    if (t.status === "open") {
      parts.push(el("p", {}, el("a", { href: `/login?next=/tournaments/${t.id}` }, "Log in"), " to join this tournament."));
    }
  } else if (t.joined && (t.status === "open" || t.status === "running")) {
    parts.push(el("p", { "data-testid": "t-joined" }, "You play in this tournament."));
    parts.push(el("form", { method: "post", action: `/tournaments/${t.id}/withdraw`, class: "inline" },
      csrfField(), el("button", { type: "submit", class: "secondary" }, "Withdraw")));
    parts.push(el("span", { class: "hint" }, t.status === "running"
      ? "You play no later rounds; your games in progress go on."
      : "You may join again while it is open."));
  } else if (t.can_join) {
    parts.push(el("form", { method: "post", action: `/tournaments/${t.id}/join`, class: "inline" },
      csrfField(), el("button", { type: "submit" }, "Join the tournament")));
  } else if (t.why_not && t.status === "open") {
    parts.push(el("p", { class: "muted", "data-testid": "t-why-not" }, t.why_not));
  }
  // Unchanged (a table finished, say): leave the buttons alone, and the keyboard's focus.
  const key = `${t.joined}|${t.can_join}|${t.status}|${t.why_not ?? ""}`;
  if (actions.dataset.key === key) return;
  actions.dataset.key = key;
  actions.replaceChildren(...parts);
}

function renderStandings(t) {
  const viewer = body.dataset.viewer;
  const rows = t.standings.map((s) => {
    const mine = viewer && s.user_id === viewer;
    return el("tr", { "data-testid": `standing-${s.user_id}`, "data-user": s.user_id, class: mine ? "mine" : null },
      el("td", { class: "num place" }, s.place),
      el("td", {}, userLink(s.user_id, s.display_name), mine ? [" ", el("span", { class: "tag" }, "you")] : null),
      el("td", { class: "num", "data-testid": `points-${s.user_id}` }, points(s.points)),
      el("td", { class: "num" }, points(s.tiebreak)),
      el("td", { class: "num" }, s.games),
      el("td", {}, playerState(t.status, s.status)));
  });
  if (!rows.length) {
    rows.push(el("tr", { class: "empty" }, el("td", { colspan: 6, class: "muted" }, "Nobody has joined yet.")));
  }
  document.getElementById("t-standings").replaceChildren(...rows);
}

function renderRounds(t) {
  const names = new Map(t.standings.map((s) => [s.user_id, s.display_name]));
  const rounds = [...t.rounds].reverse().map((r) => {
    const heading = `round-${r.number}-h`;
    const rows = r.tables.map((table) => {
      const scored = table.done ? table.points : null;
      const players = [];
      table.seats.forEach((userId, i) => {
        if (i) players.push(", ");
        players.push(userLink(userId, names.get(userId) ?? userId));
        if (scored && scored[i] !== undefined) players.push(` (${points(scored[i])})`);
      });
      const game = table.game_id === null
        ? "bye"
        : el("a", { href: `/games/${table.game_id}` }, `Game ${table.game_id}`);
      return el("tr", { "data-testid": `table-${r.number}-${table.number}` },
        el("td", { class: "num" }, table.number),
        el("td", {}, players),
        el("td", {}, game),
        el("td", {}, table.done ? "finished" : "playing"));
    });
    return el("section", { class: "t-round", "aria-labelledby": heading, "data-round": r.number },
      el("h3", { id: heading }, `Round ${r.number}`),
      el("div", { class: "scroll t-scroll", role: "region", "aria-label": `Round ${r.number} tables`, tabindex: 0 },
        el("table", { class: "t-table t-tables" },
          el("thead", {}, el("tr", {},
            ["Table", "Players (points)", "Game", "State"].map((h) => el("th", { scope: "col" }, h)))),
          el("tbody", {}, rows))));
  });
  if (!rounds.length) rounds.push(el("p", { class: "muted" }, "No round has started yet."));
  document.getElementById("t-rounds").replaceChildren(...rounds);
}

async function refresh() {
  if (pending) {
    again = true;
    return;
  }
  pending = true;
  try {
    const response = await fetch(`/api/v1/tournaments/${id}`, { credentials: "same-origin" });
    if (!response.ok) return;
    const t = await response.json();
    if (Number(t.version) <= rendered) return;
    rendered = Number(t.version);
    body.dataset.version = String(rendered);
    renderFacts(t);
    renderActions(t);
    renderStandings(t);
    renderRounds(t);
    note.textContent = `The standings were updated at ${new Date().toLocaleTimeString()}.`;
    document.body.dataset.tournamentVersion = String(rendered);
  } catch {
    // The next push tries again.
  } finally {
    pending = false;
    if (again) {
      again = false;
      refresh();
    }
  }
}

if (id) {
  connect({
    query: { tournament: id },
    // After a break, what changed meanwhile was missed: look once.
    onOpen({ again }) {
      if (again) refresh();
    },
    onMessage(message) {
      if (message.type === "tournament" && String(message.id) === String(id) &&
          Number(message.version ?? Infinity) > rendered) {
        refresh();
      }
    },
    first: 1000,
    stopOn: [4404], // the tournament is gone
  });
}
