// The header's count of games waiting on me (my turn, or an invitation), also put before the
// page title, so a tab in the background says when it is my move. Fetched when the page
// opens, when it comes back into view, and when a page says my games changed.

const badge = document.getElementById("waiting-on-me");
const baseTitle = document.title.replace(/^\(\d+\) /, "");
let pending = false;

function show(count) {
  if (!badge) return;
  badge.hidden = count === 0;
  badge.querySelector(".n").textContent = count === 0 ? "" : String(count);
  document.title = count === 0 ? baseTitle : `(${count}) ${baseTitle}`;
  document.body.dataset.waitingOnMe = String(count);
}

async function refresh() {
  if (pending) return;
  pending = true;
  try {
    const response = await fetch("/api/v1/games/waiting-on-me", { credentials: "same-origin" });
    if (!response.ok) return;
    const counts = await response.json();
    show(counts.your_turn + counts.invitations);
  } catch {
    // offline for a moment: the count stays as it was
  } finally {
    pending = false;
  }
}

document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible") refresh();
});
document.addEventListener("dicehall:games-changed", refresh);
refresh();
