// The notifications page, live: a notification pushed while it is open is fetched with the
// page again (which marks it read, so the bell clears) and the list swapped in.

const list = () => document.getElementById("notification-list");
let pending = false;

async function refresh() {
  if (pending) return;
  pending = true;
  try {
    const response = await fetch("/notifications", { credentials: "same-origin" });
    if (!response.ok) return;
    const fresh = new DOMParser()
      .parseFromString(await response.text(), "text/html")
      .getElementById("notification-list");
    if (fresh && list()) {
      list().replaceWith(document.importNode(fresh, true));
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
  }
}

document.addEventListener("dicehall:push", (event) => {
  if (event.detail && event.detail.type === "notification") refresh();
});
