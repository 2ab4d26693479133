"""The codec's encoders, built once per runtime class (see :mod:`dicehall.engine.codec`).

Encoding follows the value, not a declared type: each class met gets one encoder, built on
first use, and values of the JSON types themselves pass through untouched.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import re
from collections.abc import Callable
from functools import cache
from operator import attrgetter
from typing import Any

from dicehall.engine.errors import CodecError

JSON = Any
Encoder = Callable[[Any], JSON]

#: Exact classes whose values are already JSON and pass through unchanged.
_PLAIN = frozenset({type(None), bool, int, str, float})
_ENCODERS: dict[type, Encoder] = {}
#: Compact JSON text, as ``json.dumps(..., separators=(",", ":"))`` writes it.
_COMPACT = json.JSONEncoder(separators=(",", ":"))


@cache
def tag_of(cls: type) -> str:
    """The ``"type"`` tag of a dataclass: its class name in snake_case."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", cls.__name__).lower()


def encode(value: object) -> JSON:
    """A JSON-ready structure for ``value``."""
    kind = type(value)
    if kind in _PLAIN:
        return value
    encoder = _ENCODERS.get(kind)
    if encoder is None:
        encoder = _encoder_for(kind)
    return encoder(value)


def dumps(value: object) -> str:
    """``value`` as compact JSON text."""
    return _COMPACT.encode(encode(value))


def _same(value: object) -> JSON:
    return value


def _encoder_for(kind: type) -> Encoder:
    """Build (once) the encoder of the class ``kind``; the checks run in the order the codec
    has always applied them, so an ``IntEnum`` stays an int and a named tuple a list."""
    if issubclass(kind, bool | int | str | float):
        encoder: Encoder = _same
    elif issubclass(kind, enum.Enum):
        encoder = _enum
    elif issubclass(kind, tuple | list):
        encoder = _sequence
    elif issubclass(kind, frozenset | set):
        encoder = _set
    elif issubclass(kind, dict):
        encoder = _mapping
    elif dataclasses.is_dataclass(kind):
        encoder = _dataclass_encoder(kind)
    else:
        raise CodecError(f"cannot encode {kind.__name__}")
    return _ENCODERS.setdefault(kind, encoder)


def _enum(value: enum.Enum) -> JSON:
    return encode(value.value)


def _sequence(value: tuple[Any, ...] | list[Any]) -> JSON:
    if _PLAIN.issuperset(map(type, value)):
        return list(value)
    return [encode(v) for v in value]


def _set(value: frozenset[Any] | set[Any]) -> JSON:
    items = [encode(v) for v in value]
    return sorted(items, key=lambda v: json.dumps(v, sort_keys=True))


def _mapping(value: dict[Any, Any]) -> JSON:
    return {str(k): encode(v) for k, v in value.items()}


def _dataclass_encoder(cls: type) -> Encoder:
    """An object tagged ``"type"``, then every field in order."""
    keys = ("type", *(f.name for f in dataclasses.fields(cls)))
    tag = tag_of(cls)
    if len(keys) == 1:
        return lambda _value: {"type": tag}
    values = attrgetter(*keys[1:])
    if len(keys) == 2:
        return lambda value: {"type": tag, keys[1]: encode(values(value))}
    plain = _PLAIN

    def encoder(value: object) -> JSON:
        return dict(
            zip(
                keys,
                [tag, *[v if type(v) in plain else encode(v) for v in values(value)]],
                strict=True,
            )
        )

    return encoder
