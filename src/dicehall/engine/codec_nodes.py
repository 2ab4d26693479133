"""What the codec's compiled decoders share: the node a type compiles to, and the failure
they raise (see :mod:`dicehall.engine.codec_decode`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from dicehall.engine.errors import CodecError

JSON = Any
Decoder = Callable[[JSON], Any]
NOTHING: frozenset[type] = frozenset()


class Fail(Exception):
    """Data that does not decode. Its path is put together only now, on the way out: each
    container it passes adds its own step (``.cards``, ``[0]``)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
        self.steps: list[str] = []

    def at(self, step: str) -> None:
        """Note one more step out (the container that holds what failed)."""
        self.steps.append(step)

    def error(self, path: str) -> CodecError:
        """The failure as the codec reports it, under ``path`` (``$`` at the top)."""
        return CodecError(f"{path}{''.join(reversed(self.steps))}: {self.message}")


@dataclass(frozen=True, slots=True)
class Node:
    """A type's compiled decoder (it raises :class:`Fail`), and what a dataclass's decoder
    may check in its place without calling it."""

    decode: Decoder
    #: Classes (among those of None, bool, int, str) whose values ``decode`` returns
    #: unchanged, refusing the others of those four.
    plain: frozenset[type] = NOTHING
    #: For a literal of values of one class: that class and the values.
    literal: tuple[type, frozenset[Any]] | None = None
    #: For a tuple of plain items of one kind (``tuple[int, ...]``, ``tuple[int, int]``:
    #: depth 1) or a tuple of such tuples of any length (``tuple[tuple[int, ...], ...]``:
    #: depth 2): the items' plain classes. The tuple is then the list (of lists) as it is,
    #: once its length (``size``, where fixed) and the classes of its items are checked.
    items: frozenset[type] = NOTHING
    depth: int = 0
    size: int | None = None
    #: For ``tuple[X, ...]`` of other items: X's node (the tuple is X's decoder mapped over
    #: the list's items).
    each: Node | None = None
    #: For a union with dataclasses: their decoders by tag (an object is decoded by the one
    #: its ``"type"`` names).
    tags: Mapping[Any, Decoder] | None = None
    #: When set, ``decode(None)`` is None and any other value decodes with ``some``.
    some: Decoder | None = None
    #: For ``X | None`` (X not a dataclass): X's node.
    optional: Node | None = None
