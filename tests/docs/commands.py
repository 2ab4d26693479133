"""The ``dicehall ...`` commands shown in README.md and docs/*.md, with how each should exit.

A command is a line of a fenced code block that starts with ``dicehall`` (or ``$ dicehall``),
joined with the lines a trailing backslash continues, without its ``# comment``. An HTML
comment on the line right before a block's opening fence says what its commands do instead
of exiting with status 0, always with a reason::

    <!-- not run: REASON -->    not run at all (it needs a server, or solves for minutes)
    <!-- exit N: REASON -->     each exits with status N (an error example, or a game that
                                 the test leaves at its first prompt)
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MARKER = re.compile(r"^<!--\s*(not run|exit (\d+))\s*:\s*(.*?)\s*-->$")


@dataclass(frozen=True)
class DocCommand:
    """One documented command: where it is, its arguments after ``dicehall``, and what it
    should do (``exit`` None: not run)."""

    where: str
    argv: tuple[str, ...]
    exit: int | None
    reason: str

    @property
    def text(self) -> str:
        """The command as a person would type it."""
        return shlex.join(("dicehall", *self.argv))


class DocError(ValueError):
    """A marker the docs cannot use: no reason, or no code block after it."""


def doc_files(root: Path = ROOT) -> list[Path]:
    """README.md and every page under docs/."""
    return [root / "README.md", *sorted((root / "docs").glob("*.md"))]


def commands_in(text: str, name: str) -> list[DocCommand]:
    """Every ``dicehall`` command in the fenced code blocks of a Markdown ``text``."""
    lines = text.splitlines()
    found: list[DocCommand] = []
    expected: int | None = 0
    reason = ""
    inside = False
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        marker = MARKER.match(line)
        if marker and not inside:
            if not marker.group(3):
                raise DocError(f"{name}:{i + 1}: a marker needs a reason after the colon")
            if i + 1 >= len(lines) or not lines[i + 1].strip().startswith("```"):
                raise DocError(f"{name}:{i + 1}: a marker must stand right before a code block")
            expected = None if marker.group(2) is None else int(marker.group(2))
            reason = marker.group(3)
        elif line.startswith("```"):
            inside = not inside
            if not inside:  # a marker covers one block only
                expected, reason = 0, ""
        elif inside and (line.startswith("dicehall") or line.startswith("$ dicehall")):
            start = i
            command = line.removeprefix("$ ")
            while command.endswith("\\") and i + 1 < len(lines):
                i += 1
                command = command[:-1] + " " + lines[i].strip()
            argv = shlex.split(command, comments=True)
            if argv[0] == "dicehall":
                found.append(DocCommand(f"{name}:{start + 1}", tuple(argv[1:]), expected, reason))
        i += 1
    return found


def documented_commands(root: Path = ROOT) -> list[DocCommand]:
    """Every command in README.md and docs/*.md, in reading order."""
    return [
        command
        for path in doc_files(root)
        for command in commands_in(path.read_text(), str(path.relative_to(root)))
    ]
