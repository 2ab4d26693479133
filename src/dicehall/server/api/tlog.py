"""The public log as a Merkle tree: signed checkpoints, the log's verifier key, consistency
and inclusion proofs, and witnesses' cosignatures (docs/site.md, "The log as a Merkle tree,
checkpoints and witnesses")."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import PlainTextResponse
from pydantic import BaseModel, ConfigDict, Field

from dicehall.server.api.deps import DbDep, ServicesDep
from dicehall.server.api.errors import ApiError
from dicehall.server.api.params import Digits
from dicehall.server.api.schemas import _Answer, errors
from dicehall.server.domain.dice import checkpoints, logtree

router = APIRouter(prefix="/api/v1", tags=["fairness"])

_TEXT: dict[int | str, dict[str, Any]] = {
    200: {"content": {"text/plain": {"schema": {"type": "string"}}}, "description": "Text."}
}
_HASHES = "Hashes (hex, 64 digits), in the order RFC 9162 gives them."


def _json_errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """Error answers of a plain-text route: JSON all the same (FastAPI would document them
    as the route's own media type)."""
    out = errors(*statuses)
    for entry in out.values():
        model = entry.pop("model")
        ref = {"$ref": f"#/components/schemas/{model.__name__}"}
        entry["content"] = {"application/json": {"schema": ref}}
    return out


def _size(description: str, alias: str | None = None) -> Any:
    return Query(ge=1, le=2**31 - 1, description=description, alias=alias)


class ConsistencyProof(_Answer):
    """Proof that the log's first `from` records are the start of its first `to` (RFC 9162,
    section 2.1.4): its tree of `from` leaves is a prefix of its tree of `to`."""

    model_config = ConfigDict(populate_by_name=True)

    old: int = Field(alias="from", description="The smaller tree's size.")
    new: int = Field(alias="to", description="The larger tree's size.")
    hashes: list[str] = Field(description=_HASHES)


class InclusionProof(_Answer):
    """Record `seq`'s leaf and its audit path in the tree of the first `size` records."""

    seq: int = Field(description="The record.")
    size: int = Field(description="The tree's size (records).")
    leaf: str = Field(description="SHA-256(0x00 || the record's canonical JSON), hex.")
    hashes: list[str] = Field(description=_HASHES + " From the leaf up.")


class CosignatureIn(BaseModel):
    """A witness's cosignature: the checkpoint as this site signed it with the witness's
    `cosignature/v1` line added, and the witness's verifier key."""

    model_config = ConfigDict(extra="forbid")

    note: str = Field(max_length=4000, description="The cosigned checkpoint (a signed note).")
    witness_key: str = Field(
        max_length=200, description="The witness's vkey: <name>+<key id>+<base64(0x04||key)>."
    )


class CosignatureKept(_Answer):
    """What the site did with a cosignature."""

    witness: str = Field(description="The witness's verifier key.")
    size: int = Field(description="The size of the tree it cosigned.")
    stored: bool = Field(description="False when a cosignature of a larger tree was kept.")


def _no_tree(exc: logtree.NoSuchTree) -> ApiError:
    return ApiError(404, "no_such_tree", str(exc))


@router.get(
    "/fairness/checkpoint",
    operation_id="fairness-checkpoint",
    response_class=PlainTextResponse,
    responses={**_TEXT, **_json_errors(422)},
)
def checkpoint(
    db: DbDep,
    services: ServicesDep,
    cosigned: Annotated[
        bool, Query(description="The latest checkpoint a witness cosigned, with cosignatures.")
    ] = False,
) -> PlainTextResponse:
    """The log's latest checkpoint (C2SP tlog-checkpoint), signed with the site's log key:
    origin, size, base64 root; then a blank line and the signature lines."""
    signer = checkpoints.log_signer(services)
    note = checkpoints.signed_checkpoint(db.connection(), signer, cosigned=cosigned)
    return PlainTextResponse(note, media_type="text/plain; charset=utf-8")


@router.get(
    "/fairness/key",
    operation_id="fairness-key",
    response_class=PlainTextResponse,
    responses=_TEXT,
)
def key(services: ServicesDep) -> PlainTextResponse:
    """The log's verifier key (signed-note vkey: `<origin>+<key id>+<base64(0x01||key)>`)."""
    vkey = checkpoints.log_signer(services).verifier.text()
    return PlainTextResponse(vkey + "\n", media_type="text/plain; charset=utf-8")


@router.get(
    "/fairness/consistency",
    operation_id="fairness-consistency",
    response_model=ConsistencyProof,
    response_model_by_alias=True,
    responses=errors(404, 422),
)
def consistency(
    db: DbDep,
    old: Annotated[int, _size("The smaller tree's size.", "from"), Digits],
    new: Annotated[int, _size("The larger tree's size.", "to"), Digits],
) -> dict[str, Any]:
    """Proof that the log's tree of `from` records is a prefix of its tree of `to`."""
    if old > new:
        raise ApiError(422, "invalid_range", "`from` must not exceed `to`")
    try:
        proof = logtree.consistency(db.connection(), old, new)
    except logtree.NoSuchTree as exc:
        raise _no_tree(exc) from exc
    return {"from": old, "to": new, "hashes": [h.hex() for h in proof]}


@router.get(
    "/fairness/inclusion",
    operation_id="fairness-inclusion",
    response_model=InclusionProof,
    responses=errors(404, 422),
)
def inclusion(
    db: DbDep,
    seq: Annotated[int, _size("The record."), Digits],
    size: Annotated[int, _size("The tree's size (records)."), Digits],
) -> dict[str, Any]:
    """Record `seq`'s leaf and audit path in the log's tree of `size` records."""
    try:
        leaf, path = logtree.inclusion(db.connection(), seq, size)
    except logtree.NoSuchTree as exc:
        raise _no_tree(exc) from exc
    return {"seq": seq, "size": size, "leaf": leaf.hex(), "hashes": [h.hex() for h in path]}


@router.post(
    "/fairness/cosignatures",
    operation_id="fairness-cosign",
    response_model=CosignatureKept,
    responses=errors(400, 422, 429, 503),
)
def cosign(body: CosignatureIn, request: Request, services: ServicesDep) -> dict[str, Any]:
    """A witness's cosignature of one of this log's checkpoints; the site keeps each
    witness's latest and serves it with `GET /fairness/checkpoint?cosigned=true`."""
    checkpoints.check_cosign_rate(services, request.client.host if request.client else "?")
    signer = checkpoints.log_signer(services)
    with services.write_conn() as conn:
        return checkpoints.accept_cosignature(conn, signer, body.note, body.witness_key)
