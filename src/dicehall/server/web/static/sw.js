// dicehall's service worker, served at /sw.js so that its scope is the whole site
// (registered by /static/js/pwa.js).
//
// - Web Push: each push is a notice, {"title", "body", "tag", "url", "id"} (see the server's
//   domain/notices/push_delivery.py), shown as a notification; one tag per game, so a
//   game's notices replace one another. A click focuses a tab already at its URL, or opens
//   one.
// - Offline: the games list (/status) and the home page are fetched from the network first
//   and kept; without a network the kept copy is shown, with the styles and scripts it
//   needs (every /static/ file is kept the same way). Logging out forgets the kept pages.
//
// Caches are named with VERSION: a new version deletes the older caches when it activates.

const VERSION = "v1";
const PAGES = `dicehall-pages-${VERSION}`;
const STATIC = `dicehall-static-${VERSION}`;
const KEPT = [PAGES, STATIC];
// The pages kept for offline use; "/" offline without a copy of its own shows the games list.
const OFFLINE_PAGES = ["/", "/status"];
// Signing out (the page's form, or the API) forgets the pages kept for the one signed in.
const LOGOUTS = ["/logout", "/api/v1/auth/logout"];

self.addEventListener("install", () => {
  self.skipWaiting();
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) {
        if (name.startsWith("dicehall-") && !KEPT.includes(name)) await caches.delete(name);
      }
      await self.clients.claim();
    })(),
  );
});

function keepable(response) {
  return response && response.ok && !response.redirected && response.type === "basic";
}

async function networkFirst(request, cacheName, fallbacks = []) {
  const cache = await caches.open(cacheName);
  try {
    const response = await fetch(request);
    if (keepable(response)) await cache.put(request, response.clone());
    return response;
  } catch (error) {
    for (const key of [request, ...fallbacks]) {
      const kept = await cache.match(key, { ignoreSearch: cacheName === STATIC, ignoreVary: true });
      if (kept) return kept;
    }
    if (cacheName === PAGES) {
      return new Response(
        "<!doctype html><meta charset=utf-8><meta name=viewport content='width=device-width'>" +
          "<title>Offline · dicehall</title><p>You are offline, and this page was not kept." +
          " <a href='/status'>Your games</a> as last seen may be.</p>",
        { status: 503, headers: { "Content-Type": "text/html; charset=utf-8" } },
      );
    }
    throw error;
  }
}

async function forgetPages() {
  await caches.delete(PAGES);
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.method === "POST" && LOGOUTS.includes(url.pathname)) {
    // What was kept is this user's: nobody else sees it offline.
    event.waitUntil(forgetPages());
    return;
  }
  if (request.method !== "GET") return;
  if (request.mode === "navigate" && OFFLINE_PAGES.includes(url.pathname)) {
    const fallbacks = url.pathname === "/" ? ["/status"] : [];
    event.respondWith(networkFirst(request, PAGES, fallbacks));
  } else if (url.pathname.startsWith("/static/")) {
    event.respondWith(networkFirst(request, STATIC));
  }
});

// A page loaded before this worker controlled it (the first visit) names itself and the
// files it loaded, so that they are kept as if they had come through the worker.
self.addEventListener("message", (event) => {
  const data = event.data || {};
  if (data.type !== "remember") return;
  event.waitUntil(
    (async () => {
      const page = new URL(data.page || "/", self.location.origin);
      if (page.origin === self.location.origin && OFFLINE_PAGES.includes(page.pathname)) {
        try {
          const response = await fetch(page.pathname, { credentials: "same-origin" });
          if (keepable(response)) await (await caches.open(PAGES)).put(page.pathname, response);
        } catch {
          // Offline already: nothing to keep.
        }
      }
      const statics = await caches.open(STATIC);
      for (const file of data.files || []) {
        const url = new URL(file, self.location.origin);
        if (url.origin !== self.location.origin || !url.pathname.startsWith("/static/")) continue;
        try {
          const response = await fetch(url.href);
          if (keepable(response)) await statics.put(url.href, response);
        } catch {
          // Offline already.
        }
      }
      if (event.source) event.source.postMessage({ type: "remembered" });
    })(),
  );
});

function safeUrl(text) {
  try {
    const url = new URL(text || "/", self.location.origin);
    const web = url.protocol === "https:" || url.protocol === "http:";
    return web ? url.href : `${self.location.origin}/`;
  } catch {
    return `${self.location.origin}/`;
  }
}

self.addEventListener("push", (event) => {
  let notice = {};
  if (event.data) {
    try {
      notice = event.data.json();
    } catch {
      notice = { body: event.data.text() };
    }
  }
  const url = safeUrl(notice.url);
  const tag = typeof notice.tag === "string" && notice.tag ? notice.tag : "dicehall";
  event.waitUntil(
    (async () => {
      // The player is looking at that very page: it shows the news itself.
      const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
      if (windows.some((client) => client.focused && client.url === url)) return;
      await self.registration.showNotification(notice.title || "dicehall", {
        body: notice.body || "",
        tag,
        renotify: true,
        icon: "/static/icons/icon-192.png",
        data: { url, id: notice.id ?? null },
      });
    })(),
  );
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = safeUrl(event.notification.data && event.notification.data.url);
  event.waitUntil(
    (async () => {
      const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
      for (const client of windows) {
        if (client.url === url && "focus" in client) return client.focus();
      }
      return self.clients.openWindow(url);
    })(),
  );
});
