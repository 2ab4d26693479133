"""``dicehall witness``: watch a site's public log and cosign each checkpoint that extends
the last one this witness accepted; refuse (exit 1) a forked or truncated log."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from dicehall.cli.apps import Groups
from dicehall.cli.common import JsonText, console, fail, print_json, printable

if TYPE_CHECKING:
    from dicehall.fairness.witness import Site


def open_site(url: str) -> Site:
    """The site at ``url`` (tests replace this with an in-process client)."""
    from dicehall.fairness.witness import HttpSite

    return HttpSite(url)


def witness(
    site: Annotated[str, typer.Option(help="The site's address, e.g. https://dice.example.")],
    state: Annotated[
        Path, typer.Option(help="The witness's folder: its key, the last checkpoint, evidence.")
    ],
    key: Annotated[
        Path | None, typer.Option(help="The witness's key file (default: STATE/witness.key).")
    ] = None,
    site_key: Annotated[
        str | None,
        typer.Option(help="The site's log key (vkey) to trust; default: pinned on first run."),
    ] = None,
    once: Annotated[bool, typer.Option(help="One round, then exit.")] = False,
    every: Annotated[
        float, typer.Option(min=1.0, help="Seconds between rounds (without --once).")
    ] = 60.0,
    post: Annotated[bool, typer.Option(help="Send each cosignature to the site.")] = False,
    as_json: JsonText = False,
) -> None:
    """Witness a site's public log: check each signed checkpoint against the last one this
    witness cosigned (a consistency proof), then cosign it.

    Exit 0: cosigned (with --once); 1: the log was forked or truncated (the evidence is kept
    in STATE, the old checkpoint stays), or the site could not be checked; 2: bad input.
    """
    from dicehall.fairness.note import NoteError, VerifierKey
    from dicehall.fairness.witness import WitnessError, load_signer, witness_once

    if not site.startswith(("http://", "https://")):
        fail(printable(f"--site must be an http:// or https:// address, not {site!r}"))
    pinned = None
    if site_key is not None:
        try:
            pinned = VerifierKey.parse(site_key)
        except NoteError as exc:
            fail(printable(f"--site-key: {exc}"))
    try:
        signer = load_signer(state, key)
    except (WitnessError, OSError) as exc:
        fail(printable(str(exc)))
    client = open_site(site)
    while True:
        try:
            outcome = witness_once(
                client, state, signer, int(time.time()), site_key=pinned, post=post
            )
        except WitnessError as exc:
            message = f"cannot witness {site}: {exc}"
            if as_json:
                print_json({"ok": False, "status": "error", "message": message})
            else:
                console.print(printable(f"FAILED: {message}"), markup=False, soft_wrap=True)
            if once:
                raise typer.Exit(1) from exc
        else:
            if as_json:
                print_json(outcome.as_json())
            elif outcome.ok:
                console.print(printable(f"OK: {outcome.message}"), markup=False, soft_wrap=True)
                if outcome.posted is not None:
                    console.print(f"posted: {outcome.posted}", markup=False)
            else:
                console.print(
                    printable(f"REFUSED: {outcome.message}; evidence in {outcome.evidence}"),
                    markup=False,
                    soft_wrap=True,
                )
            if not outcome.ok:
                raise typer.Exit(1)
            if once:
                raise typer.Exit(0)
        time.sleep(every)


def register(groups: Groups) -> None:
    """Add ``witness`` to the root command."""
    groups.root.command(name="witness")(witness)
