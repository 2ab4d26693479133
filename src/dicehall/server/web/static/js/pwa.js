// Makes the site installable and its games list readable offline: registers the service
// worker (/sw.js, scope "/"). On a page the worker did not yet control (the first visit),
// it asks the worker to keep this page and the files it loaded, as later visits do by
// themselves; when the worker has, html[data-offline] turns "kept". Loaded by every page
// (base.html); it does nothing where service workers are not available (an insecure origin,
// an old browser).

async function start() {
  if (!("serviceWorker" in navigator)) return;
  try {
    await navigator.serviceWorker.register("/sw.js", { scope: "/" });
  } catch {
    return; // no worker: the site works as before, online only
  }
  if (navigator.serviceWorker.controller) return;
  const worker = (await navigator.serviceWorker.ready).active;
  if (!worker) return;
  const files = performance
    .getEntriesByType("resource")
    .map((entry) => entry.name)
    .filter((name) => new URL(name, location.href).pathname.startsWith("/static/"));
  navigator.serviceWorker.addEventListener("message", (event) => {
    if (event.data?.type === "remembered") document.documentElement.dataset.offline = "kept";
  });
  worker.postMessage({ type: "remember", page: location.pathname, files });
}

start();
