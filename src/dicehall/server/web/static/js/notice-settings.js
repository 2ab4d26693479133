// The settings page's Notifications section: turn pushes on or off for this browser (with
// webpush.js), say how they stand in an aria-live region, and list the browsers pushed to
// (GET /api/v1/push/subscriptions); offer this device's time zone for the time zone field.
import { disablePush, enablePush, pushState } from "/static/js/webpush.js";

const state = document.getElementById("push-state");
const on = document.getElementById("push-on");
const off = document.getElementById("push-off");
const devices = document.getElementById("push-devices");

const WORDS = {
  unsupported: "This browser cannot receive pushes from this site.",
  denied: "Notifications are blocked for this site; allow them in the browser's site settings.",
  on: "Pushes are on for this device.",
  off: "Pushes are off for this device.",
};

function show(current, extra = "") {
  state.textContent = `${WORDS[current] ?? ""}${extra ? ` ${extra}` : ""}`;
  on.hidden = current !== "off";
  off.hidden = current !== "on";
}

async function refreshDevices() {
  const response = await fetch("/api/v1/push/subscriptions", {
    headers: { Accept: "application/json" },
    credentials: "same-origin",
  });
  if (!response.ok) return;
  const { subscriptions } = await response.json();
  const items = subscriptions.map((s) => {
    const item = document.createElement("li");
    const since = new Date(s.created_at).toLocaleString();
    item.textContent = `${s.host}, since ${since}${s.last_error ? `; the last push failed: ${s.last_error}` : ""}`;
    return item;
  });
  if (!items.length) {
    const none = document.createElement("li");
    none.textContent = "None.";
    items.push(none);
  }
  devices.replaceChildren(...items);
}

async function act(button, work, done) {
  button.disabled = true;
  state.textContent = "Working…";
  try {
    await work();
    show(await pushState(), done);
    await refreshDevices();
  } catch (error) {
    show(await pushState(), `It did not work: ${error.message}.`);
  } finally {
    button.disabled = false;
  }
}

if (state && on && off && devices) {
  on.addEventListener("click", () => act(on, enablePush, "This device will be pushed your notices."));
  off.addEventListener("click", () => act(off, disablePush, "No more pushes to this device."));
  pushState().then(
    (current) => show(current),
    (error) => show("unsupported", error.message),
  );
}

const zoneField = document.getElementById("f-time_zone");
const zoneOffer = document.getElementById("device-zone");
const zoneButton = document.getElementById("use-device-zone");
let deviceZone = "";
try {
  deviceZone = Intl.DateTimeFormat().resolvedOptions().timeZone || "";
} catch {
  deviceZone = "";
}
if (zoneField && zoneOffer && zoneButton && deviceZone && deviceZone !== zoneField.value) {
  zoneButton.textContent = `Use this device's time zone (${deviceZone})`;
  zoneOffer.hidden = false;
  zoneButton.addEventListener("click", () => {
    zoneField.value = deviceZone;
    zoneField.focus(); // before hiding the button, so the focus is not lost
    zoneOffer.hidden = true;
  });
}
