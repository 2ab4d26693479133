"""The ``dicehall`` command: play, score, odds, hint, solve, sim, rules, and the site's."""

from __future__ import annotations

import sys
from collections.abc import Collection

import typer
import typer.main
from typer.exceptions import TyperException

from dicehall.cli import apps
from dicehall.cli.commands import game_commands_for, register_all
from dicehall.cli.common import err_console as console_err
from dicehall.cli.common import fail
from dicehall.engine.errors import DicehallError


def application(game_commands: Collection[str] | None = None) -> typer.Typer:
    """The root command with every command added (built afresh on each call); with
    ``game_commands``, only those games' own commands (see :func:`register_all`)."""
    groups = apps.build()
    register_all(groups, game_commands)
    return groups.root


def run(argv: list[str]) -> int:
    """Run the command line on ``argv``; return the exit status (2 for bad input).

    Every usage error (an unknown option, a value that does not parse, a missing argument)
    is one ``error:`` line naming the command's help, with exit 2, like every other error.
    """
    # Only the game commands this line can reach are built: the rest would import every
    # game's rules for nothing.
    command = typer.main.get_command(application(game_commands_for(argv)))
    try:
        result = command.main(args=argv, prog_name="dicehall", standalone_mode=False)
    except SystemExit as exc:
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    except typer.Abort:
        console_err.print("interrupted")
        return 130
    except TyperException as exc:
        # Click's errors as Typer vendors them: usage errors (exit code 2) and the like.
        context = getattr(exc, "ctx", None)
        where = context.command_path if context is not None else "dicehall"
        message = exc.format_message() if hasattr(exc, "format_message") else str(exc)
        code = getattr(exc, "exit_code", 2)
        _failed(f"{message} (see {where} -h)")
        return code if isinstance(code, int) and code else 2
    except DicehallError as exc:
        return _failed(str(exc))
    except OSError as exc:
        # A file that cannot be read or written: one line that names it, never a traceback.
        where = f" ({exc.filename})" if exc.filename else ""
        return _failed(f"{exc.strerror or exc}{where}")
    return result if isinstance(result, int) else 0


def _failed(message: str) -> int:
    try:
        fail(message)
    except SystemExit as failed:
        return int(failed.code or 2)
    return 2  # pragma: no cover - fail always exits


def main() -> None:
    """Entry point of the ``dicehall`` console script."""
    sys.exit(run(sys.argv[1:]))
