"""The codec's decoders, compiled once per expected type (see :mod:`dicehall.engine.codec`).

A type's annotations are read once, when its decoder is built; decoding then only runs
closures (and, for dataclasses, code written for the class: :mod:`codec_classes`). Each
first tries the usual shape with checks of exact classes (the ints of a list are checked in
one pass, in C) and otherwise makes the checks the codec has always made, in the same
order, so every value decodes to the same result and bad input fails with the same message.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import threading
import types
import typing
from collections.abc import Callable, Iterable, Sequence
from itertools import chain
from operator import length_hint
from typing import Any, Literal, NoReturn, get_args, get_origin

from dicehall.engine.codec_classes import class_decoder
from dicehall.engine.codec_encode import tag_of
from dicehall.engine.codec_nodes import JSON, Decoder, Fail, Node
from dicehall.engine.errors import CodecError

_NONE = type(None)
_LISTS = frozenset({list})
#: Decoders by the very object asked for (kept in the entry, so its id is not reused).
_BY_IDENTITY: dict[int, tuple[Any, Decoder]] = {}
_MAX_IDENTITIES = 4096
#: Nodes by :func:`_shape`, for every type compiled so far.
_BY_SHAPE: dict[Any, Node] = {}
_lock = threading.RLock()
#: The parser that ``json.loads`` runs, without the wrapper around it (which looks for white
#: space before and after the value, in Python: a fifth of the time of a state's text).
_scan: Callable[[str | bytes, int], tuple[JSON, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]


def loads(text: str | bytes, expected: Any) -> Any:
    """Decode JSON text to ``expected``; malformed text raises :class:`CodecError`."""
    try:
        data, end = _scan(text, 0)  # TypeError for bytes
        alone = end == len(text)
    except (StopIteration, ValueError, TypeError):
        alone = False
    if not alone:  # white space, bytes or bad text: json.loads reads it, or words the error
        try:
            data = json.loads(text)
        except (ValueError, UnicodeDecodeError) as exc:
            raise CodecError(f"not valid JSON: {exc}") from exc
    try:
        return decoder(expected)(data)
    except Fail as fail:
        raise fail.error("$") from fail.__cause__


def decode(data: JSON, expected: Any, path: str = "$") -> Any:
    """Decode a JSON structure to the type ``expected``."""
    try:
        return decoder(expected)(data)
    except Fail as fail:
        raise fail.error(path) from fail.__cause__


def decoder(expected: Any) -> Decoder:
    """The decoder of ``expected`` (it raises :class:`Fail`), built on first use."""
    hit = _BY_IDENTITY.get(id(expected))
    if hit is not None and hit[0] is expected:
        return hit[1]
    with _lock:
        memo: dict[Any, Node] = {}
        found = _node(expected, memo).decode
        _BY_SHAPE.update(memo)
        if len(_BY_IDENTITY) >= _MAX_IDENTITIES:
            _BY_IDENTITY.clear()
        _BY_IDENTITY[id(expected)] = (expected, found)
    return found


def _shape(expected: Any) -> Any:
    """A key equal only for types that decode alike. Typing's own equality will not do: it
    ignores the order of union members and literal values, which results and messages keep."""
    args = get_args(expected)
    if not args:
        return expected
    if get_origin(expected) is Literal:
        return (Literal, tuple((type(a), a) for a in args))
    return (get_origin(expected), tuple(_shape(a) for a in args))


def _node(expected: Any, memo: dict[Any, Node]) -> Node:
    try:
        key = _shape(expected)
        node = _BY_SHAPE.get(key) or memo.get(key)
    except TypeError:  # unhashable: built afresh each time
        return _compile(expected, memo)
    if node is None:
        node = memo[key] = _compile(expected, memo)
    return node


def _compile(expected: Any, memo: dict[Any, Node]) -> Node:
    """The branches the codec has always taken, taken once."""
    if expected is Any:
        return Node(_any, some=_any)
    if expected is _NONE or expected is None:
        return Node(_null, frozenset({_NONE}), some=_null)
    origin = get_origin(expected)
    if origin in (typing.Union, types.UnionType):
        return _union(get_args(expected), memo)
    if origin is Literal:
        return _literal(get_args(expected))
    if origin is tuple:
        args = get_args(expected)
        if len(args) == 2 and args[1] is Ellipsis:
            return _variable(tuple, _node(args[0], memo))
        return _fixed([_node(a, memo) for a in (() if args == ((),) else args)])
    if origin in (frozenset, set):
        (item,) = get_args(expected)
        return _variable(frozenset, _node(item, memo))
    if origin is dict:
        key_type, value_type = get_args(expected)
        return _dict(key_type is int, _node(value_type, memo).decode)
    if isinstance(expected, type):
        return _class(expected, memo)
    return _never(f"cannot decode to {expected!r}")


def _never(message: str) -> Node:
    def refuse(_data: JSON) -> NoReturn:
        raise Fail(message)

    return Node(refuse)


def _any(data: JSON) -> Any:
    return data


def _null(data: JSON) -> None:
    if data is not None:
        raise Fail("expected null")


def _bool(data: JSON) -> bool:
    if isinstance(data, bool):
        return data
    raise Fail("expected true or false")


def _int(data: JSON) -> int:
    if isinstance(data, bool) or not isinstance(data, int):
        raise Fail("expected a whole number")
    return data


def _float(data: JSON) -> float:
    if isinstance(data, bool) or not isinstance(data, int | float):
        raise Fail("expected a number")
    return float(data)


def _str(data: JSON) -> str:
    if isinstance(data, str):
        return data
    raise Fail("expected text")


_SCALARS = {
    bool: Node(_bool, frozenset({bool})),
    int: Node(_int, frozenset({int})),
    float: Node(_float),
    str: Node(_str, frozenset({str})),
}


def _class(cls: type, memo: dict[Any, Node]) -> Node:
    scalar = _SCALARS.get(cls)
    if scalar is not None:
        return scalar
    if issubclass(cls, enum.Enum):
        return _enum(cls)
    if dataclasses.is_dataclass(cls):
        return _dataclass(cls, memo)
    return _never(f"cannot decode to {cls.__name__}")


def _dataclass(cls: type, memo: dict[Any, Node]) -> Node:
    built: list[Decoder] = []

    def forward(data: JSON) -> Any:
        return built[0](data)

    # What a field of this very class (a tree) calls, while the class is being built.
    memo[cls] = Node(forward)
    built.append(class_decoder(cls, _field_nodes(cls, memo)))
    return Node(built[0])


def _field_nodes(cls: type, memo: dict[Any, Node]) -> list[Node]:
    hints = typing.get_type_hints(cls)
    return [_node(hints[f.name], memo) for f in dataclasses.fields(cls)]


def _enum(cls: type[enum.Enum]) -> Node:
    def decode(data: JSON) -> enum.Enum:
        try:
            return cls(data)
        except ValueError as exc:
            raise Fail(f"{data!r} is not a valid {cls.__name__}") from exc

    return Node(decode)


def _literal(allowed: tuple[Any, ...]) -> Node:
    # A value matches when equal to one and of the very same class (1 is not True).
    kinds = frozenset(type(a) for a in allowed)
    pairs = frozenset((type(a), a) for a in allowed)
    listed = ", ".join(repr(a) for a in allowed)

    def decode(data: JSON) -> Any:
        kind = type(data)
        if kind in kinds and (kind, data) in pairs:
            return data
        raise Fail(f"expected one of {listed}")

    if len(kinds) == 1:
        return Node(decode, literal=(next(iter(kinds)), frozenset(allowed)))
    return Node(decode)


def _union(members: tuple[Any, ...], memo: dict[Any, Node]) -> Node:
    """A union: null, a dataclass found by its tag, or the other members in order."""
    nullable = _NONE in members
    classes = [m for m in members if isinstance(m, type) and dataclasses.is_dataclass(m)]
    rest = [_node(m, memo) for m in members if m is not _NONE and m not in classes]
    tags: dict[Any, Decoder] = {}
    for cls in classes:
        tags.setdefault(tag_of(cls), _node(cls, memo).decode)
    listed = ", ".join(repr(tag_of(c)) for c in classes)
    others = [n.decode for n in rest]

    def decode(data: JSON) -> Any:
        if data is None:
            if nullable:
                return None
            raise Fail("null is not allowed here")
        if tags and isinstance(data, dict):
            tag = data.get("type")
            try:
                found = tags.get(tag)
            except TypeError:  # an unhashable tag names no class
                found = None
            if found is not None:
                return found(data)
            raise Fail(f"type must be one of {listed}, not {tag!r}")
        first: Fail | None = None
        for member in others:
            try:
                return member(data)
            except Fail as fail:
                first = first or fail
        raise first or Fail("no matching type")

    if nullable and not classes and len(rest) == 1 and not rest[0].plain:
        # X | None: X decodes all but null.
        return Node(decode, some=rest[0].decode, optional=rest[0])
    if nullable and len(classes) == 1 and not rest:
        # C | None: C's own decoder, but the tag is a must (else the union's path).
        fields = _field_nodes(classes[0], memo)
        tagged = class_decoder(classes[0], fields, otherwise=decode)
        return Node(decode, some=tagged, tags=tags)
    if classes or not all(n.plain for n in rest):
        return Node(decode, some=decode if nullable else None, tags=tags or None)
    # Members that each pass their own classes and refuse the others: any order agrees.
    plain = frozenset(chain([_NONE] if nullable else [], *(n.plain for n in rest)))
    return Node(decode, plain, some=decode if nullable else None)


def _all(into: Callable[[Iterable[Any]], Any], decode: Decoder, data: Sequence[JSON]) -> Any:
    """``into`` of every item of ``data`` decoded; a failure names the item's index."""
    items = data if type(data) is list else list(data)
    rest = iter(items)
    try:
        return into(map(decode, rest))
    except Fail as fail:
        fail.at(f"[{len(items) - length_hint(rest) - 1}]")
        raise


def _variable(into: type[tuple[Any, ...]] | type[frozenset[Any]], item: Node) -> Node:
    """``tuple[X, ...]`` or ``frozenset[X]``: any number of items, from a list."""
    decode_item = item.decode

    def decode(data: JSON) -> Any:
        if not isinstance(data, list):
            raise Fail("expected a list")
        return _all(into, decode_item, data)

    if item.plain:
        flat = _flat(into, item.plain, None, decode)
        return Node(flat, items=item.plain, depth=1) if into is tuple else Node(flat)
    if into is tuple and item.depth == 1 and item.size is None:
        return Node(_rows(item.items, None, decode), items=item.items, depth=2)
    return Node(decode, each=item if into is tuple else None)


def _flat(
    into: Callable[[Iterable[Any]], Any], plain: frozenset[type], size: int | None, slow: Decoder
) -> Decoder:
    """A list of plain items as it is; anything else decodes with ``slow``."""

    def decode(data: JSON) -> Any:
        if (
            type(data) is list
            and (size is None or len(data) == size)
            and plain.issuperset(map(type, data))
        ):
            return into(data)
        return slow(data)

    return decode


def _rows(plain: frozenset[type], size: int | None, slow: Decoder) -> Decoder:
    """A list of lists of plain items, as tuples; anything else decodes with ``slow``."""

    def decode(data: JSON) -> Any:
        if (
            type(data) is list
            and (size is None or len(data) == size)
            and _LISTS.issuperset(map(type, data))
            and plain.issuperset(map(type, chain.from_iterable(data)))
        ):
            return tuple(map(tuple, data))
        return slow(data)

    return decode


def _fixed(items: list[Node]) -> Node:
    """``tuple[A, B]``: exactly these items, from a list."""
    size = len(items)
    plains = [n.plain for n in items]
    decoders = [n.decode for n in items]

    def decode(data: JSON) -> tuple[Any, ...]:
        if not isinstance(data, list):
            raise Fail("expected a list")
        if len(data) != size:
            raise Fail(f"expected {size} items")
        rest = iter(data if type(data) is list else list(data))
        try:
            return tuple(
                [
                    v if type(v) in p else f(v)
                    for v, p, f in zip(rest, plains, decoders, strict=True)
                ]
            )
        except Fail as fail:
            fail.at(f"[{size - length_hint(rest) - 1}]")
            raise

    kinds = {(n.plain, n.items, n.depth, n.size) for n in items}
    if len(kinds) == 1:
        plain, inner, depth, inner_size = kinds.pop()
        if plain:  # tuple[int, int]
            return Node(_flat(tuple, plain, size, decode), items=plain, depth=1, size=size)
        if depth == 1 and inner_size is None:  # tuple[tuple[int, ...], tuple[int, ...]]
            return Node(_rows(inner, size, decode), items=inner, depth=2, size=size)
    return Node(decode)


def _dict(whole_keys: bool, decode_value: Decoder) -> Node:
    """``dict[K, V]`` from an object; int keys are read from their text."""

    def decode(data: JSON) -> dict[Any, Any]:
        if not isinstance(data, dict):
            raise Fail("expected an object")
        out: dict[Any, Any] = {}
        for key, value in data.items():
            name = key
            if whole_keys:
                try:
                    key = int(key)
                except ValueError as exc:
                    raise Fail(f"key {key!r} is not a whole number") from exc
            try:
                out[key] = decode_value(value)
            except Fail as fail:
                fail.at(f".{name}")
                raise
        return out

    return Node(decode)
