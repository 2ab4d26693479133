// A thread page, live: a message pushed in this thread ("dicehall:push", type "message")
// appears at the bottom at once and, while the page is in view, is marked read; the form
// sends without a reload (it still works as a plain form without this script).

import { renderBody } from "./message-text.js";

const list = document.getElementById("messages");
const form = document.getElementById("compose");
const status = document.getElementById("compose-status");
const csrf = document.querySelector('meta[name="csrf-token"]')?.content ?? "";
const other = list?.dataset.threadWith ?? "";
const otherName = list?.dataset.otherName ?? other;
const me = (list?.dataset.me ?? "").toLowerCase();
const api = `/api/v1/messages/${encodeURIComponent(other)}`;
// The newest message from the other side not marked read yet.
let unreadUpTo = 0;

function item(message) {
  const mine = String(message.from).toLowerCase() === me;
  const li = document.createElement("li");
  li.className = `msg ${mine ? "mine" : "theirs"}`;
  li.dataset.id = String(message.id);
  const meta = document.createElement("p");
  meta.className = "meta";
  const from = document.createElement("strong");
  from.className = "from";
  from.textContent = mine ? "You" : otherName;
  const when = document.createElement("time");
  when.dateTime = message.created_at;
  when.textContent = "just now";
  meta.append(from, " ", when);
  const body = document.createElement("div");
  body.className = "body";
  renderBody(body, String(message.body));
  li.append(meta, body);
  if (Number.isInteger(message.game)) {
    const about = document.createElement("p");
    about.className = "game-link";
    const link = document.createElement("a");
    link.href = `/games/${message.game}`;
    link.textContent = `About game ${message.game}`;
    about.append(link);
    li.append(about);
  }
  return li;
}

function show(message) {
  if (!list || !Number.isInteger(message.id)) return;
  if (list.querySelector(`li[data-id="${message.id}"]`)) return; // pushed and answered both
  document.getElementById("no-messages")?.remove();
  const li = item(message);
  // Ids grow with time: put it after every older one (a push may overtake an answer).
  const later = [...list.children].find((child) => Number(child.dataset.id) > message.id);
  list.insertBefore(li, later ?? null);
  li.scrollIntoView({ block: "nearest" });
  list.dataset.count = String(list.children.length);
}

async function markRead() {
  if (!unreadUpTo || document.visibilityState !== "visible") return;
  const upTo = unreadUpTo;
  unreadUpTo = 0;
  try {
    await fetch(`${api}/read`, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
      body: JSON.stringify({ up_to: upTo }),
    });
  } catch {
    unreadUpTo = Math.max(unreadUpTo, upTo); // offline for a moment: try again later
  }
}

// What came while the socket was not open yet (or was down): the newest page of the thread,
// shown from its oldest message on (those already here are skipped).
async function catchUp() {
  try {
    const response = await fetch(`${api}?limit=20`, { credentials: "same-origin" });
    if (!response.ok) return;
    const page = await response.json();
    for (const message of page.messages.slice().reverse()) {
      show(message);
      if (message.unread) unreadUpTo = Math.max(unreadUpTo, message.id);
    }
    markRead();
  } catch {
    // offline for a moment: the next push or reconnection tries again
  }
}

document.addEventListener("dicehall:push", (event) => {
  const message = event.detail;
  if (message?.type === "hello") catchUp(); // the socket (re)opened
  if (!message || message.type !== "message") return;
  if (String(message.thread_with).toLowerCase() !== other.toLowerCase()) return;
  show(message);
  if (String(message.from).toLowerCase() !== me) {
    unreadUpTo = Math.max(unreadUpTo, message.id);
    markRead();
  }
});
document.addEventListener("visibilitychange", markRead);

function say(text, bad = false) {
  if (!status) return;
  status.textContent = text;
  status.classList.toggle("bad", bad);
}

form?.addEventListener("submit", async (event) => {
  event.preventDefault();
  const button = form.querySelector('button[type="submit"]');
  const bodyField = form.elements.namedItem("body");
  const gameField = form.elements.namedItem("game");
  const game = gameField.value.trim().replace(/^#/, "");
  const payload = { body: bodyField.value };
  if (game) {
    if (!/^\d{1,10}$/.test(game)) {
      say("Type the number of a game (as in its address, /games/NUMBER).", true);
      gameField.focus();
      return;
    }
    payload.game_id = Number(game);
  }
  button.disabled = true;
  say("Sending…");
  try {
    const response = await fetch(api, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
      body: JSON.stringify(payload),
    });
    const answer = await response.json().catch(() => ({}));
    if (response.status === 201) {
      show(answer);
      bodyField.value = "";
      gameField.value = "";
      say("Sent.");
      bodyField.focus();
    } else {
      const text = String(answer.error || "the message could not be sent");
      say(text.charAt(0).toUpperCase() + text.slice(1) + (text.endsWith(".") ? "" : "."), true);
    }
  } catch {
    say("The message could not be sent: check your connection and try again.", true);
  } finally {
    button.disabled = false;
  }
});

// Ctrl+Enter (or Cmd+Enter) in the message sends it; Enter alone starts a new line.
form?.elements.namedItem("body")?.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
    event.preventDefault();
    form.requestSubmit();
  }
});

if (list) list.dataset.count = String(list.children.length);
document.body.dataset.threadReady = "1";
