"""A witness of a dicehall site's public log: fetch its signed checkpoint, check that it
extends the last one this witness accepted (RFC 9162 consistency proof), and cosign it
(C2SP ``cosignature/v1``). A log that was forked or truncated is refused, with the evidence
kept, and the witness's state stays as it was.

The state directory holds ``witness.key`` (the witness's signer key, made on first run),
``site.vkey`` (the site's log key, pinned on first run), ``checkpoint`` (the last accepted
checkpoint with this witness's cosignature) and, after a refusal, ``evidence-*`` folders.
"""

from __future__ import annotations

import json
import os
import secrets
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from dicehall.fairness.checkpoint import Checkpoint, open_checkpoint
from dicehall.fairness.note import COSIGNATURE_V1, NoteError, Signer, VerifierKey, cosign
from dicehall.fairness.tlog import verify_consistency

KEY = "witness.key"
SITE_KEY = "site.vkey"
STATE = "checkpoint"
API = "/api/v1/fairness"


class WitnessError(Exception):
    """The site could not be asked, or answered something that is not what was asked."""


class Site(Protocol):
    """How the witness talks to a site."""

    def get(self, path: str, params: dict[str, int] | None = None) -> str:
        """The body of a 200 answer to ``GET path`` (WitnessError otherwise)."""
        ...

    def post(self, path: str, body: dict[str, Any]) -> tuple[int, str]:
        """The status and body of the answer to a JSON ``POST``."""
        ...


class HttpSite:
    """A site reached over HTTP(S) with the standard library."""

    def __init__(self, base: str, timeout: float = 30.0) -> None:
        self.base = base.rstrip("/")
        self.timeout = timeout

    def get(self, path: str, params: dict[str, int] | None = None) -> str:
        query = "" if not params else "?" + urllib.parse.urlencode(params)
        try:
            with urllib.request.urlopen(self.base + path + query, timeout=self.timeout) as answer:
                body: bytes = answer.read(1 << 20)
        except urllib.error.HTTPError as exc:
            raise WitnessError(f"GET {path}{query}: {exc.code} {exc.reason}") from exc
        except (urllib.error.URLError, OSError) as exc:
            raise WitnessError(f"GET {path}{query}: {exc}") from exc
        return body.decode("utf-8", "replace")

    def post(self, path: str, body: dict[str, Any]) -> tuple[int, str]:
        request = urllib.request.Request(
            self.base + path,
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as answer:
                return int(answer.status), answer.read(1 << 16).decode("utf-8", "replace")
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read(1 << 16).decode("utf-8", "replace")
        except (urllib.error.URLError, OSError) as exc:
            raise WitnessError(f"POST {path}: {exc}") from exc


@dataclass(frozen=True)
class Outcome:
    """What one round of the witness did."""

    status: str  # "first", "grew", "same" (cosigned) or "refused"
    origin: str
    old_size: int | None
    size: int
    message: str
    witness_key: str
    evidence: str | None = None
    posted: str | None = None

    @property
    def ok(self) -> bool:
        """Whether it cosigned."""
        return self.status != "refused"

    def as_json(self) -> dict[str, Any]:
        """The outcome as JSON (``--json``)."""
        return {
            "ok": self.ok,
            "status": self.status,
            "origin": self.origin,
            "old_size": self.old_size,
            "size": self.size,
            "message": self.message,
            "witness_key": self.witness_key,
            "evidence": self.evidence,
            "posted": self.posted,
        }


def _write(path: Path, text: str, private: bool = False) -> None:
    """Write ``path`` whole or not at all (a crash never leaves half a state)."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    if private:
        tmp.chmod(0o600)
    os.replace(tmp, path)


def load_signer(state: Path, key_file: Path | None = None) -> Signer:
    """The witness's key from ``key_file`` (or ``state/witness.key``), made on first run."""
    path = key_file if key_file is not None else state / KEY
    if path.exists():
        try:
            signer = Signer.parse(path.read_text(encoding="utf-8"))
        except NoteError as exc:
            raise WitnessError(f"{path}: {exc}") from exc
        if signer.kind != COSIGNATURE_V1:
            raise WitnessError(f"{path}: a witness's key has type 0x04 (cosignature/v1)")
        return signer
    seed = secrets.token_bytes(32)
    name = f"dicehall-witness/{seed[:4].hex()}"
    signer = Signer(name, COSIGNATURE_V1, seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    _write(path, signer.text() + "\n", private=True)
    return signer


def _site_key(site: Site, state: Path, pinned: VerifierKey | None) -> VerifierKey:
    try:
        served = VerifierKey.parse(site.get(f"{API}/key"))
    except NoteError as exc:
        raise WitnessError(f"the site's log key: {exc}") from exc
    if pinned is None and (state / SITE_KEY).exists():
        pinned = VerifierKey.parse((state / SITE_KEY).read_text(encoding="utf-8"))
    if pinned is not None and served != pinned:
        raise WitnessError(
            f"the site's log key is now {served.text()}, not {pinned.text()} as pinned"
        )
    return served


def _evidence(state: Path, old: str, new: str, proof: Any, stamp: int) -> str:
    folder = state / f"evidence-{stamp}"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "old.checkpoint").write_text(old, encoding="utf-8")
    (folder / "new.checkpoint").write_text(new, encoding="utf-8")
    (folder / "proof.json").write_text(json.dumps(proof, indent=2) + "\n", encoding="utf-8")
    return str(folder)


def witness_once(
    site: Site,
    state: Path,
    signer: Signer,
    now: int,
    *,
    site_key: VerifierKey | None = None,
    post: bool = False,
) -> Outcome:
    """One round: fetch, check, cosign and keep (and post with ``post``), or refuse."""
    state.mkdir(parents=True, exist_ok=True)
    mine = signer.verifier.text()
    key = _site_key(site, state, site_key)
    note = site.get(f"{API}/checkpoint")
    try:
        new = open_checkpoint(note, key)
    except NoteError as exc:
        raise WitnessError(f"the site's checkpoint: {exc}") from exc
    old_note = (state / STATE).read_text(encoding="utf-8") if (state / STATE).exists() else None
    old: Checkpoint | None = None if old_note is None else open_checkpoint(old_note, key)

    def refuse(message: str, proof: Any) -> Outcome:
        assert old_note is not None and old is not None
        folder = _evidence(state, old_note, note, proof, now)
        return Outcome("refused", new.origin, old.size, new.size, message, mine, folder)

    status = "first"
    if old is not None:
        if new.origin != old.origin:
            return refuse(f"the checkpoint is of {new.origin}, not {old.origin}", None)
        if new.size < old.size:
            return refuse(
                f"the log shrank from {old.size} to {new.size} records: truncated or forked",
                None,
            )
        status = "same" if new.size == old.size else "grew"
        if new.size == old.size and new.root != old.root:
            return refuse(f"two different roots for {new.size} records: a fork", None)
        if new.size > old.size and old.size > 0:
            answer = site.get(f"{API}/consistency", {"from": old.size, "to": new.size})
            try:
                proof = json.loads(answer)
                hashes = [bytes.fromhex(h) for h in proof["hashes"]]
            except (ValueError, KeyError, TypeError) as exc:
                raise WitnessError(f"the consistency proof is malformed: {exc}") from exc
            if not verify_consistency(old.size, new.size, old.root, new.root, hashes):
                return refuse(
                    f"the log of {new.size} records does not extend the one of {old.size} "
                    "this witness cosigned: a fork",
                    proof,
                )
    line = cosign(new.text(), signer, now)
    kept = note + line.text()
    _write(state / STATE, kept)
    if not (state / SITE_KEY).exists():
        _write(state / SITE_KEY, key.text() + "\n")
    posted = None
    if post:
        code, body = site.post(f"{API}/cosignatures", {"note": kept, "witness_key": mine})
        posted = "kept" if code == 200 else f"refused ({code}): {body[:200]}"
    grown = {"first": "first checkpoint", "same": "unchanged", "grew": "consistent"}[status]
    message = f"cosigned {new.origin} at {new.size} records ({grown})"
    old_size = None if old is None else old.size
    return Outcome(status, new.origin, old_size, new.size, message, mine, None, posted)
