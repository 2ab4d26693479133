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

#: The log's verifier key, for the commands that check a signed checkpoint.
LogKey = Annotated[
    str | None,
    typer.Option(
        metavar="VKEY", help="The log's verifier key (GET /api/v1/fairness/key), or a file."
    ),
]
#: Witnesses whose cosignatures a checkpoint must carry.
Witnesses = Annotated[
    list[str] | None,
    typer.Option(
        metavar="WKEY",
        help="A witness's verifier key (or a file): the --checkpoint must carry its valid "
        "cosignature (repeat for several witnesses).",
    ),
]


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
    checkpoint: Annotated[
        Path | None,
        typer.Option(
            help="A signed (e.g. witnessed) checkpoint: the proof's log records must be in "
            "its tree."
        ),
    ] = None,
    key: LogKey = None,
    witness: Witnesses = None,
    consistency: Annotated[
        Path | None,
        typer.Option(
            help="For a --checkpoint newer than the proof's: GET "
            "/api/v1/fairness/consistency?from=PROOF'S SIZE&to=CHECKPOINT'S SIZE."
        ),
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
    if witness and checkpoint is None:
        fail("--witness checks the cosignatures of a --checkpoint: give one")
    if checkpoint is not None or key is not None:
        report = _in_checkpoint(report, proof, checkpoint, key, consistency, witness)
    if as_json:
        print_json(report.as_json())
    else:
        for line in report.lines():
            console.print(line, markup=False, soft_wrap=True)
    raise typer.Exit(0 if report.ok else 1)


def _in_checkpoint(
    report: Any,
    proof: Any,
    checkpoint: Path | None,
    key: str | None,
    consistency: Path | None,
    witness: list[str] | None = None,
) -> Any:
    """``report`` failed unless the proof's log records are in a signed checkpoint's tree."""
    from dataclasses import replace

    from dicehall.fairness.tlog_check import check_proof_in_checkpoint

    vkey = _read_key(key)
    signed = None if checkpoint is None else _read_checkpoint(checkpoint, key, witness)
    hashes = None
    if consistency is not None:
        data = _read_json(consistency, "a consistency proof")
        try:
            hashes = [bytes.fromhex(h) for h in data["hashes"]]
        except (KeyError, TypeError, ValueError, AttributeError):
            fail(printable(f'{consistency}: a consistency proof is {{"hashes": [hex, ...]}}'))
    failure = check_proof_in_checkpoint(proof, vkey, signed, hashes)
    if not report.ok:
        return report
    if failure is not None:
        return replace(report, ok=False, failure=f"checkpoint: {failure}")
    size = "the proof's" if signed is None else f"{signed.origin} of {signed.size} records"
    return replace(report, notes=(*report.notes, f"its log records are in the tree of {size}"))


def verify_log(
    file: Annotated[Path, typer.Argument(help="The public log (GET /api/v1/fairness/log).")],
    extends: Annotated[
        Path | None,
        typer.Option(help="An older saved copy: FILE must hold its records unchanged."),
    ] = None,
    checkpoint: Annotated[
        Path | None,
        typer.Option(help="A signed checkpoint (GET /api/v1/fairness/checkpoint) to match."),
    ] = None,
    key: LogKey = None,
    witness: Witnesses = None,
    frontier: Annotated[
        Path | None,
        typer.Option(
            help="For a copy from record K on: GET /api/v1/fairness/inclusion?seq=K&size=K."
        ),
    ] = None,
    as_json: JsonText = False,
) -> None:
    """Check that the site's public log of commitments chains, record to record.

    Every record must name the hash of the one before, and the copy must start at record 1
    unless a trusted --checkpoint (and --frontier) vouches for what came before; read from
    record 1, every deck must be bound to a game in the order decks were committed. With
    --extends, an older copy's records must all be in FILE unchanged; with --checkpoint,
    the log's first N records must have the checkpoint's root. Exit 0: it holds; 1: the
    first thing that does not; 2: not a log.
    """
    from dicehall.fairness.chain import verify_chain
    from dicehall.fairness.deck_order import check_bindings
    from dicehall.fairness.tlog_check import check_against_checkpoint, check_extends

    data = _read_json(file, "a public log")
    records = data.get("records") if isinstance(data, dict) else data
    if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
        fail(printable(f'{file}: a public log is a list of records or {{"records": [...]}}'))
    if witness and checkpoint is None:
        fail("--witness checks the cosignatures of a --checkpoint: give one")
    signed = None if checkpoint is None else _read_checkpoint(checkpoint, key, witness)
    hashes = [] if frontier is None else _read_frontier(frontier)
    broken: object = verify_chain(records)
    start = records[0].get("seq") if records else None
    if broken is None and start != 1 and records and signed is None:
        broken = (
            f"the copy starts at record {start}, not at the first (genesis): a copy that "
            "does not start there is checked only against a trusted --checkpoint (with --key "
            "and --frontier)"
        )
    if broken is None and start == 1:
        # Read from the first record, the log shows every deck bound in commit order.
        broken = check_bindings(records)
    if broken is None and extends is not None:
        old = _read_json(extends, "a public log")
        old_records = old.get("records") if isinstance(old, dict) else old
        if not isinstance(old_records, list) or not all(isinstance(r, dict) for r in old_records):
            fail(printable(f'{extends}: a public log is a list of records or {{"records": [...]}}'))
        failure = check_extends(old_records, records)
        broken = None if failure is None else f"--extends {extends.name}: {failure}"
    if broken is None and signed is not None:
        failure = check_against_checkpoint(records, signed, hashes)
        broken = None if failure is None else f"--checkpoint {checkpoint}: {failure}"
    head = records[-1].get("hash") if records else None
    if as_json:
        print_json(
            {
                "ok": broken is None,
                "records": len(records),
                "head": head,
                "failure": None if broken is None else str(broken),
                "first": start,
                "extends": None if extends is None else broken is None,
                "checkpoint": None
                if signed is None
                else {"origin": signed.origin, "size": signed.size, "ok": broken is None},
            }
        )
    elif broken is None:
        console.print(f"OK: {len(records)} records chain; head {head}", markup=False)
        if extends is not None:
            console.print(f"OK: extends {extends} unchanged", markup=False)
        if signed is not None:
            console.print(
                f"OK: the first {signed.size} records have the checkpoint's root ({signed.origin})",
                markup=False,
            )
    else:
        console.print(f"FAILED: {broken}", markup=False, soft_wrap=True)
    raise typer.Exit(0 if broken is None else 1)


def _read_key(key: str | None) -> Any:
    """The verifier key given as text or as a file holding it (exit 2 if malformed)."""
    from dicehall.fairness.note import NoteError, VerifierKey

    if key is None:
        fail("a checkpoint needs the log's verifier key: --key (GET /api/v1/fairness/key)")
    text = key
    if "+" not in key or Path(key).is_file():
        try:
            text = Path(key).read_text(encoding="utf-8")
        except OSError as exc:
            fail(printable(f"cannot read {key}: {exc.strerror or exc}"))
    try:
        return VerifierKey.parse(text)
    except NoteError as exc:
        fail(printable(f"--key: {exc}"))


def _read_checkpoint(file: Path, key: str | None, witnesses: list[str] | None = None) -> Any:
    """A signed checkpoint from ``file``, its signature (and each of ``witnesses``'
    cosignatures) checked (exit 2 if malformed, 1 if a signature fails)."""
    from dicehall.fairness.note import NoteError
    from dicehall.fairness.tlog_check import check_cosigned, read_checkpoint

    vkey = _read_key(key)
    wkeys = [_read_key(w) for w in witnesses or []]
    try:
        note = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        fail(printable(f"cannot read {file}: {exc}"))
    try:
        check_cosigned(note, wkeys)
        return read_checkpoint(note, vkey)
    except NoteError as exc:
        console.print(printable(f"FAILED: {file}: {exc}"), markup=False, soft_wrap=True)
        raise typer.Exit(1) from exc


def _read_frontier(file: Path) -> list[bytes]:
    data = _read_json(file, "an inclusion proof")
    hashes = data.get("hashes") if isinstance(data, dict) else None
    leaf = data.get("leaf") if isinstance(data, dict) else None
    try:
        assert isinstance(hashes, list) and isinstance(leaf, str)
        return [bytes.fromhex(h) for h in hashes]
    except (AssertionError, TypeError, ValueError):
        fail(printable(f'{file}: an inclusion proof is {{"leaf": hex, "hashes": [hex, ...]}}'))


def register(groups: Groups) -> None:
    """Add ``verify-game`` and ``verify-log`` to the root command."""
    groups.root.command(name="verify-game")(verify_game)
    groups.root.command(name="verify-log")(verify_log)
