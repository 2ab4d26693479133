"""One lossless JSON codec for options, states, actions, outcomes, views and events.

Dataclasses encode as objects tagged with ``"type"`` (the class name in snake_case); tuples
and frozensets as lists; enums by value. Decoding is driven by the expected type's
annotations, so every tuple comes back a tuple and every union member is found by its tag.

Both directions are compiled: a class's encoder (:mod:`~dicehall.engine.codec_encode`) and a
type's decoder (:mod:`~dicehall.engine.codec_decode`) are built once, on first use, so a call
reads no annotations and makes no chain of type tests; errors are worded only on failure.
"""

from __future__ import annotations

from dicehall.engine.codec_decode import decode, loads
from dicehall.engine.codec_encode import JSON, dumps, encode, tag_of

__all__ = ["JSON", "decode", "dumps", "encode", "loads", "tag_of"]
