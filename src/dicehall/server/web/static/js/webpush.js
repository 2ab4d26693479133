// Web Push for this browser: turn the site's pushed notices on or off here.
//
//   import { enablePush, disablePush, pushState } from "/static/js/webpush.js";
//
//   await pushState()   -> "unsupported" (no service worker or Push API here, or not a
//                          secure origin), "denied" (notifications blocked for the site: only
//                          the browser's own settings undo that), "on" (this browser is
//                          subscribed), or "off".
//   await enablePush()  -> asks for notification permission (call it from a click: browsers
//                          refuse a request made without one), registers /sw.js, subscribes
//                          with the site's key (GET /api/v1/push/key) and posts the
//                          subscription to POST /api/v1/push/subscriptions; resolves to
//                          {"id": n}. Rejects with an Error whose message says why (permission
//                          refused, the site refused the subscription, ...).
//   await disablePush() -> tells the site to stop (DELETE /api/v1/push/subscriptions/{id})
//                          and unsubscribes this browser; resolves to true when it was on.
//
// Writes send the page's CSRF token (meta[name="csrf-token"]) in X-CSRF-Token, as the site's
// other scripts do; the page must be a signed-in member's.

const csrf = () => document.querySelector('meta[name="csrf-token"]')?.content ?? "";

function supported() {
  return (
    window.isSecureContext &&
    "serviceWorker" in navigator &&
    "PushManager" in window &&
    "Notification" in window
  );
}

function keyBytes(base64url) {
  const base64 = base64url.replace(/-/g, "+").replace(/_/g, "/");
  const text = atob(base64 + "=".repeat((4 - (base64.length % 4)) % 4));
  return Uint8Array.from(text, (char) => char.charCodeAt(0));
}

function sameKey(subscription, key) {
  const had = subscription.options?.applicationServerKey;
  if (!had) return true; // the browser does not say: trust it
  const mine = keyBytes(key);
  const theirs = new Uint8Array(had);
  return mine.length === theirs.length && mine.every((byte, i) => byte === theirs[i]);
}

async function api(method, path, body) {
  const headers = { Accept: "application/json" };
  if (method !== "GET") headers["X-CSRF-Token"] = csrf();
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(path, {
    method,
    headers,
    credentials: "same-origin",
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  let answer = null;
  try {
    answer = await response.json();
  } catch {
    answer = null;
  }
  if (!response.ok) {
    throw new Error(answer?.error ?? `the site answered ${response.status}`);
  }
  return answer;
}

async function registration() {
  await navigator.serviceWorker.register("/sw.js", { scope: "/" });
  return navigator.serviceWorker.ready;
}

/** "unsupported", "denied", "on" or "off" (see the top of this file). */
export async function pushState() {
  if (!supported()) return "unsupported";
  if (Notification.permission === "denied") return "denied";
  const found = await navigator.serviceWorker.getRegistration("/");
  const subscription = found ? await found.pushManager.getSubscription() : null;
  return subscription && Notification.permission === "granted" ? "on" : "off";
}

/** Turn pushes on for this browser; resolves to {"id": n} (see the top of this file). */
export async function enablePush() {
  if (!supported()) throw new Error("this browser cannot receive pushes from this site");
  const permission = await Notification.requestPermission();
  if (permission !== "granted") {
    throw new Error(
      permission === "denied"
        ? "notifications are blocked for this site (see the browser's site settings)"
        : "notifications were not allowed",
    );
  }
  const ready = await registration();
  const { public_key: key } = await api("GET", "/api/v1/push/key");
  let subscription = await ready.pushManager.getSubscription();
  if (subscription && !sameKey(subscription, key)) {
    // Made with another key (the site's changed): its pushes would be refused.
    await subscription.unsubscribe();
    subscription = null;
  }
  if (!subscription) {
    subscription = await ready.pushManager.subscribe({
      userVisibleOnly: true,
      applicationServerKey: keyBytes(key),
    });
  }
  return api("POST", "/api/v1/push/subscriptions", subscription.toJSON());
}

/** Turn pushes off for this browser; resolves to whether they were on. */
export async function disablePush() {
  if (!supported()) return false;
  const found = await navigator.serviceWorker.getRegistration("/");
  const subscription = found ? await found.pushManager.getSubscription() : null;
  if (!subscription) return false;
  try {
    // Posting a known endpoint again answers its id (it stays this user's).
    const { id } = await api("POST", "/api/v1/push/subscriptions", subscription.toJSON());
    await api("DELETE", `/api/v1/push/subscriptions/${id}`);
  } finally {
    // Even if the site could not be told: a push to an ended subscription is answered 410
    // by the push service, and the site then forgets it.
    await subscription.unsubscribe();
  }
  return true;
}
