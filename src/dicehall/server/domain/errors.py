"""What the site's rules refuse, said without HTTP: a kind, a short code and a sentence.

The API maps each kind to its status (``invalid`` is 422, ``conflict`` 409, ...) and the
pages show the sentence next to the form; the domain never names a status itself.
"""

from __future__ import annotations

from typing import Any, Literal

Kind = Literal[
    "bad_request",
    "unauthenticated",
    "forbidden",
    "not_found",
    "conflict",
    "invalid",
    "too_many",
    "unavailable",
]

#: The HTTP status the API answers each kind of refusal with.
STATUS: dict[Kind, int] = {
    "bad_request": 400,
    "unauthenticated": 401,
    "forbidden": 403,
    "not_found": 404,
    "conflict": 409,
    "invalid": 422,
    "too_many": 429,
    "unavailable": 503,
}


class Refused(Exception):
    """A request the rules refuse; ``extra`` carries details for the answer (a version...)."""

    def __init__(self, kind: Kind, code: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.kind = kind
        self.code = code
        self.message = message
        self.extra = extra

    @property
    def status(self) -> int:
        """The HTTP status this refusal is answered with."""
        return STATUS[self.kind]
