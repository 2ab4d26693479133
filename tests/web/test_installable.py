"""The site installs as a web app, in Chromium: its manifest is valid JSON with the members an
install needs (Chromium's own manifest parser finds no error) and icons that load at their
declared sizes; ``/sw.js`` registers with the whole site as its scope and activates; and
the games list, visited once, loads from the worker's cache when the browser is offline,
network first when it is not, and is forgotten on logging out; all of it under the site's
Content-Security-Policy. webpush.js reports this browser's state.

(Headless Chromium cannot subscribe or receive a real push: the push path is tested against
a local push service in tests/server/test_webpush.py.)"""

from __future__ import annotations

import json
import struct
from typing import Any

from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.live import LiveServer
from tests.waiting import wait_until
from tests.web.conftest import create_game_api, shoot, signup_api

REQUIRED = ("name", "short_name", "start_url", "scope", "display", "icons")

#: Waits until the page's service worker has activated and controls the page; its state,
#: scope and script.
WORKER_READY = """async () => {
  const registration = await navigator.serviceWorker.ready;
  const worker = registration.active;
  while (worker.state !== "activated") {
    await new Promise((done) => worker.addEventListener("statechange", done, { once: true }));
  }
  if (!navigator.serviceWorker.controller) {
    await new Promise((done) =>
      navigator.serviceWorker.addEventListener("controllerchange", done, { once: true }));
  }
  return { state: registration.active.state, scope: registration.scope,
           script: registration.active.scriptURL };
}"""

#: Whether the worker's cache holds ``path`` (a page kept for offline use).
KEPT = """async (path) => {
  for (const name of await caches.keys()) {
    if (name.startsWith("dicehall-pages-") && await (await caches.open(name)).match(path)) {
      return true;
    }
  }
  return false;
}"""


def _png_size(data: bytes) -> tuple[int, int]:
    """A PNG's width and height, from its header chunk (which a PNG must start with)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR", data[:16]
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_the_manifest_is_valid_and_its_icons_load(page: Page, site: LiveServer) -> None:
    answer = page.context.request.get("/manifest.webmanifest")
    assert answer.ok
    assert answer.headers["content-type"].startswith("application/manifest+json")
    manifest: dict[str, Any] = json.loads(answer.body())
    for member in REQUIRED:
        assert manifest.get(member), member
    assert manifest["name"] == "dicehall"
    assert (manifest["start_url"], manifest["scope"], manifest["display"]) == (
        "/",
        "/",
        "standalone",
    )
    assert manifest["theme_color"].startswith("#") and manifest["background_color"].startswith("#")

    found: set[tuple[int, str]] = set()
    for icon in manifest["icons"]:
        assert icon["type"] == "image/png"
        loaded = page.context.request.get(icon["src"])
        assert loaded.ok, icon
        width, height = _png_size(loaded.body())
        assert icon["sizes"] == f"{width}x{height}" and width == height, icon
        found |= {(width, purpose) for purpose in icon["purpose"].split()}
    assert {(192, "any"), (512, "any"), (192, "maskable"), (512, "maskable")} <= found

    # The pages link it, and Chromium reads it without a complaint.
    page.goto("/")
    assert page.locator('link[rel="manifest"]').get_attribute("href") == "/manifest.webmanifest"
    expect(page.locator('meta[name="theme-color"]')).to_have_attribute(
        "content", manifest["theme_color"]
    )
    page.evaluate(WORKER_READY)
    cdp = page.context.new_cdp_session(page)
    parsed = cdp.send("Page.getAppManifest")
    assert parsed["url"] == f"{site.base}/manifest.webmanifest"
    assert [e for e in parsed["errors"] if e.get("critical")] == [], parsed["errors"]
    assert parsed["errors"] == [], parsed["errors"]
    assert json.loads(parsed["data"])["name"] == "dicehall"
    # Chromium's own install checks: none fails but that a test's context is incognito.
    installable = cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]
    assert [e for e in installable if e["errorId"] != "in-incognito"] == [], installable


def test_the_service_worker_registers_and_activates(page: Page, site: LiveServer) -> None:
    answer = page.context.request.get("/sw.js")
    assert answer.ok and "javascript" in answer.headers["content-type"]
    assert answer.headers["cache-control"] == "no-cache"
    page.goto("/")
    worker = page.evaluate(WORKER_READY)
    assert worker == {
        "state": "activated",
        "scope": f"{site.base}/",
        "script": f"{site.base}/sw.js",
    }
    assert [w.url for w in page.context.service_workers] == [f"{site.base}/sw.js"]


def _offline_status(context: BrowserContext, page: Page) -> None:
    context.set_offline(True)
    try:
        page.goto("/status")
    finally:
        context.set_offline(False)


def test_the_games_list_loads_from_the_cache_offline(
    context: BrowserContext, page: Page, site: LiveServer
) -> None:
    csrf = signup_api(context, "rover")
    first = create_game_api(context, csrf, "boatzee", ["me", "bot:greedy"])
    page.goto("/status")
    page.evaluate(WORKER_READY)
    # The first visit was not the worker's: it asks the worker to keep the page, and says so.
    expect(page.locator("html")).to_have_attribute("data-offline", "kept")
    assert page.evaluate(KEPT, "/status")

    context.set_offline(True)
    try:
        # The network is gone (the site itself cannot be reached), yet the list shows.
        assert not page.evaluate("() => fetch('/api/v1/games').then(() => true, () => false)")
        page.goto("/status")
        expect(page.get_by_role("heading", level=1)).to_be_visible()
        expect(page.locator(f'a[href="/games/{first}"]').first).to_be_visible()
        # With its styles: site.css came from the cache too.
        assert page.evaluate("getComputedStyle(document.body).margin") == "0px"
        shoot(page, "page-status-offline")
    finally:
        context.set_offline(False)

    # Online, the network comes first: a new game shows, and is what is kept next.
    second = create_game_api(context, csrf, "boss", ["me", "bot:random"])
    page.goto("/status")
    expect(page.locator(f'a[href="/games/{second}"]').first).to_be_visible()
    _offline_status(context, page)
    expect(page.locator(f'a[href="/games/{second}"]').first).to_be_visible()

    # Logging out forgets the kept list: offline, nothing of it is shown.
    page.goto("/status")
    page.locator("details.menu > summary", has_text="Account").click()
    page.get_by_role("button", name="Logout").click()
    expect(page).not_to_have_url(f"{site.base}/status")
    wait_until(lambda: not page.evaluate(KEPT, "/status"), what="the kept list to be forgotten")
    _offline_status(context, page)
    expect(page.get_by_text("You are offline")).to_be_visible()
    expect(page.locator(f'a[href="/games/{first}"]')).to_have_count(0)


def test_the_worker_and_manifest_pass_the_sites_policy(browser: Browser, site: LiveServer) -> None:
    """Without the tests' policy bypass: the manifest, the icons and the worker load under
    the site's Content-Security-Policy, and nothing is refused."""
    strict = browser.new_context(base_url=site.base)
    try:
        refused: list[str] = []
        page = strict.new_page()
        page.on(
            "console",
            lambda m: refused.append(m.text) if "Content Security Policy" in m.text else None,
        )
        signup_api(strict, "strict")
        page.goto("/status")
        expect(page.locator("html")).to_have_attribute("data-offline", "kept")
        manifest = page.context.new_cdp_session(page).send("Page.getAppManifest")
        assert manifest["errors"] == [] and json.loads(manifest["data"])["name"] == "dicehall"
        assert [w.url for w in strict.service_workers] == [f"{site.base}/sw.js"]
        assert refused == []
    finally:
        strict.close()


def test_the_push_switch_reports_this_browsers_state(
    context: BrowserContext, page: Page, site: LiveServer
) -> None:
    """webpush.js, as the settings page will use it: off with nothing subscribed, and a
    refused permission said in a sentence (subscribing needs the browser's real push
    service, which a headless browser has not)."""
    signup_api(context, "switch")
    page.goto("/status")
    page.evaluate(WORKER_READY)
    state = """async () => {
      const push = await import("/static/js/webpush.js");
      const out = { state: await push.pushState(), off: await push.disablePush() };
      try {
        await push.enablePush();
        out.enabled = true;
      } catch (error) {
        out.error = error.message;
      }
      return out;
    }"""
    found = page.evaluate(state)
    # Headless Chromium answers a permission request with a refusal.
    assert found == {
        "state": "off",
        "off": False,
        "error": "notifications are blocked for this site (see the browser's site settings)",
    }
    context.grant_permissions(["notifications"])
    assert page.evaluate("async () => (await import('/static/js/webpush.js')).pushState()") == "off"
    key = page.context.request.get("/api/v1/push/key").json()["public_key"]
    assert len(key) == 87
