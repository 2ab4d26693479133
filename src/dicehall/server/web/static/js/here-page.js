// Who is here?, live: the lists are fetched with the page again every few seconds (every 20
// by default, from data-refresh) and after a push, and swapped in; the counts line (a polite
// live region) changes only when the counts do. Nothing is asked while the tab is hidden.

const lists = () => document.getElementById("here-lists");
const counts = () => document.getElementById("here-counts");
const every = Math.max(2, Number(lists()?.dataset.refresh ?? 20)) * 1000;
let pending = false;
let last = 0;

async function refresh() {
  if (pending || document.hidden) return;
  pending = true;
  last = Date.now();
  try {
    const response = await fetch("/here", { credentials: "same-origin" });
    if (!response.ok) return;
    const fresh = new DOMParser().parseFromString(await response.text(), "text/html");
    const freshLists = fresh.getElementById("here-lists");
    const freshCounts = fresh.getElementById("here-counts");
    if (freshLists && lists()) {
      lists().replaceWith(document.importNode(freshLists, true));
    }
    if (freshCounts && counts() && counts().textContent !== freshCounts.textContent) {
      counts().textContent = freshCounts.textContent;
    }
    document.body.dataset.hereVersion = String(Number(document.body.dataset.hereVersion ?? 0) + 1);
  } catch {
    // offline for a moment: the lists stay as they were
  } finally {
    pending = false;
  }
}

setInterval(refresh, every);
// A push (a game moved, a message came) often means someone is about: ask again, but at most
// once every few seconds.
document.addEventListener("dicehall:push", () => {
  if (Date.now() - last > 3000) refresh();
});
document.addEventListener("visibilitychange", () => {
  if (!document.hidden && Date.now() - last > every) refresh();
});
