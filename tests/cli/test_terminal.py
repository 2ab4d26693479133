"""The ``dicehall`` command in a real terminal (a pseudo-terminal driven by pexpect): what a
person at the keyboard sees, escape sequences included."""

from __future__ import annotations

import os
import signal
import sys

import pexpect

from dicehall.cli.hotseat import WIPE
from tests.signals import default_signals

#: Generous: a command that hangs fails here instead of holding the run.
TIMEOUT = 60


def spawn(*args: str, rows: int = 40, columns: int = 100) -> pexpect.spawn[str]:
    """``dicehall ARGS...`` in a pseudo-terminal of ``rows`` x ``columns``."""
    return spawn_python(
        "from dicehall.cli.main import main; main()", *args, rows=rows, columns=columns
    )


def spawn_python(code: str, *args: str, rows: int = 40, columns: int = 100) -> pexpect.spawn[str]:
    """``python -c CODE ARGS...`` in a pseudo-terminal, with the default signal handling."""
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": str(columns), "LINES": str(rows)}
    env.pop("NO_COLOR", None)
    return pexpect.spawn(
        sys.executable,
        ["-c", code, *args],
        env=env,
        encoding="utf-8",
        timeout=TIMEOUT,
        dimensions=(rows, columns),
        preexec_fn=default_signals,  # Ctrl-C reaches it however the test run was started
    )


def test_ctrl_c_reaches_a_child_even_when_the_run_ignores_it() -> None:
    # A test run started in the background (`make pytest &`) ignores SIGINT and would hand
    # that on: the child must still stop at Ctrl-C.
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        child = spawn_python("import signal; print('ready', flush=True); signal.pause()")
    finally:
        signal.signal(signal.SIGINT, before)
    child.expect("ready")
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    assert "KeyboardInterrupt" in str(child.before)
    assert child.signalstatus == signal.SIGINT


def play_to_the_end(child: pexpect.spawn[str], answers: dict[str, str]) -> str:
    """Answer each prompt (a pattern of ``answers``) until the game ends; all it printed."""
    patterns = list(answers)
    seen = []
    while True:
        found = child.expect([*patterns, pexpect.EOF])
        seen.append(str(child.before) + (child.after if isinstance(child.after, str) else ""))
        if found == len(patterns):
            break
        child.sendline(answers[patterns[found]])
    child.close()
    assert child.exitstatus == 0, "".join(seen)[-3000:]
    return "".join(seen)


def test_hot_seat_wipes_the_scrollback_on_every_pass_and_retells_the_last_hand() -> None:
    child = spawn("play", "boss", "--seats", "alice,bob", "--seed", "4")
    out = play_to_the_end(
        child,
        {
            "and press Enter": "",
            r"come up or \[p\] pick 'em up\? ": "u",
            r"\[u\] come up\? ": "u",
            r"Keep which dice of [0-9 ]+\? \(like 3,3; none; all\) ": "none",
        },
    )
    passes = out.count("Pass the keyboard to ")
    assert passes >= 3
    # Screen and scrollback are erased before every pass: no hidden roll can be scrolled to.
    assert out.count(WIPE + "Pass the keyboard to ") == passes
    # The first hand's showdown happened at bob's keyboard; when alice next gets it, she is
    # told it before she plays.
    first_showdown = out.index("Showdown:")
    to_alice = out.index("Pass the keyboard to \x1b[1malice", first_showdown)
    her_prompt = out.index("\n", out.index("Boss Dice", to_alice))
    assert "Showdown:" in out[to_alice:her_prompt]
    assert "takes a horse" in out[to_alice:her_prompt]
    # At the end the last player's screen is wiped too; what is left is public.
    last = out[out.rindex(WIPE) :]
    assert "wins the match" in last and "Your hidden roll" not in last


def test_keep_prompt_refuses_an_empty_enter() -> None:
    child = spawn("play", "boss", "--seats", "you,bot:odds", "--seed", "7")
    while child.expect([r"Keep which dice", r"come up"]) != 0:
        child.sendline("u")
    child.sendline("")
    child.expect("Type the dice to keep \\(like 3,3\\), none, or all.")
    child.expect("Keep which dice")  # asked again: nothing was kept, nothing rolled
    assert "rolling 5" not in str(child.before)
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130


def test_hold_em_hot_seat_tells_the_fold_to_the_next_player() -> None:
    child = spawn("play", "holdem", "--seats", "alice,bob", "--seed", "4", "-o", "stack=30")
    child.expect("and press Enter")
    child.sendline("")
    child.expect(r"Your move \(")
    child.sendline("fold")
    child.expect(WIPE.replace("[", r"\[") + "Pass the keyboard to")
    child.expect("and press Enter")
    child.sendline("")
    child.expect(r"Your move \(")
    told = str(child.before)
    assert "bob folds." in told and "Pot of 20 (uncontested): alice 20" in told
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()


def test_a_long_estimate_shows_progress_and_stops_on_ctrl_c() -> None:
    # 100 million deals would take minutes; the bar shows, and Ctrl-C ends it at once.
    child = spawn(
        "odds", "holdem", "--pocket", "6r,6k", "--opponents", "3", "--samples", "100000000"
    )
    child.expect("Dealing")
    child.expect(r"about\s+(\x1b\[[0-9;]*m)*\d+:\d\d:\d\d")  # and about how long is left
    child.sendintr()
    child.expect(pexpect.EOF)  # within the generous timeout: minutes of dealing are not waited
    child.close()
    assert "Stopped (Ctrl-C)" in str(child.before)
    assert child.exitstatus == 130


def test_boatzee_at_80x24_keeps_the_bots_moves_on_the_screen() -> None:
    child = spawn(
        "play", "boatzee", "--seats", "you,bot:heuristic", "--seed", "3", rows=24, columns=80
    )
    child.expect(r"Your move")
    child.sendline("chance")
    child.expect("would score")
    child.sendline("c")
    child.expect("You score")
    child.expect(r"Your move")  # the bot has played its turn; the card is drawn again
    screen = "You score" + str(child.before)
    lines = screen.split("\r\n")
    assert "heuristic bot rolls" in screen and "heuristic bot scores" in screen
    # Everything since my move (my score, the bot's rolls and score, my card, the dice) fits
    # above the prompt on a 24-line terminal: nothing the bot did scrolled away.
    assert len(lines) <= 23, "\n".join(lines)
    assert "Your scorecard" in screen and "Chance" in screen
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
