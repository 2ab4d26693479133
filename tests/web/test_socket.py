"""The push socket lives in one module, ``static/js/socket.js``, which push.js, the board
(board-core.js) and the tournament page (tournament.js) use: its pauses between tries and
what it passes on, in Chromium with a stand-in WebSocket and timers; and pages whose socket
the server closes open another and go on hearing pushes (a tournament page looks once for
what it missed)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, BrowserContext, Page, WebSocketRoute, expect

from tests.live import LiveServer
from tests.web.conftest import accept_game_api, create_game_api, signup_api

JS = Path(__file__).resolve().parents[2] / "src/dicehall/server/web/static/js"


def test_only_socket_js_opens_a_websocket() -> None:
    opening = sorted(
        path.relative_to(JS).as_posix()
        for path in JS.rglob("*.js")
        if "new WebSocket" in path.read_text()
    )
    assert opening == ["socket.js"]
    for name in ("push.js", "board-core.js", "tournament.js"):
        assert 'import { connect } from "/static/js/socket.js";' in (JS / name).read_text()
    templates = JS.parents[2] / "templates"
    assert not [p.name for p in templates.rglob("*.html") if "WebSocket" in p.read_text()]


# Runs socket.js against a stand-in WebSocket (events fired by hand) and setTimeout (pauses
# recorded, run on demand), restoring the browser's own after.
SCENARIOS = """async () => {
  const { connect } = await import("/static/js/socket.js");
  const real = [window.WebSocket, window.setTimeout, window.clearTimeout, Math.random];
  const made = [];
  let timers = new Map();
  let counter = 0;
  let waits = [];
  const pushes = [];
  class FakeSocket extends EventTarget {
    constructor(url) { super(); this.url = url; made.push(this); }
    fire(type, extra = {}) { this.dispatchEvent(Object.assign(new Event(type), extra)); }
    close() { this.fire("close", { code: 1005 }); }
  }
  const last = () => made.at(-1);
  const fail = () => { last().fire("close", { code: 1006 }); run(); };
  const run = () => {
    const due = [...timers.values()];
    timers = new Map();
    due.forEach((f) => f());
  };
  const fresh = () => { made.length = 0; waits = []; timers = new Map(); pushes.length = 0; };
  const listen = (event) => pushes.push(event.detail);
  window.WebSocket = FakeSocket;
  window.setTimeout = (f, ms) => { waits.push(ms); timers.set(++counter, f); return counter; };
  window.clearTimeout = (id) => timers.delete(id);
  document.addEventListener("dicehall:push", listen);
  const out = {};
  try {
    // push.js: no query, 500 ms after an open socket, doubling to 10 s.
    fresh();
    const opens = [];
    const heard = [];
    connect({ onOpen: ({ again }) => opens.push([again, document.body.dataset.live]),
              onMessage: (m) => heard.push(m) });
    for (let i = 0; i < 7; i++) fail();
    last().fire("open");
    const liveOpen = document.body.dataset.live;
    last().fire("message", { data: '{"type": "hello"}' });
    last().fire("message", { data: "not JSON" });
    last().fire("close", { code: 1012 });
    const liveClosed = document.body.dataset.live;
    run();
    last().fire("open");
    last().fire("close", { code: 4404 });
    out.push = { url: made[0].url, sockets: made.length, waits, opens, heard,
                 pushes: [...pushes], liveOpen, liveClosed, pending: timers.size };

    // tournament.js: 1 s after an open socket, doubling; 4404 ends it.
    fresh();
    const tOpens = [];
    connect({ query: { tournament: 7 }, first: 1000, stopOn: [4404],
              onOpen: ({ again }) => tOpens.push(again) });
    last().fire("open");
    last().fire("close", { code: 1012 });
    run();
    for (let i = 0; i < 5; i++) fail();
    last().fire("open");
    last().fire("close", { code: 4404 });
    out.tournament = { url: made[0].url, sockets: made.length, waits, opens: tOpens,
                       pending: timers.size, live: document.body.dataset.live };

    // close(): an open socket stays closed; so does one waiting for its next try.
    fresh();
    const board = connect({ query: { watch: "12" } });
    last().fire("open");
    board.close();
    const waiting = connect();
    fail();
    last().fire("close", { code: 1006 });
    waiting.close();
    run();
    out.closed = { url: made[0].url, sockets: made.length, waits, pending: timers.size };

    // jitter moves each pause by up to its share either way.
    fresh();
    Math.random = () => 0;
    connect({ jitter: 0.5 });
    fail();
    Math.random = () => 1;
    fail();
    out.jitter = waits;

    // A browser that will not make the socket: nothing more is tried.
    fresh();
    window.WebSocket = class { constructor() { throw new SyntaxError("no"); } };
    connect();
    out.refused = { waits, pending: timers.size };
  } finally {
    [window.WebSocket, window.setTimeout, window.clearTimeout, Math.random] = real;
    document.removeEventListener("dicehall:push", listen);
  }
  return out;
}"""


def test_the_socket_waits_and_passes_messages_on_as_each_page_did(page: Page) -> None:
    page.goto("/")
    host = page.evaluate("location.host")
    out: dict[str, Any] = page.evaluate(SCENARIOS)

    push = out["push"]
    assert push["url"] == f"ws://{host}/api/v1/ws"
    # 7 failed tries: 500 ms, doubling, at most 10 s; then open, and 500 ms again.
    assert push["waits"] == [500, 1000, 2000, 4000, 8000, 10000, 10000, 500, 500]
    assert push["sockets"] == 9
    # onOpen runs before body[data-live] turns on; only the first try is not "again".
    assert push["opens"] == [[True, "off"], [True, "off"]]
    assert (push["liveOpen"], push["liveClosed"]) == ("on", "off")
    # JSON is passed on (dicehall:push, then onMessage); anything else is dropped.
    assert push["heard"] == [{"type": "hello"}]
    assert push["pushes"] == [{"type": "hello"}]
    assert push["pending"] == 1  # 4404 means nothing without stopOn

    tournament = out["tournament"]
    assert tournament["url"] == f"ws://{host}/api/v1/ws?tournament=7"
    assert tournament["waits"] == [1000, 2000, 4000, 8000, 10000, 10000]
    assert tournament["opens"] == [False, True]
    assert tournament["sockets"] == 7
    assert (tournament["pending"], tournament["live"]) == (0, "off")

    closed = out["closed"]
    assert closed["url"] == f"ws://{host}/api/v1/ws?watch=12"
    assert (closed["sockets"], closed["waits"], closed["pending"]) == (3, [500, 1000], 0)

    assert out["jitter"] == [250, 1500]
    assert out["refused"] == {"waits": [], "pending": 0}


class Sockets:
    """A page's push sockets, routed through Playwright so that a test can close one from
    the server's side: each is connected to the site, but the first ``mocked`` of them,
    which open and hear nothing."""

    def __init__(self, page: Page, mocked: int = 0) -> None:
        self.mocked = mocked
        self.routes: list[WebSocketRoute] = []
        # body[data-live] as it changes: "on", "off", "on" for a socket that came back.
        page.add_init_script(
            """window.liveLog = [];
            new MutationObserver(() => {
              const live = document.body?.dataset.live;
              if (live && live !== window.liveLog.at(-1)) window.liveLog.push(live);
            }).observe(document, {
              attributes: true, attributeFilter: ["data-live"], subtree: true,
            });"""
        )
        page.route_web_socket(re.compile(r"/api/v1/ws"), self._route)

    def _route(self, socket: WebSocketRoute) -> None:
        if len(self.routes) >= self.mocked:
            socket.connect_to_server()
        self.routes.append(socket)

    def drop(self, page: Page) -> None:
        """Close the page's socket as a restarting server would; wait until another is up."""
        assert page.evaluate("window.liveLog") == ["on"]
        self.routes[-1].close(code=1012, reason="restarting")
        page.wait_for_function("window.liveLog.join() === 'on,off,on'")
        assert len(self.routes) == 2


def test_a_board_and_a_page_open_another_socket_when_the_server_closes_theirs(
    browser: Browser, site: LiveServer, context: BrowserContext
) -> None:
    other = browser.new_context(base_url=site.base, bypass_csp=True)
    other.set_default_timeout(15_000)
    try:
        bella = signup_api(other, "bella")
        alma = signup_api(context, "alma")
        game_id = create_game_api(context, alma, "boatzee", ["me", "user:bella"])
        accept_game_api(other, bella, game_id)

        board = context.new_page()
        board_sockets = Sockets(board)
        board.goto(f"/games/{game_id}")
        expect(board.locator("#board")).to_have_attribute("data-version", re.compile(r"\d"))
        board.wait_for_function("document.body.dataset.live === 'on'")
        status = context.new_page()  # push.js
        status_sockets = Sockets(status)
        status.goto("/status")
        status.wait_for_function("document.body.dataset.live === 'on'")

        board_sockets.drop(board)
        status_sockets.drop(status)
        assert "watch=" in board_sockets.routes[1].url
        assert "watch=" not in status_sockets.routes[1].url

        # The new sockets hear the game: bella resigns, both pages follow without a reload.
        version = other.request.get(f"/api/v1/games/{game_id}").json()["version"]
        resigned = other.request.post(
            f"/api/v1/games/{game_id}/resign",
            data={"expected_version": version},
            headers={"X-CSRF-Token": bella},
        )
        assert resigned.ok, resigned.text()
        expect(board.locator("#board")).to_have_attribute("data-status", "finished")
        expect(board.get_by_test_id("verdict")).to_be_visible()
        expect(status.locator("#status-live")).to_contain_text("updated")
    finally:
        other.close()


def test_a_tournament_page_looks_for_what_it_missed_when_its_socket_comes_back(
    page: Page, browser: Browser, site: LiveServer
) -> None:
    ann = signup_api(page.context, "ann")
    made = page.context.request.post(
        "/api/v1/tournaments",
        data={"name": "Cup", "game": "boatzee", "format": "cup", "size": 4,
              "pace": {"bank": 60}},
        headers={"X-CSRF-Token": ann},
    )  # fmt: skip
    assert made.ok, made.text()
    tournament_id = made.json()["id"]
    # The first socket hears nothing from the site; the next one is the site's.
    sockets = Sockets(page, mocked=1)
    page.goto(f"/tournaments/{tournament_id}")
    page.wait_for_function("document.body.dataset.live === 'on'")

    other = browser.new_context(base_url=site.base, bypass_csp=True)
    try:
        bob = signup_api(other, "bob")
        joined = other.request.post(
            f"/api/v1/tournaments/{tournament_id}/join", headers={"X-CSRF-Token": bob}
        )
        assert joined.ok, joined.text()
        # Missed (the socket heard nothing); the page looks once its socket is back.
        expect(page.get_by_test_id("standing-bob")).to_have_count(0)
        sockets.drop(page)
        assert f"tournament={tournament_id}" in sockets.routes[1].url
        expect(page.get_by_test_id("standing-bob")).to_be_visible()
        expect(page.get_by_test_id("t-players")).to_have_text("1 of 4")
        expect(page.locator("#tournament-live")).to_contain_text("The standings were updated")
    finally:
        other.close()
