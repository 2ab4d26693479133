"""Errors every layer can raise and every boundary turns into a clear message."""


class DicehallError(Exception):
    """Base of every error dicehall raises on purpose; its message is for people."""


class IllegalMove(DicehallError):
    """An action that the rules do not allow now. The state is unchanged."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class InvalidOptions(DicehallError):
    """Game options that are unknown or out of range."""


class InvalidOutcome(DicehallError):
    """A chance outcome that does not answer the pending chance request."""


class CodecError(DicehallError):
    """JSON that does not decode to the expected type."""


class InvalidInput(DicehallError):
    """Bad input at a boundary (dice notation, seat lists, names)."""
