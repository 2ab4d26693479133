"""Browser tests: a live site on SQLite and Debian's Chromium driven by Playwright."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from playwright.sync_api import Browser, BrowserContext, Page, Playwright, sync_playwright

from dicehall.server.app import create_app
from dicehall.server.domain.services import Services, build_services
from tests.live import LiveServer
from tests.server.conftest import site_settings
from tests.sqlite_template import migrated_sqlite

CHROMIUM = os.environ.get("DICEHALL_CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"


@pytest.fixture(scope="session")
def playwright_session() -> Iterator[Playwright]:
    if not Path(CHROMIUM).exists() and not shutil.which("chromium"):
        if os.environ.get("CI"):
            pytest.fail("Chromium is required in CI (.ci/run installs Debian's chromium)")
        pytest.skip("Chromium is not installed (apt-get install chromium)")
    with sync_playwright() as pw:
        yield pw


@pytest.fixture(scope="session")
def browser(playwright_session: Playwright) -> Iterator[Browser]:
    launched = playwright_session.chromium.launch(
        executable_path=CHROMIUM,
        headless=True,
        args=["--no-sandbox", "--disable-background-networking", "--disable-dev-shm-usage"],
    )
    try:
        yield launched
    finally:
        launched.close()


class _Sites:
    """Fresh sites on SQLite, one started ahead: while a test runs, the next test's server
    starts (a server's start is the slowest step of most browser tests). The spare is a fork
    of a process that imported the site once (``LiveServer.launch(forked=True)``), started in
    the environment the session began with; a test that changed a ``DICEHALL_`` variable gets
    a site started for it."""

    def __init__(self) -> None:
        self.environ = dict(os.environ)
        self.spare: LiveServer | None = None
        atexit.register(self.close)

    def _launch(self) -> LiveServer:
        folder = Path(tempfile.mkdtemp(prefix="dicehall-web-"))
        server = LiveServer(migrated_sqlite(folder / "web.sqlite3"))
        server.launch(self.environ, forked=True)
        return server

    def _same_environment(self) -> bool:
        def ours(environ: Mapping[str, str]) -> dict[str, str]:
            return {k: v for k, v in environ.items() if k.startswith("DICEHALL_")}

        return ours(os.environ) == ours(self.environ)

    def take(self) -> LiveServer:
        """A started site of its own (stop it with :meth:`give_back`)."""
        if not self._same_environment():
            server = LiveServer(migrated_sqlite(Path(tempfile.mkdtemp()) / "web.sqlite3"))
            server.start()
            return server
        server, self.spare = self.spare or self._launch(), None
        server.wait_ready()
        self.spare = self._launch()
        return server

    @staticmethod
    def give_back(server: LiveServer) -> None:
        """Stop a site and remove its files."""
        server.stop()
        folder = server.db_url.removeprefix("sqlite:///").rpartition("/")[0]
        shutil.rmtree(folder, ignore_errors=True)

    def close(self) -> None:
        if self.spare is not None:
            self.give_back(self.spare)


_SITES = _Sites()


@pytest.fixture
def site() -> Iterator[LiveServer]:
    """A fresh site on SQLite, listening on 127.0.0.1."""
    server = _SITES.take()
    try:
        yield server
    finally:
        _SITES.give_back(server)


@pytest.fixture
def context(browser: Browser, site: LiveServer) -> Iterator[BrowserContext]:
    # The tests' own probes (wait_for_function, evaluate) are strings that the site's
    # Content-Security-Policy would refuse to eval; the site's scripts are checked without it
    # by test_csp_allows_the_site_scripts.
    made = browser.new_context(
        base_url=site.base, viewport={"width": 1100, "height": 900}, bypass_csp=True
    )
    made.set_default_timeout(15_000)
    try:
        yield made
    finally:
        made.close()


@pytest.fixture
def page(context: BrowserContext) -> Page:
    return context.new_page()


def shoot(page: Page, name: str) -> Path:
    """Save a full-page screenshot as a test artifact (artifacts/screenshots/NAME.png)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def signup_api(context: BrowserContext, name: str, password: str = "correct horse 42") -> str:
    """Sign ``name`` up through the JSON API inside ``context`` (its cookie is kept there);
    return the session's CSRF token for scripted writes."""
    response = context.request.post(
        "/api/v1/auth/signup", data={"user_id": name, "password": password}
    )
    assert response.ok, response.text()
    token: str = response.json()["csrf_token"]
    return token


def create_game_api(
    context: BrowserContext,
    csrf: str,
    game: str,
    seats: list[str],
    options: dict[str, object] | None = None,
) -> int:
    """Create a game through the JSON API as the context's user; return its id."""
    response = context.request.post(
        "/api/v1/games",
        data={"game": game, "seats": seats, "options": options or {}},
        headers={"X-CSRF-Token": csrf},
    )
    assert response.ok, response.text()
    game_id: int = response.json()["id"]
    return game_id


def accept_game_api(context: BrowserContext, csrf: str, game_id: int) -> None:
    """Accept, as the context's user, an invitation to game ``game_id``."""
    response = context.request.post(
        f"/api/v1/games/{game_id}/accept", headers={"X-CSRF-Token": csrf}
    )
    assert response.ok, response.text()


@pytest.fixture
def services(tmp_path: Path) -> Iterator[Services]:
    """The site's services on a fresh SQLite database (for page tests without a browser)."""
    built = build_services(site_settings(migrated_sqlite(tmp_path / "pages.sqlite3")))
    try:
        yield built
    finally:
        built.engine.dispose()


@pytest.fixture
def web(services: Services) -> Iterator[TestClient]:
    """A test client of the site on SQLite (no redirects followed, so they can be checked)."""
    with TestClient(create_app(services=services), follow_redirects=False) as client:
        yield client
