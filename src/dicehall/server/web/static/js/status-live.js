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

function connect(delay = 500) {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}/api/v1/ws`);
  socket.addEventListener("open", () => {
    delay = 500;
    document.body.dataset.live = "on";
  });
  socket.addEventListener("message", (event) => {
    try {
      if (JSON.parse(event.data).type === "game") refresh();
    } catch {
      // not a message for us
    }
  });
  socket.addEventListener("close", () => {
    document.body.dataset.live = "off";
    setTimeout(() => connect(Math.min(delay * 2, 10000)), delay);
  });
}

connect();
