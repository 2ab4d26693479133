"""Decoders of dataclasses, the bulk of every state (see :mod:`dicehall.engine.codec_decode`).

Building an object costs most of a decode, so a dataclass's usual shape gets the leanest
check there is: its decoder is written out as Python source once per class, field by field,
the way :mod:`dataclasses` writes ``__init__``. For a class with fields ``seat: int``,
``dice: tuple[int, ...]`` and ``last: Last | None`` it reads::

    def decode(data):
        if type(data) is dict and len(data) - ("type" in data) == 3 and data.get(...) == TAG:
            try:
                v0, v1, v2 = GET(data)
            except KeyError:
                return careful(data)
            if type(v0) is C0 and type(v1) is list and I0.issuperset(map(type, v1)):
                try:
                    v2 = None if v2 is None else D2(v2)
                except Fail as fail:
                    fail.at('.last')
                    raise
                try:
                    return CLS(v0, tuple(v1), v2)
                except (TypeError, ValueError):
                    pass
        return careful(data)

Anything else (a missing or unknown field, a value of another class, an object the class
refuses) takes ``careful``: the codec's checks in their own order, which either decodes the
data all the same or fails with the codec's message. The fast path never accepts what the
careful one would refuse, and the fields it calls decoders for are those the careful path
would reach first, so both give the same result and the same failure.
"""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Callable, Sequence
from itertools import chain
from operator import itemgetter, length_hint
from typing import Any

from dicehall.engine.codec_encode import tag_of
from dicehall.engine.codec_nodes import JSON, Decoder, Fail, Node


def class_decoder(cls: type, nodes: Sequence[Node]) -> Decoder:
    """The decoder of the dataclass ``cls``, whose fields decode with ``nodes``."""
    fields = dataclasses.fields(cls)
    names = [f.name for f in fields]
    space: dict[str, Any] = {
        "CLS": cls,
        "TAG": tag_of(cls),
        "NAMES": names,
        "GET": itemgetter("type", *names),
        "careful": _careful(cls, fields, [n.decode for n in nodes]),
        "Fail": Fail,
        "chain": chain,
        "LISTS": frozenset({list}),
        "NEW": object.__new__,
        "length_hint": length_hint,
    }
    fetched = ["tag", *(f"v{i}" for i in range(len(names)))]
    values = fetched[1:]  # what the fields are built from, once checked
    checks = ["tag == TAG"]
    calls: list[str] = []
    lists: dict[frozenset[type], list[str]] = {}
    for i, (name, node) in enumerate(zip(names, nodes, strict=True)):
        v = fetched[i + 1]
        if node.plain:
            if len(node.plain) == 1:
                (space[f"C{i}"],) = node.plain
                checks.append(f"type({v}) is C{i}")
            else:
                space[f"P{i}"] = node.plain
                checks.append(f"type({v}) in P{i}")
        elif node.literal is not None:
            space[f"C{i}"], space[f"V{i}"] = node.literal
            checks.append(f"type({v}) is C{i} and {v} in V{i}")
        elif node.depth:
            check = f"type({v}) is list"
            if node.size is not None:
                check += f" and len({v}) == {node.size}"
            if node.depth == 1:
                lists.setdefault(node.items, []).append(v)
                values[i] = f"tuple({v})"
            else:
                check += f" and LISTS.issuperset(map(type, {v}))"
                lists.setdefault(node.items, []).append(f"chain.from_iterable({v})")
                values[i] = f"tuple(map(tuple, {v}))"
            checks.append(check)
        elif node.each is not None:
            checks.append(f"type({v}) is list")
            space[f"D{i}"] = node.each
            calls += [
                f"rest = iter({v})",
                "try:",
                f"    {v} = tuple(map(D{i}, rest))",
                "except Fail as fail:",
                f'    fail.at(f"[{{len({v}) - length_hint(rest) - 1}}]")',
                f"    fail.at({'.' + name!r})",
                "    raise",
            ]
        else:
            space[f"D{i}"] = node.decode if node.some is None else node.some
            call = f"D{i}({v})" if node.some is None else f"None if {v} is None else D{i}({v})"
            calls += _on_fail(name, f"{v} = {call}")
    # The items of every list field of one item class, checked in one pass (after the
    # fields themselves are known to be lists).
    for k, (items, each) in enumerate(lists.items()):
        space[f"I{k}"] = items
        joined = each[0] if len(each) == 1 else f"chain({', '.join(each)})"
        checks.append(f"I{k}.issuperset(map(type, {joined}))")
    setters = _slot_setters(cls, names)
    if setters is not None:
        space.update((f"S{i}", setter) for i, setter in enumerate(setters))
        build = ["o = NEW(CLS)", *(f"S{i}(o, {v})" for i, v in enumerate(values)), "return o"]
    else:
        build = [
            "try:",
            f"    return {_call_of(fields, values)}",
            "except (TypeError, ValueError):",
            "    pass",
        ]
    source = "\n".join(
        [
            "def decode(data):",
            f"    if type(data) is dict and len(data) == {len(names) + 1}:",
            "        try:",
            f"            {', '.join(fetched)} = GET(data)",
            "        except KeyError:",
            "            return careful(data)",
            f"        if {' and '.join(checks)}:",
            *[f"            {line}" for line in [*calls, *build]],
            "    return careful(data)",
        ]
    )
    # Written above from field indices and constants only; the values sit in ``space``.
    exec(compile(source, f"<codec decoder of {cls.__qualname__}>", "exec"), space)
    decode: Decoder = space["decode"]
    return decode


def _on_fail(name: str, line: str) -> list[str]:
    """``line``, a failure in it noted as under the field ``name``."""
    return [
        "try:",
        f"    {line}",
        "except Fail as fail:",
        f"    fail.at({'.' + name!r})",
        "    raise",
    ]


def _call_of(fields: Sequence[dataclasses.Field[Any]], values: list[str]) -> str:
    if all(f.init and not f.kw_only for f in fields):
        return f"CLS({', '.join(values)})"
    return f"CLS(**dict(zip(NAMES, [{', '.join(values)}])))"


def _slot_setters(cls: type, names: list[str]) -> list[Callable[[Any, Any], None]] | None:
    """The setters of the fields' slots, when building ``cls`` is only setting them: its
    ``__init__`` is the one :mod:`dataclasses` writes for a frozen class (each field set with
    ``object.__setattr__``), taking exactly the fields, with no ``__post_init__`` to call and
    no ``__new__`` of its own. Skipping that ``__init__`` halves the cost of the object."""
    code = getattr(cls.__dict__.get("__init__"), "__code__", None)
    if (
        code is None
        or "__dataclass_builtins_object__" not in code.co_freevars
        or code.co_varnames[1 : code.co_argcount] != tuple(names)
        or code.co_kwonlyargcount
        or hasattr(cls, "__post_init__")
        or cls.__new__ is not object.__new__  # type: ignore[comparison-overlap]
    ):
        return None
    setters = []
    for name in names:
        slot = next((k.__dict__[name] for k in cls.__mro__ if name in k.__dict__), None)
        if not isinstance(slot, types.MemberDescriptorType):
            return None
        setters.append(slot.__set__)
    return setters


def _careful(
    cls: type, fields: Sequence[dataclasses.Field[Any]], decoders: list[Decoder]
) -> Decoder:
    """The codec's checks of an object for ``cls``, in the codec's order, with its messages."""
    tag = tag_of(cls)
    allowed = {*(f.name for f in fields), "type"}
    optional = {
        f.name
        for f in fields
        if f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
    }
    plan = [(f.name, d) for f, d in zip(fields, decoders, strict=True)]

    def careful(data: JSON) -> Any:
        if not isinstance(data, dict):
            raise Fail(f"expected an object of type {tag!r}")
        got = data.get("type", tag)
        if got != tag:
            raise Fail(f"expected type {tag!r}, got {got!r}")
        unknown = set(data) - allowed
        if unknown:
            raise Fail(f"unknown field(s) {', '.join(sorted(unknown))}")
        kwargs: dict[str, Any] = {}
        for name, decode in plan:
            if name in data:
                try:
                    kwargs[name] = decode(data[name])
                except Fail as fail:
                    fail.at(f".{name}")
                    raise
            elif name not in optional:
                raise Fail(f"missing field {name!r}")
        try:
            return cls(**kwargs)
        except (TypeError, ValueError) as exc:
            raise Fail(str(exc)) from exc

    return careful
