// The notifications page, live. A notification pushed while it is open goes on top at once
// (the line it replaces, the same game's, is taken out: one line per game), then the page is
// fetched again (which marks it read, so the bell clears) and the list swapped in.
// An invitation's Accept and Decline answer in place through the API (without scripts the
// forms post to the page's own routes).

const list = () => document.getElementById("notification-list");
const news = document.getElementById("notification-news");
const csrf = document.querySelector('meta[name="csrf-token"]')?.content ?? "";
let pending = false;
let again = false;

async function refresh() {
  if (pending) {
    again = true;
    return;
  }
  pending = true;
  try {
    const response = await fetch("/notifications", { credentials: "same-origin" });
    if (!response.ok) return;
    const fresh = new DOMParser()
      .parseFromString(await response.text(), "text/html")
      .getElementById("notification-list");
    if (fresh && list()) {
      // Keep the keyboard where it was when the same control is drawn again.
      const focused = document.activeElement?.closest?.("[data-id]")?.dataset.id;
      list().replaceWith(document.importNode(fresh, true));
      if (focused) list().querySelector(`[data-id="${CSS.escape(focused)}"] a`)?.focus();
      document.body.dataset.notificationsVersion = String(
        Number(document.body.dataset.notificationsVersion ?? 0) + 1,
      );
      // Those shown are read now: the bell asks again (after any answer already on its way).
      document.dispatchEvent(new Event("dicehall:notifications-seen"));
    }
  } catch {
    // offline for a moment: the list stays as it was
  } finally {
    pending = false;
    if (again) {
      again = false;
      refresh();
    }
  }
}

/** Put a pushed notification on top at once, taking out the line it replaces. */
function place(message) {
  const box = list();
  if (!box) return;
  if (message.replaces !== null && message.replaces !== undefined) {
    box.querySelector(`li[data-id="${CSS.escape(String(message.replaces))}"]`)?.remove();
  }
  let items = box.querySelector("ol.notifications");
  if (!items) {
    items = document.createElement("ol");
    items.className = "notifications";
    box.querySelector("p.muted")?.remove();
    box.prepend(items);
  }
  const line = document.createElement("li");
  line.className = "notification new";
  line.dataset.id = String(message.id);
  line.dataset.kind = String(message.kind ?? "");
  line.dataset.events = String(message.events ?? 1);
  const tag = document.createElement("strong");
  tag.className = "tag";
  tag.textContent = "New";
  const text = document.createElement("span");
  text.className = "text";
  if (Number.isInteger(message.game)) {
    line.dataset.game = String(message.game);
    const link = document.createElement("a");
    link.href = `/games/${message.game}`;
    link.textContent = message.text;
    text.append(link);
  } else {
    text.textContent = message.text;
  }
  line.append(tag, " ", text);
  if (message.events > 1) {
    const count = document.createElement("span");
    count.className = "events muted";
    count.textContent = `${message.events} updates`;
    line.append(" ", count);
  }
  items.prepend(line);
}

/** Accept or decline an invitation from its line, without leaving the page. */
async function answer(form) {
  const box = form.closest(".invite-answer");
  const game = box?.dataset.game;
  const what = form.dataset.answer;
  if (!box || !game || !what) return;
  for (const button of box.querySelectorAll("button")) button.disabled = true;
  let said;
  try {
    const response = await fetch(`/api/v1/games/${encodeURIComponent(game)}/${what}`, {
      method: "POST",
      headers: { Accept: "application/json", "X-CSRF-Token": csrf },
      credentials: "same-origin",
    });
    const data = await response.json().catch(() => ({}));
    if (!response.ok) {
      said = document.createElement("span");
      said.className = "field-error";
      said.textContent = data.error ?? `the server answered ${response.status}`;
    } else if (what === "accept") {
      said = document.createElement("span");
      said.append("You accepted: ");
      const link = document.createElement("a");
      link.href = `/games/${game}`;
      link.textContent = `open game ${game}`;
      said.append(link, ".");
    } else {
      said = document.createElement("span");
      said.textContent = "You declined: the game is called off.";
    }
  } catch {
    for (const button of box.querySelectorAll("button")) button.disabled = false;
    if (news) news.textContent = "The site cannot be reached just now; try again.";
    return;
  }
  said.classList.add("answered");
  said.tabIndex = -1;
  box.replaceChildren(said);
  (said.querySelector("a") ?? said).focus();
  if (news) news.textContent = said.textContent;
  document.dispatchEvent(new Event("dicehall:games-changed"));
}

document.addEventListener("submit", (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement) || !form.closest(".invite-answer")) return;
  event.preventDefault();
  answer(form);
});

document.addEventListener("dicehall:push", (event) => {
  if (event.detail && event.detail.type === "notification") {
    place(event.detail);
    refresh();
  }
});
