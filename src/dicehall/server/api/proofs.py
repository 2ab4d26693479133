"""The proof of a finished game's dice, for ``dicehall verify-game`` or any verifier."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from dicehall.server.api.deps import OptionalUser, ServicesDep
from dicehall.server.api.params import GameId
from dicehall.server.api.proof_schemas import DeckGameProof, GameProof
from dicehall.server.api.schemas import errors
from dicehall.server.domain.dice import checkpoints, proofs
from dicehall.server.domain.work import read, run_db

router = APIRouter(prefix="/api/v1", tags=["games"])


@router.get(
    "/games/{game_id}/proof",
    operation_id="games-proof",
    response_model=GameProof | DeckGameProof,
    responses=errors(401, 404, 409, 422),
)
async def proof(game_id: GameId, services: ServicesDep, user: OptionalUser) -> dict[str, Any]:
    """A finished game's proof: its public log, and for every chance event the dice sets
    or bag shuffle it was answered from, each with its leaf salt, Merkle path, batch root
    and the batch's record in the public log (up to the log's head). Dice the table never
    saw give only their hashes. A game not finished is a 409 `not_finished`; a private game
    is a 404 to all but its players and watchers. Check it with `dicehall verify-game`."""
    signer = await run_db(services, checkpoints.log_signer, services)
    return await run_db(
        services, read, services, lambda conn: proofs.game_proof(conn, game_id, user, signer)
    )
