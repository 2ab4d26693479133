// Tell a friend: copy buttons for invite links (the clipboard API, else the selected field
// and a visible hint), and the list of my invites kept current when a friend accepts one.

const live = () => document.getElementById("invites-live");

function say(text, near) {
  const where = (near && document.getElementById(near.dataset.status || "")) || live();
  if (where) where.textContent = text;
}

async function copyField(field) {
  try {
    await navigator.clipboard.writeText(field.value);
    return true;
  } catch {
    // No clipboard API (a page not served over https, say): select the link to copy by hand.
    field.focus();
    field.select();
    try {
      return document.execCommand("copy");
    } catch {
      return false;
    }
  }
}

document.addEventListener("click", async (event) => {
  const button = event.target instanceof Element ? event.target.closest("button[data-copy]") : null;
  if (!button) return;
  const field = document.getElementById(button.dataset.copy);
  if (!(field instanceof HTMLInputElement)) return;
  if (await copyField(field)) {
    say("Link copied: paste it into a message to your friend.", button);
  } else {
    field.focus();
    field.select();
    say("The link is selected: press Ctrl+C (⌘C on a Mac) to copy it.", button);
  }
});

let pending = false;

async function refresh(text) {
  if (pending) return;
  pending = true;
  try {
    const response = await fetch("/invites", { credentials: "same-origin" });
    if (!response.ok) return;
    const fresh = new DOMParser()
      .parseFromString(await response.text(), "text/html")
      .getElementById("invite-list");
    const shown = document.getElementById("invite-list");
    if (fresh && shown) {
      shown.replaceWith(document.importNode(fresh, true));
      say(text);
    }
  } catch {
    // offline for a moment: the list stays as it was
  } finally {
    pending = false;
  }
}

document.addEventListener("dicehall:push", (event) => {
  const message = event.detail;
  if (message && message.type === "notification" && message.kind === "invite_accepted") {
    refresh(`${message.text}.`);
  }
});

// A new link was just made: bring it into view with the focus, ready to copy.
const made = document.getElementById("new-link");
if (made) made.focus();
