"""``dicehall verify-game`` and ``dicehall verify-log``: check a finished game's dice and the
site's public log offline, with nothing but this package (no server, no network)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from dicehall.cli.apps import Groups
from dicehall.cli.common import (
    JsonText,
    console,
    fail,
    print_json,
    printable,
)


def _read_json(file: Path, what: str) -> Any:
    try:
        return json.loads(file.read_bytes())
    except OSError as exc:
        fail(printable(f"cannot read {file}: {exc.strerror or exc}"))
    except ValueError as exc:
        fail(printable(f"{file} is not JSON: {exc}"))
    except RecursionError:
        fail(printable(f"{file} is nested too deeply to be {what}"))


def verify_game(
    file: Annotated[Path, typer.Argument(help="A game's proof (GET /api/v1/games/ID/proof).")],
    game_log: Annotated[
        Path | None,
        typer.Option(help="The game's log (GET /api/v1/games/ID/log) to compare with the proof."),
    ] = None,
    chain: Annotated[
        Path | None,
        typer.Option(help="A saved public log (GET /api/v1/fairness/log) to compare with."),
    ] = None,
    as_json: JsonText = False,
) -> None:
    """Check a finished game's dice against the commitments and replay it to its result.

    Every die and bag draw is checked against the commitments published before the game was
    played. Exit 0: all holds; 1: the first thing that does not; 2: the file is not a proof.
    """
    from dicehall.fairness.proof_parts import MalformedProof  # the verifier: only when asked
    from dicehall.fairness.verify import verify_proof

    proof = _read_json(file, "a proof")
    saved_log = None if game_log is None else _read_json(game_log, "a game log")
    saved_chain = None if chain is None else _read_json(chain, "a public log")
    try:
        report = verify_proof(proof, game_log=saved_log, chain=saved_chain)
    except MalformedProof as exc:
        fail(printable(f"{file}: {exc}"))
    if as_json:
        print_json(report.as_json())
    else:
        for line in report.lines():
            console.print(line, markup=False, soft_wrap=True)
    raise typer.Exit(0 if report.ok else 1)


def verify_log(
    file: Annotated[Path, typer.Argument(help="The public log (GET /api/v1/fairness/log).")],
    as_json: JsonText = False,
) -> None:
    """Check that the site's public log of commitments chains, record to record.

    Every record must name the hash of the one before. Exit 0: it holds; 1: the first break;
    2: not a log.
    """
    from dicehall.fairness.chain import verify_chain

    data = _read_json(file, "a public log")
    records = data.get("records") if isinstance(data, dict) else data
    if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
        fail(printable(f'{file}: a public log is a list of records or {{"records": [...]}}'))
    broken = verify_chain(records)
    head = records[-1].get("hash") if records else None
    if as_json:
        print_json(
            {
                "ok": broken is None,
                "records": len(records),
                "head": head,
                "failure": None if broken is None else str(broken),
            }
        )
    elif broken is None:
        console.print(f"OK: {len(records)} records chain; head {head}", markup=False)
        if records and records[0].get("seq") != 1:
            console.print(
                f"(from record {records[0].get('seq')} on: check the earlier pages too)",
                markup=False,
            )
    else:
        console.print(f"FAILED: {broken}", markup=False, soft_wrap=True)
    raise typer.Exit(0 if broken is None else 1)


def register(groups: Groups) -> None:
    """Add ``verify-game`` and ``verify-log`` to the root command."""
    groups.root.command(name="verify-game")(verify_game)
    groups.root.command(name="verify-log")(verify_log)
