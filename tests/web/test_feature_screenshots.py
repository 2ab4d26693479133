"""The screenshots of Features and tips (``static/features/NAME.jpg``, one per feature of
``web/features.py``).

With ``DICEHALL_SHOOT_FEATURES=1`` (``make screenshots``) this test first makes them again:
a site with a few players and games, each feature's page in Chromium at phone width, the
viewport saved as a JPEG. On every run it checks that each feature has its picture (a JPEG
of the expected size, small enough to ship), that no picture is left without a feature,
and that the page shows each one with its alt text.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from playwright.sync_api import Browser, Page

from dicehall.server.web.features import FEATURES, SHOT_HEIGHT, SHOT_WIDTH, Feature
from tests.live import LiveServer
from tests.web.conftest import accept_game_api, create_game_api, signup_api

FOLDER = Path(__file__).resolve().parents[2] / "src/dicehall/server/web/static/features"
#: The largest picture the package should carry, in bytes.
MOST_BYTES = 60_000
QUALITY = 60
#: JPEG's start-of-frame markers (baseline, progressive, ...): they hold the picture's size.
_FRAMES = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


def jpeg_size(data: bytes) -> tuple[int, int]:
    """(width, height) of a JPEG image; ValueError for anything else."""
    if data[:2] != b"\xff\xd8":
        raise ValueError("not a JPEG: no start-of-image marker")
    at = 2
    while at + 4 <= len(data):
        if data[at] != 0xFF:
            raise ValueError(f"not a JPEG: no marker at byte {at}")
        marker = data[at + 1]
        length = int.from_bytes(data[at + 2 : at + 4], "big")
        if marker in _FRAMES:
            height = int.from_bytes(data[at + 5 : at + 7], "big")
            width = int.from_bytes(data[at + 7 : at + 9], "big")
            return width, height
        at += 2 + length
    raise ValueError("not a JPEG: no frame header")


def _shoot(page: Page, browser: Browser, site: LiveServer) -> None:
    """Every feature's page as a signed-in member with a few games about, at phone width."""
    csrf = signup_api(page.context, "ada")
    other = browser.new_context(base_url=site.base, bypass_csp=True)
    try:
        bob = signup_api(other, "bob")
        other.new_page().goto("/waiting")  # bob is about, looking for a game
        create_game_api(other, bob, "tenthousand", ["me", "open"])
        played = create_game_api(other, bob, "boss", ["me", "ada"])
        accept_game_api(page.context, csrf, played)
        for who, token in ((page.context, csrf), (other, bob)):
            assert who.request.post(
                "/api/v1/ladders/boatzee/join", headers={"X-CSRF-Token": token}
            ).ok
        game = create_game_api(page.context, csrf, "boatzee", ["me", "bot:heuristic"])
        page.set_viewport_size({"width": SHOT_WIDTH, "height": SHOT_HEIGHT})
        for feature in FEATURES:
            page.goto(feature.shot.format(game=game))
            if "{game}" in feature.shot:
                page.wait_for_function(
                    "document.getElementById('board')?.dataset.version !== undefined"
                )
            page.wait_for_load_state("networkidle")
            page.screenshot(path=str(FOLDER / f"{feature.name}.jpg"), type="jpeg", quality=QUALITY)
    finally:
        other.close()


def _shown(html: str, feature: Feature) -> bool:
    found = re.search(rf'<img class="shot" src="{re.escape(feature.image)}"([^>]*)>', html)
    return bool(
        found
        and f'width="{SHOT_WIDTH}" height="{SHOT_HEIGHT}"' in found.group(1)
        and re.search(r'alt="Screenshot: [^"]+"', found.group(1))
    )


def test_every_feature_has_its_screenshot_on_the_page(
    request: pytest.FixtureRequest, web: TestClient
) -> None:
    if os.environ.get("DICEHALL_SHOOT_FEATURES") == "1":
        FOLDER.mkdir(exist_ok=True)
        _shoot(
            request.getfixturevalue("page"),
            request.getfixturevalue("browser"),
            request.getfixturevalue("site"),
        )
    names = [feature.name for feature in FEATURES]
    assert len(set(names)) == len(names), "two features share a picture"
    assert sorted(p.stem for p in FOLDER.glob("*")) == sorted(names), (
        "every picture belongs to a feature, and every feature has one (make screenshots)"
    )
    for feature in FEATURES:
        data = (FOLDER / f"{feature.name}.jpg").read_bytes()
        assert jpeg_size(data) == (SHOT_WIDTH, SHOT_HEIGHT), feature.name
        assert len(data) < MOST_BYTES, f"{feature.name}.jpg is {len(data)} bytes"
    html = web.get("/features").text
    for feature in FEATURES:
        assert _shown(html, feature), f"the page does not show {feature.image} with its alt text"
        assert web.get(feature.image).headers["content-type"] == "image/jpeg"


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (b"\x89PNG\r\n", "no start-of-image marker"),
        (b"\xff\xd8\x00\x10\x00\x00", "no marker at byte 2"),
        (b"\xff\xd8\xff\xe0\x00\x02", "no frame header"),
    ],
)
def test_a_picture_that_is_no_jpeg_is_named(data: bytes, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        jpeg_size(data)
