"""A finished board's "Verify these dice": the link downloads the game's proof, and the
command the board shows checks it (exit 0); a doctored copy fails (exit 1)."""

from __future__ import annotations

import json
import random
import shlex
import subprocess
import sys
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.web.conftest import create_game_api, shoot, signup_api
from tests.web.test_board_story import finish_by_api, open_board


def _run(command: str, folder: Path) -> subprocess.CompletedProcess[str]:
    # The board shows `dicehall verify-game FILE`: run exactly that, with this checkout's CLI.
    words = shlex.split(command)
    assert words[:2] == ["dicehall", "verify-game"], command
    return subprocess.run(
        [sys.executable, "-m", "dicehall", *words[1:]],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_verify_these_dice_downloads_a_proof_that_the_shown_command_checks(
    page: Page, tmp_path: Path
) -> None:
    csrf = signup_api(page.context, "verifier")
    game_id = create_game_api(page.context, csrf, "boss", ["me", "bot:random"], {"horses": 1})
    open_board(page, game_id)
    finish_by_api(page, game_id, random.Random(4))
    page.reload()
    page.wait_for_function("document.getElementById('board').dataset.status === 'finished'")
    link = page.get_by_test_id("verify-dice")
    expect(link).to_be_visible()
    expect(page.get_by_test_id("install-command")).to_have_text("pip install dicehall")
    command = page.get_by_test_id("verify-command").inner_text()
    assert command == f"dicehall verify-game dicehall-game-{game_id}-proof.json"
    link.focus()
    with page.expect_download() as waiting:
        page.keyboard.press("Enter")
    download = waiting.value
    assert download.suggested_filename == f"dicehall-game-{game_id}-proof.json"
    proof_file = tmp_path / download.suggested_filename
    download.save_as(proof_file)
    checked = _run(command, tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.startswith("OK:"), checked.stdout
    proof = json.loads(proof_file.read_text())
    shown = next(k for k in proof["keys"] if "key" in k)
    shown["key"] = ("0" if shown["key"][0] != "0" else "1") + shown["key"][1:]
    proof_file.write_text(json.dumps(proof))
    doctored = _run(command, tmp_path)
    assert doctored.returncode == 1 and "FAILED" in doctored.stdout, doctored.stdout
    page.set_viewport_size({"width": 360, "height": 800})
    page.get_by_test_id("verify-command").scroll_into_view_if_needed()
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    shoot(page, "page-verify-dice")
