// A ladder page, live: when a push says a position moved, I was challenged, or one of my
// games ended, fetch the page again and swap in its body, so the positions and my games
// stay current (a move within a game changes nothing here).

const body = () => document.getElementById("ladder-body");
const note = document.getElementById("ladder-live");
let pending = false;

async function refresh() {
  if (pending) return;
  pending = true;
  try {
    const response = await fetch(location.pathname + location.search, { credentials: "same-origin" });
    if (!response.ok) return;
    const fresh = new DOMParser()
      .parseFromString(await response.text(), "text/html")
      .getElementById("ladder-body");
    if (fresh && body()) {
      body().replaceWith(document.importNode(fresh, true));
      note.textContent = `The ladder was updated at ${new Date().toLocaleTimeString()}.`;
      document.body.dataset.ladderVersion = String(Number(document.body.dataset.ladderVersion ?? 0) + 1);
    }
  } finally {
    pending = false;
  }
}

// The page's push socket (push.js) passes each message on.
document.addEventListener("dicehall:push", (event) => {
  const detail = event.detail ?? {};
  const kind = body()?.dataset.kind;
  const ended = detail.type === "game" && detail.status !== "active";
  if ((detail.type === "ladder" && detail.kind === kind) || ended) refresh();
});
