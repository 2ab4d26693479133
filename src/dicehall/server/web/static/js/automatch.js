// The auto-match page, live: every few seconds (and on each auto-match push) it asks
// GET /api/v1/automatch for the queues and my tickets, updates the counts and estimated
// waits in place, redraws my tickets when one appeared, went or changed, and opens the
// game as soon as a ticket this page watches (waiting when it was drawn, or just filed)
// finds its table.

const POLL_MS = 4000;
const root = document.getElementById("automatch");
const live = document.getElementById("automatch-live");
const watching = new Set(
  (root?.dataset.watching ?? "").split(" ").filter(Boolean).map(Number),
);
let going = false;
let pending = false;

function duration(seconds) {
  if (seconds < 60) return "under a minute";
  const minutes = Math.round(seconds / 60);
  if (minutes < 90) return `${minutes} minute${minutes === 1 ? "" : "s"}`;
  const hours = Math.round(seconds / 3600);
  if (hours < 36) return `${hours} hours`;
  return `${Math.round(seconds / 86400)} days`;
}

function waitText(seconds) {
  if (seconds === null || seconds === undefined) return "not known yet";
  return seconds < 60 ? "under a minute" : `about ${duration(seconds)}`;
}

function go(gameId) {
  if (going || !gameId) return;
  going = true;
  if (live) live.textContent = `Matched: opening game ${gameId}.`;
  location.assign(`/games/${gameId}`);
}

async function redraw() {
  // My tickets as the page draws them, swapped in (the cards keep their open settings).
  const response = await fetch("/automatch", { credentials: "same-origin" });
  if (!response.ok) return;
  const fresh = new DOMParser()
    .parseFromString(await response.text(), "text/html")
    .getElementById("automatch-mine");
  const mine = document.getElementById("automatch-mine");
  if (fresh && mine) {
    const focused = mine.contains(document.activeElement);
    mine.replaceWith(document.importNode(fresh, true));
    if (focused) document.getElementById("mine-h")?.focus();
    if (live) live.textContent = "Your tickets were updated.";
  }
}

async function poll() {
  if (pending || going || !root) return;
  pending = true;
  try {
    const response = await fetch("/api/v1/automatch", {
      credentials: "same-origin",
      headers: { Accept: "application/json" },
    });
    if (!response.ok) return;
    const answer = await response.json();
    // One card per variant (Boatzee, Double and Triple Boatzee each have their own queue).
    for (const queue of answer.queues.flatMap((q) => q.variants ?? [])) {
      const card = root.querySelector(`[data-queue="${CSS.escape(queue.key)}"]`);
      if (!card) continue;
      card.querySelector(".queue-waiting").textContent = String(queue.waiting);
      card.querySelector(".queue-wait").textContent = waitText(queue.estimated_wait_s);
    }
    let changed = root.querySelectorAll("[data-ticket]").length !== answer.tickets.length;
    for (const ticket of answer.tickets) {
      if (ticket.status === "matched" && watching.has(ticket.id)) {
        go(ticket.game_id);
        return;
      }
      const item = root.querySelector(`[data-ticket="${ticket.id}"]`);
      if (!item || item.dataset.status !== ticket.status) {
        changed = true;
        continue;
      }
      const wait = item.querySelector(".ticket-wait");
      if (wait) wait.textContent = waitText(ticket.estimated_wait_s);
    }
    if (changed) await redraw();
  } catch {
    // Offline for a moment: the next round tries again.
  } finally {
    pending = false;
  }
}

// A ticket matched before the page was drawn (filed, and seated at once).
for (const item of root?.querySelectorAll('[data-status="matched"]') ?? []) {
  if (watching.has(Number(item.dataset.ticket))) go(Number(item.dataset.game));
}

// The page's push socket (push.js) passes each message on.
document.addEventListener("dicehall:push", (event) => {
  const detail = event.detail ?? {};
  if (detail.type !== "automatch") return;
  if (watching.has(detail.ticket)) go(detail.game);
  else poll();
});

setInterval(() => {
  if (!document.hidden) poll();
}, POLL_MS);
poll();
