// Game status, live: when a push says one of my games changed, fetch the page again and
// swap in its list of games, so "waiting on you" is current without reloading.

const list = () => document.getElementById("status-games");
const note = document.getElementById("status-live");
let pending = false;

async function refresh() {
  if (pending) return;
  pending = true;
  try {
    const response = await fetch("/status", { credentials: "same-origin" });
    if (!response.ok) return;
    const fresh = new DOMParser()
      .parseFromString(await response.text(), "text/html")
      .getElementById("status-games");
    if (fresh && list()) {
      list().replaceWith(document.importNode(fresh, true));
      note.textContent = `Your games were updated at ${new Date().toLocaleTimeString()}.`;
      document.body.dataset.statusVersion = String(Number(document.body.dataset.statusVersion ?? 0) + 1);
      document.dispatchEvent(new Event("dicehall:games-changed"));
    }
  } finally {
    pending = false;
  }
}

// The page's push socket (push.js, shared with the header's bell) passes each message on.
document.addEventListener("dicehall:push", (event) => {
  // A game moved, a chat line came, or I read a game's chat on another page.
  const type = event.detail?.type;
  if (type === "game" || type === "chat" || type === "chat_read") refresh();
});
