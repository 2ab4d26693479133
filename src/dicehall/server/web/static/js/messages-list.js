// The messages list, live: when a message arrives or a thread is read on another page, the
// list is fetched again and swapped in (each thread's unread count and last message).

const list = () => document.getElementById("thread-list");
let pending = false;
let again = false;

async function refresh() {
  if (pending) {
    again = true;
    return;
  }
  pending = true;
  try {
    const response = await fetch("/messages", { credentials: "same-origin" });
    if (!response.ok) return;
    const fresh = new DOMParser()
      .parseFromString(await response.text(), "text/html")
      .getElementById("thread-list");
    if (fresh && list()) {
      list().replaceWith(document.importNode(fresh, true));
      document.body.dataset.threadsVersion = String(
        Number(document.body.dataset.threadsVersion ?? 0) + 1,
      );
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

document.addEventListener("dicehall:push", (event) => {
  const type = event.detail?.type;
  if (type === "message" || type === "messages_read") refresh();
});
