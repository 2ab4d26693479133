"""Every ``dicehall ...`` command shown in README.md and docs/*.md runs and exits as documented.

Each runs in-process through the command line's ``run`` with no input (a game is left at its
first prompt: end of input), in a scratch working directory (a ``--plot`` picture lands
there), with a data directory that the session's commands share (the boatzee tests' solved
tables already in it), so a table one command solves serves the next. See
:mod:`tests.docs.commands` for the markers a page may use.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import CliRunner
from tests.docs.commands import DocCommand, DocError, commands_in, documented_commands
from tests.games.boatzee.solved import solved_dir

__all__ = ["solved_dir"]

COMMANDS = documented_commands()
RUN = [c for c in COMMANDS if c.exit is not None]


@pytest.fixture(scope="session")
def doc_data_dir(solved_dir: Path) -> Path:
    """The data directory every documented command of this session uses: the session's
    solved Boatzee tables are already there (the boatzee tests build them anyway), so the
    documented hints and games do not solve them a second time."""
    return solved_dir


@pytest.mark.parametrize("command", RUN, ids=[c.where for c in RUN])
def test_documented_command_exits_as_documented(
    command: DocCommand,
    cli: CliRunner,
    doc_data_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DICEHALL_DATA", str(doc_data_dir))
    monkeypatch.chdir(tmp_path)
    result = cli(*command.argv, input="")
    assert result.code == command.exit, (
        f"{command.where}: `{command.text}` exited with {result.code}, documented "
        f"{command.exit}\n{result.err[-2000:]}"
    )
    assert "Traceback" not in result.out + result.err


def test_the_docs_show_commands_and_skip_few() -> None:
    assert len(RUN) >= 80
    skipped = [c for c in COMMANDS if c.exit is None]
    assert len(skipped) <= len(COMMANDS) // 6, [c.where for c in skipped]  # sparingly
    assert all(c.reason for c in COMMANDS if c.exit != 0)


def test_commands_are_read_with_their_markers() -> None:
    page = """
Some text, `dicehall inline` is not a block.

```sh
dicehall score boatzee 3,3,3,5,5 --json   # a comment
$ dicehall hint boatzee --dice 1,1,2,3,4 \\
    --rolls-left 2
other 1
```

<!-- exit 130: a game left at its first prompt -->
```
dicehall play boss
```

<!-- not run: needs a server -->
```
dicehall serve --port 8001 &
```

```
dicehall games
```
"""
    found = [(c.where, c.argv, c.exit, c.reason) for c in commands_in(page, "page.md")]
    assert found == [
        ("page.md:5", ("score", "boatzee", "3,3,3,5,5", "--json"), 0, ""),
        ("page.md:6", ("hint", "boatzee", "--dice", "1,1,2,3,4", "--rolls-left", "2"), 0, ""),
        ("page.md:13", ("play", "boss"), 130, "a game left at its first prompt"),
        ("page.md:18", ("serve", "--port", "8001", "&"), None, "needs a server"),
        ("page.md:22", ("games",), 0, ""),
    ]


@pytest.mark.parametrize(
    ("page", "message"),
    [
        ("<!-- exit 2: -->\n```\ndicehall games\n```\n", "needs a reason"),
        ("<!-- not run: slow -->\n\n```\ndicehall games\n```\n", "right before a code block"),
    ],
)
def test_a_marker_without_a_reason_or_a_block_is_refused(page: str, message: str) -> None:
    with pytest.raises(DocError, match=message):
        commands_in(page, "page.md")
