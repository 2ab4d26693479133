// Singularity, live. The page opens its own push socket following the site's pulse
// (socket.js with /api/v1/ws?singularity=1, signed in or not), which passes every message on
// as a "dicehall:push" event as push.js does elsewhere, so the header's bell still hears its
// user's pushes. When a push says a game or a tournament ended, and every minute for the
// counts, the page is fetched again and its #pulse swapped in: at most once every few
// seconds however many games end at once. New moments are read out by the polite live
// region #pulse-live; the keyboard's focus stays on the link it was on.

import { connect } from "/static/js/socket.js";

// The shortest time between two fetches of the page.
const GAP = 5000;
const box = () => document.getElementById("pulse");
const live = document.getElementById("pulse-live");
const every = Math.max(15, Number(box()?.dataset.refresh ?? 60)) * 1000;
let pending = false;
let again = false;
let last = 0;
let timer = null;

// What the moments newer than `after` say, newest first.
function news(root, after) {
  return [...root.querySelectorAll(".pulse-moments li[data-id]")]
    .filter((item) => Number(item.dataset.id) > after)
    .map((item) => item.querySelector(".sentence").textContent.replace(/\s+/g, " ").trim());
}

// Where a link is, so that the same link can be found in the new content.
function place(link) {
  const item = link.closest("li[data-id]");
  if (!item) return { href: link.getAttribute("href") };
  return { id: item.dataset.id, index: [...item.querySelectorAll("a")].indexOf(link) };
}

function find(root, where) {
  if (where.href !== undefined) {
    return [...root.querySelectorAll("a")].find((a) => a.getAttribute("href") === where.href);
  }
  const item = [...root.querySelectorAll("li[data-id]")].find((li) => li.dataset.id === where.id);
  return item?.querySelectorAll("a")[where.index];
}

async function refresh() {
  if (pending) {
    again = true;
    return;
  }
  pending = true;
  last = Date.now();
  try {
    const response = await fetch("/singularity", { credentials: "same-origin" });
    if (!response.ok) return;
    const html = new DOMParser().parseFromString(await response.text(), "text/html");
    const fresh = html.getElementById("pulse");
    const current = box();
    if (!fresh || !current) return;
    const told = news(fresh, Number(current.dataset.latest ?? 0));
    const focused = current.contains(document.activeElement) && document.activeElement.matches("a")
      ? place(document.activeElement)
      : null;
    const made = document.importNode(fresh, true);
    current.replaceWith(made);
    if (focused) find(made, focused)?.focus();
    if (told.length === 1) {
      live.textContent = `New: ${told[0]}`;
    } else if (told.length > 1) {
      live.textContent = `${told.length} new moments. The latest: ${told[0]}`;
    }
    document.body.dataset.pulseVersion = String(Number(document.body.dataset.pulseVersion ?? 0) + 1);
  } catch {
    // offline for a moment: the page stays as it was
  } finally {
    pending = false;
    if (again) {
      again = false;
      soon();
    }
  }
}

// A fetch as soon as the last one is GAP old.
function soon() {
  if (timer !== null) return;
  timer = setTimeout(() => {
    timer = null;
    refresh();
  }, Math.max(0, GAP - (Date.now() - last)));
}

connect({
  query: { singularity: 1 },
  onMessage(message) {
    if (message.type === "singularity") soon();
  },
  // After a break the socket may have missed an end: ask again.
  onOpen({ again: reopened }) {
    if (reopened) soon();
  },
  jitter: 0.3,
});
setInterval(() => {
  if (!document.hidden) soon();
}, every);
document.addEventListener("visibilitychange", () => {
  if (!document.hidden && Date.now() - last > every) soon();
});
