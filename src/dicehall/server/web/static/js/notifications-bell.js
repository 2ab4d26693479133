// The header's bell: how many of my notifications are unread. Fetched when the page opens
// and when it comes back into view, then kept current by pushes ("dicehall:push" events):
// a new notification (also said to screen readers) or notifications read on another page.
// The bell keeps one line per game: a notification that `replaces` an unread line of the
// same game leaves the count as it was; a new line adds one. The count is then asked again.

const badge = document.getElementById("bell-count");
const live = document.getElementById("bell-live");
// The link's name says the count ("Notifications, unread: 3"); the badge shows it.
const named = document.getElementById("bell-unread");
let pending = false;
let again = false;
let shown = 0;

function show(count) {
  shown = count;
  if (!badge) return;
  badge.hidden = count === 0;
  badge.querySelector(".n").textContent = count === 0 ? "" : String(count);
  if (named) named.textContent = count === 0 ? "" : `, unread: ${count}`;
  document.body.dataset.unread = String(count);
}

async function refresh() {
  if (pending) {
    again = true; // a change came in while asking: ask once more after
    return;
  }
  pending = true;
  try {
    const response = await fetch("/api/v1/notifications?limit=1", { credentials: "same-origin" });
    if (response.ok) show((await response.json()).unread);
  } catch {
    // offline for a moment: the count stays as it was
  } finally {
    pending = false;
    if (again) {
      again = false;
      refresh();
    }
  }
}

document.addEventListener("dicehall:push", (event) => {
  const message = event.detail;
  if (!message) return;
  if (message.type === "notification") {
    if (live) live.textContent = `New notification: ${message.text}`;
    const replaced = message.replaces !== null && message.replaces !== undefined;
    if (!replaced) show(shown + 1);
    refresh();
  } else if (message.type === "notifications_read" && Number.isInteger(message.unread)) {
    show(message.unread);
  }
});
document.addEventListener("dicehall:notifications-seen", refresh);
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible") refresh();
});
refresh();
