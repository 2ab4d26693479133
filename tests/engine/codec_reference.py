"""The codec as it was before it was compiled (reflection on every call), kept verbatim as
the oracle that the compiled codec must agree with: same values, same errors, same words."""

from __future__ import annotations

import dataclasses
import enum
import json
import re
import types
import typing
from functools import cache
from typing import Any, Literal, get_args, get_origin

from dicehall.engine.errors import CodecError

JSON = Any


@cache
def tag_of(cls: type) -> str:
    """The ``"type"`` tag of a dataclass: its class name in snake_case."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", cls.__name__).lower()


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


@cache
def _fields(cls: type) -> tuple[dataclasses.Field[Any], ...]:
    return dataclasses.fields(cls)


def encode(value: object) -> JSON:
    """A JSON-ready structure for ``value``."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value
    if isinstance(value, enum.Enum):
        return encode(value.value)
    if isinstance(value, tuple | list):
        return [encode(v) for v in value]
    if isinstance(value, frozenset | set):
        items = [encode(v) for v in value]
        return sorted(items, key=lambda v: json.dumps(v, sort_keys=True))
    if isinstance(value, dict):
        return {str(k): encode(v) for k, v in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out: dict[str, JSON] = {"type": tag_of(type(value))}
        for f in _fields(type(value)):
            out[f.name] = encode(getattr(value, f.name))
        return out
    raise CodecError(f"cannot encode {type(value).__name__}")


def dumps(value: object) -> str:
    """``value`` as compact JSON text."""
    return json.dumps(encode(value), separators=(",", ":"))


def loads(text: str | bytes, expected: Any) -> Any:
    """Decode JSON text to ``expected``; malformed text raises :class:`CodecError`."""
    try:
        data = json.loads(text)
    except (ValueError, UnicodeDecodeError) as exc:
        raise CodecError(f"not valid JSON: {exc}") from exc
    return decode(data, expected)


def decode(data: JSON, expected: Any, path: str = "$") -> Any:
    """Decode a JSON structure to the type ``expected``."""
    if expected is Any:
        return data
    if expected is type(None) or expected is None:
        if data is not None:
            raise CodecError(f"{path}: expected null")
        return None
    origin = get_origin(expected)
    if origin in (typing.Union, types.UnionType):
        return _decode_union(data, get_args(expected), path)
    if origin is Literal:
        if not any(data == a and type(data) is type(a) for a in get_args(expected)):
            allowed = ", ".join(repr(a) for a in get_args(expected))
            raise CodecError(f"{path}: expected one of {allowed}")
        return data
    if origin is tuple:
        args = get_args(expected)
        if not isinstance(data, list):
            raise CodecError(f"{path}: expected a list")
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(decode(v, args[0], f"{path}[{i}]") for i, v in enumerate(data))
        if args == ((),):
            args = ()
        if len(data) != len(args):
            raise CodecError(f"{path}: expected {len(args)} items")
        return tuple(
            decode(v, t, f"{path}[{i}]") for i, (v, t) in enumerate(zip(data, args, strict=True))
        )
    if origin in (frozenset, set):
        (item,) = get_args(expected)
        if not isinstance(data, list):
            raise CodecError(f"{path}: expected a list")
        return frozenset(decode(v, item, f"{path}[{i}]") for i, v in enumerate(data))
    if origin is dict:
        key_type, value_type = get_args(expected)
        if not isinstance(data, dict):
            raise CodecError(f"{path}: expected an object")
        return {
            _decode_key(k, key_type, path): decode(v, value_type, f"{path}.{k}")
            for k, v in data.items()
        }
    if isinstance(expected, type):
        return _decode_class(data, expected, path)
    raise CodecError(f"{path}: cannot decode to {expected!r}")


def _decode_key(key: str, key_type: Any, path: str) -> Any:
    if key_type is int:
        try:
            return int(key)
        except ValueError as exc:
            raise CodecError(f"{path}: key {key!r} is not a whole number") from exc
    return key


def _decode_class(data: JSON, cls: type, path: str) -> Any:
    if cls is bool:
        if not isinstance(data, bool):
            raise CodecError(f"{path}: expected true or false")
        return data
    if cls is int:
        if isinstance(data, bool) or not isinstance(data, int):
            raise CodecError(f"{path}: expected a whole number")
        return data
    if cls is float:
        if isinstance(data, bool) or not isinstance(data, int | float):
            raise CodecError(f"{path}: expected a number")
        return float(data)
    if cls is str:
        if not isinstance(data, str):
            raise CodecError(f"{path}: expected text")
        return data
    if issubclass(cls, enum.Enum):
        try:
            return cls(data)
        except ValueError as exc:
            raise CodecError(f"{path}: {data!r} is not a valid {cls.__name__}") from exc
    if dataclasses.is_dataclass(cls):
        return _decode_dataclass(data, cls, path)
    raise CodecError(f"{path}: cannot decode to {cls.__name__}")


def _decode_dataclass(data: JSON, cls: type, path: str) -> Any:
    if not isinstance(data, dict):
        raise CodecError(f"{path}: expected an object of type {tag_of(cls)!r}")
    tag = data.get("type", tag_of(cls))
    if tag != tag_of(cls):
        raise CodecError(f"{path}: expected type {tag_of(cls)!r}, got {tag!r}")
    hints = _hints(cls)
    fields = _fields(cls)
    names = {f.name for f in fields}
    unknown = set(data) - names - {"type"}
    if unknown:
        raise CodecError(f"{path}: unknown field(s) {', '.join(sorted(unknown))}")
    kwargs: dict[str, Any] = {}
    for f in fields:
        if f.name in data:
            kwargs[f.name] = decode(data[f.name], hints[f.name], f"{path}.{f.name}")
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise CodecError(f"{path}: missing field {f.name!r}")
    try:
        return cls(**kwargs)
    except (TypeError, ValueError) as exc:
        raise CodecError(f"{path}: {exc}") from exc


def _decode_union(data: JSON, members: tuple[Any, ...], path: str) -> Any:
    if data is None:
        if type(None) in members:
            return None
        raise CodecError(f"{path}: null is not allowed here")
    classes = [m for m in members if isinstance(m, type) and dataclasses.is_dataclass(m)]
    if isinstance(data, dict) and classes:
        tag = data.get("type")
        for cls in classes:
            if tag_of(cls) == tag:
                return _decode_dataclass(data, cls, path)
        tags = ", ".join(repr(tag_of(c)) for c in classes)
        raise CodecError(f"{path}: type must be one of {tags}, not {tag!r}")
    errors: list[str] = []
    for member in members:
        if member is type(None) or member in classes:
            continue
        try:
            return decode(data, member, path)
        except CodecError as exc:
            errors.append(str(exc))
    raise CodecError(errors[0] if errors else f"{path}: no matching type")
