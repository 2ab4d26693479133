// The board's chat panel: the lines I may read, a field and a Send button, one-click presets,
// live updates, and an unread mark on the panel's summary while it is closed.
//
// Who reads and writes where is the server's rule (GET /api/v1/games/ID/chat says my channel
// and the channels I read): the seated players write to the players' channel; everyone else
// who may watch writes to the spectators', which the players read once the game is over.
// Pushes come over the board's socket as "dicehall:push" events: a players' line whole to
// the seated players ({"type": "chat", "line": ...}); to every board following the game only
// {"type": "chat_new", "channel": ...}, after which the board reads the new lines it may see
// (the server leaves out anyone across an ignore). Every line is drawn as text, never HTML.

import { api, h } from "/static/js/board-core.js";
import { clock, exact } from "/static/js/moments.js";

const OVER = new Set(["finished", "aborted", "cancelled"]);
/** The most lines one answer holds (a full page: there may be more). */
const PAGE = 200;
const OPEN_KEY = "dicehall-chat-open";

/** Attach the chat panel (#chat-panel) to the board `root` (its data-game-id). */
export function chat(root) {
  const panel = document.getElementById("chat-panel");
  const list = document.getElementById("chat-lines");
  if (!panel || !list) return; // signed out: the panel only says to log in
  const id = String(root.dataset.gameId);
  const me = panel.dataset.me ?? "";
  const form = document.getElementById("chat-form");
  const field = document.getElementById("chat-body");
  const sendButton = document.getElementById("chat-send");
  const label = document.getElementById("chat-label");
  const note = document.getElementById("chat-note");
  const empty = document.getElementById("chat-empty");
  const presets = document.getElementById("chat-presets");
  const problem = document.getElementById("chat-error");
  const badge = document.getElementById("chat-unread");

  let mine = null; // the channel I write to
  let sees = [];
  let last = 0; // the newest line id drawn
  let newestFromOthers = 0; // the newest players' line by someone else
  let markedUpTo = 0; // the read mark last sent
  let unread = 0;
  let status = null;
  const drawn = new Set();

  const stored = localStorage.getItem(OPEN_KEY);
  panel.open = location.hash === "#chat-panel"
    || (stored ? stored === "on" : matchMedia("(min-width: 56rem)").matches);
  panel.addEventListener("toggle", () => {
    localStorage.setItem(OPEN_KEY, panel.open ? "on" : "off");
    if (panel.open) {
      scrollDown();
      seen();
    }
  });
  document.addEventListener("visibilitychange", seen);

  function reading() {
    return panel.open && document.visibilityState === "visible";
  }

  function showUnread() {
    badge.hidden = unread === 0;
    badge.textContent = unread ? `${unread} new` : "";
    panel.dataset.unread = String(unread);
  }

  /** The lines are in sight: clear the mark, and (a player) move the read mark on. */
  function seen() {
    if (!reading()) return;
    unread = 0;
    showUnread();
    if (mine === "players" && newestFromOthers > markedUpTo) {
      markedUpTo = newestFromOthers;
      api("POST", `/api/v1/games/${id}/chat/read`, { up_to: markedUpTo });
    }
  }

  function scrollDown() {
    list.scrollTop = list.scrollHeight;
  }

  function lineItem(line) {
    const who = line.display_name === line.user_id
      ? line.user_id
      : `${line.display_name} (${line.user_id})`;
    const when = new Date(line.created_at);
    return h(
      "li",
      {
        class: `chat-line chat-${line.channel}${line.user_id === me ? " chat-mine" : ""}`,
        "data-id": line.id,
        "data-channel": line.channel,
        "data-testid": "chat-line",
      },
      h("span", { class: "chat-who" }, who),
      line.channel === "spectators" ? h("span", { class: "chat-tag" }, "spectator") : null,
      h("time", { class: "chat-time", datetime: line.created_at, title: exact(when) }, clock(when)),
      h("bdi", { class: "chat-text" }, line.body),
      // Anyone else's line may be reported to the moderators (a page with the report form).
      line.user_id === me ? null : h(
        "a",
        {
          class: "chat-report",
          href: `/report?kind=chat&target=${line.id}&back=${encodeURIComponent(`/games/${id}`)}`,
          "aria-label": `Report this line by ${who}`,
        },
        "Report",
      ),
    );
  }

  /** Draw the lines not drawn yet; `news` (not the first page): count them unread. */
  function add(lines, news = true) {
    const atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
    let fresh = 0;
    for (const line of [...lines].sort((a, b) => a.id - b.id)) {
      if (drawn.has(line.id) || !sees.includes(line.channel)) continue;
      drawn.add(line.id);
      // Lines come in order, except my own answer racing a push: keep the list sorted.
      const later = [...list.children].find((li) => Number(li.dataset.id) > line.id);
      list.insertBefore(lineItem(line), later ?? null);
      last = Math.max(last, line.id);
      if (line.user_id !== me) {
        fresh += 1;
        if (line.channel === "players") newestFromOthers = Math.max(newestFromOthers, line.id);
      }
    }
    empty.hidden = list.children.length > 0;
    root.dataset.chatLines = String(list.children.length);
    if (atBottom || !fresh) scrollDown();
    if (news && fresh && !reading()) {
      unread += fresh;
      showUnread();
    }
    seen();
  }

  function describe() {
    const player = mine === "players";
    label.textContent = player ? "Message to the players" : "Message to the spectators";
    if (player && !sees.includes("spectators")) {
      note.textContent = "The other players and the spectators read what you write here. "
        + "The spectators' own chat shows here once the game is over.";
    } else if (player) {
      note.textContent = "The game is over: the spectators' lines show here too.";
    } else {
      note.textContent = "You write to the spectators: the players read it once the game is over.";
    }
    panel.dataset.channel = mine;
  }

  function drawPresets(offered) {
    if (presets.childElementCount) return;
    presets.append(...offered.map((preset) => h(
      "button",
      { type: "button", class: "secondary chat-preset", "data-preset": preset.key, onclick: () => send({ preset: preset.key }) },
      preset.text,
    )));
  }

  // One read at a time; a read asked for meanwhile runs once the current one is done.
  let running = false;
  let again = false;
  let first = true;
  async function load() {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        const query = first ? "" : `?after=${last}`;
        const got = await api("GET", `/api/v1/games/${id}/chat${query}`);
        if (!got.ok) {
          problem.textContent = got.data.error ?? "the chat could not be read";
          return;
        }
        const data = got.data;
        const widened = sees.length && data.sees.length > sees.length;
        mine = data.channel;
        sees = data.sees;
        describe();
        drawPresets(data.presets);
        if (widened) {
          // The game is over: read it all again, with the spectators' lines in their place.
          list.replaceChildren();
          drawn.clear();
          last = 0;
          first = true;
          again = true;
          continue;
        }
        if (first) {
          first = false;
          // The first page is not news: the server's count of what I have not read is.
          unread = data.unread;
          if (data.unread === 0) {
            markedUpTo = Math.max(0, ...data.lines.filter((l) => l.channel === "players").map((l) => l.id));
          }
          showUnread();
          add(data.lines, false);
          // Lines are announced from now on, not those already there.
          list.setAttribute("aria-live", "polite");
        } else {
          add(data.lines);
        }
        if (data.lines.length >= PAGE) again = true;
      } while (again);
    } finally {
      running = false;
    }
  }

  async function send(body) {
    problem.textContent = "";
    const got = await api("POST", `/api/v1/games/${id}/chat`, body);
    if (!got.ok) {
      problem.textContent = got.data.error ?? "that line was not sent";
      return false;
    }
    add([got.data]);
    return true;
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (!field.value.trim()) {
      problem.textContent = "Write something first.";
      field.focus();
      return;
    }
    sendButton.disabled = true;
    try {
      if (await send({ body: field.value })) field.value = "";
    } finally {
      sendButton.disabled = false;
      field.focus();
    }
  });

  document.addEventListener("dicehall:push", (event) => {
    const message = event.detail;
    if (!message) return;
    if (message.type === "hello") {
      if (!first) load(); // the socket came back: catch up on what it missed
      return;
    }
    if (String(message.game) !== id) return;
    if (message.type === "chat" && message.line) {
      add([message.line]);
    } else if (message.type === "chat_new") {
      // A player gets the players' lines whole; anything else is read through the API.
      if (!sees.includes(message.channel)) return;
      if (mine === "players" && message.channel === "players") return;
      load();
    } else if (message.type === "chat_read" && !reading()) {
      unread = Math.min(unread, Number(message.unread) || 0);
      showUnread();
    }
  });

  // When the game ends, a player reads the spectators' channel too.
  root.addEventListener("dicehall:game", (event) => {
    const next = event.detail.game.status;
    const ended = status !== null && !OVER.has(status) && OVER.has(next);
    status = next;
    if (ended && !first) load();
  });

  load();
}
