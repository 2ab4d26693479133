"""What a hint's figures rest on, said with every hint (the site's panel and ``dicehall hint``).

A hint may be worked out exactly, estimated (sampled deals, or exact tables combined by an
approximation), or valued by a heuristic while the exact tables are not ready yet. The basis
can change between two hints of one game (the tables get solved), so each hint says which.
"""

from __future__ import annotations

from typing import Any, Literal, get_args

Basis = Literal["exact", "estimate", "heuristic"]
"""``exact``: exact figures; ``estimate``: sampled or approximated; ``heuristic``: a rule of
thumb's values, not an expectation under best play."""

BASES: tuple[Basis, ...] = get_args(Basis)


def with_basis(hint: dict[str, Any], basis: Basis, text: str) -> dict[str, Any]:
    """``hint`` with ``"basis"`` (one of :data:`BASES`) and ``"basis_text"`` (a sentence)."""
    if basis not in BASES:
        raise ValueError(f"basis must be one of {', '.join(BASES)}, not {basis!r}")
    return {**hint, "basis": basis, "basis_text": text}
