// The header's count of unread messages (#messages-count, its number in .n; the link's
// name says it too through #messages-unread). Fetched when the page opens and when it
// comes back into view, then kept current by pushes: every "message" and "messages_read"
// push carries my total of unread messages. A new message from someone is also said to
// screen readers, unless this page is that very thread (which says it itself).

const badge = document.getElementById("messages-count");
const named = document.getElementById("messages-unread");
let live = null;

function show(count) {
  if (!Number.isInteger(count) || count < 0) return;
  if (badge) {
    badge.hidden = count === 0;
    const number = badge.querySelector(".n") ?? badge;
    number.textContent = count === 0 ? "" : String(count);
  }
  if (named) named.textContent = count === 0 ? "" : `, unread: ${count}`;
  document.body.dataset.messagesUnread = String(count);
}

function announce(text) {
  if (!live) {
    live = document.createElement("span");
    live.className = "visually-hidden";
    live.setAttribute("aria-live", "polite");
    document.body.append(live);
  }
  live.textContent = text;
}

async function refresh() {
  try {
    const response = await fetch("/api/v1/messages?limit=1", { credentials: "same-origin" });
    if (response.ok) show((await response.json()).unread);
  } catch {
    // offline for a moment: the count stays as it was
  }
}

document.addEventListener("dicehall:push", (event) => {
  const message = event.detail;
  if (!message) return;
  if (message.type === "message" || message.type === "messages_read") show(message.unread);
  if (message.type !== "message") return;
  const fromThem = String(message.from).toLowerCase() === String(message.thread_with).toLowerCase();
  const thread = document.getElementById("messages")?.dataset.threadWith ?? "";
  if (fromThem && thread.toLowerCase() !== String(message.thread_with).toLowerCase()) {
    announce(`New message from ${message.from_name}`);
  }
});
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible") refresh();
});
if (badge || named) refresh();
