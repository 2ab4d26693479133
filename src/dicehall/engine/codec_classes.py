"""Decoders of dataclasses, the bulk of every state (see :mod:`dicehall.engine.codec_decode`).

Building the objects costs most of a decode, so a dataclass's usual shape gets the leanest
check there is: its decoder is written out as Python source once per class, field by field,
the way :mod:`dataclasses` writes ``__init__``. For a class with fields ``seat: int``,
``dice: tuple[int, ...]`` and ``last: Last | None`` it reads::

    def decode(data):
        if type(data) is dict and len(data) == 4:
            try:
                tag, v0, v1, v2 = GET(data)
                ok = tag == TAG and type(v0) is C0 and type(v1) is list and I0.issuperset(...)
            except KeyError:
                return careful(data)
            except TypeError:
                ok = False
            if ok:
                try:
                    v2 = None if v2 is None else D2(v2)
                except Fail as fail:
                    fail.at('.last')
                    raise
                o = NEW(TWIN)
                o.seat = v0
                o.dice = tuple(v1)
                o.last = v2
                o.__class__ = CLS
                return o
        return careful(data)

The items of all the lists of one item class are checked in one pass (lists of text by
joining them, which refuses anything but text). An object is built by filling its slots
when its ``__init__`` would do nothing more (see :func:`_twin`); a class whose
``__post_init__`` checks plain fields (options) keeps what it built for the values seen.

Anything else (a missing or unknown field, a value of another class, an object the class
refuses) takes ``careful``: the codec's checks in their own order, which either decodes the
data all the same or fails with the codec's message. The fast path never accepts what the
careful one would refuse, and the fields it calls decoders for are those the careful path
would reach first, so both give the same result and the same failure.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from itertools import chain
from operator import itemgetter, length_hint
from typing import Any

from dicehall.engine.codec_encode import tag_of
from dicehall.engine.codec_nodes import JSON, Decoder, Fail, Node

_TEXT = frozenset({str})
#: Rows of a fixed count up to this many are checked and built one by one.
_UNROLLED = 4
#: Objects a class with a ``__post_init__`` keeps, by field values, before starting over.
_MAX_KEPT = 256


def class_decoder(cls: type, nodes: Sequence[Node], otherwise: Decoder | None = None) -> Decoder:
    """The decoder of the dataclass ``cls``, whose fields decode with ``nodes``; what it does
    not take in its fast path goes to ``otherwise`` (by default, the codec's careful path)."""
    fields = dataclasses.fields(cls)
    source = _Source(cls, [f.name for f in fields])
    for i, (name, node) in enumerate(zip(source.names, nodes, strict=True)):
        source.field(i, name, node)
    return source.decoder(otherwise or _careful(cls, fields, [n.decode for n in nodes]))


class _Source:
    """A class's decoder, as it is written: the checks of its fields, the calls of their
    decoders, and what each field is built from; the values it uses sit in ``space``."""

    def __init__(self, cls: type, names: list[str]) -> None:
        self.cls = cls
        self.names = names
        self.space: dict[str, Any] = {
            "CLS": cls,
            "TAG": tag_of(cls),
            "NAMES": names,
            "GET": itemgetter("type", *names),
            "Fail": Fail,
            "chain": chain,
            "LISTS": frozenset({list}),
            "NEW": object.__new__,
            "TEXT": "".join,
            "length_hint": length_hint,
        }
        self.checks = ["tag == TAG"]
        self.calls: list[str] = []
        self.values = [f"v{i}" for i in range(len(names))]
        #: The lists (or rows of lists) of each item class.
        self.lists: dict[frozenset[type], list[str]] = {}
        #: Every field is plain (or a literal) and no two of a field's classes have equal
        #: values (as True and 1 do): the values then name the object.
        self.keyed = True

    def field(self, i: int, name: str, node: Node) -> None:
        v = f"v{i}"
        if node.plain:
            self.keyed = self.keyed and not {bool, int} <= node.plain
            if len(node.plain) == 1:
                (self.space[f"C{i}"],) = node.plain
                self.checks.append(f"type({v}) is C{i}")
            else:
                self.space[f"P{i}"] = node.plain
                self.checks.append(f"type({v}) in P{i}")
            return
        if node.literal is not None:
            self.space[f"C{i}"], self.space[f"V{i}"] = node.literal
            self.checks.append(f"type({v}) is C{i} and {v} in V{i}")
            return
        self.keyed = False
        if node.depth:
            self._lists(i, node)
        elif node.optional is not None and node.optional.depth:
            self._lists(i, node.optional, optional=True)
        elif node.each is not None:
            self._each(i, name, node.each)
        elif node.some is not None:
            self.space[f"D{i}"] = node.some
            self.calls += _noted(name, f"{v} = None if {v} is None else D{i}({v})")
        else:
            self.space[f"D{i}"] = node.decode
            self.calls += _noted(name, f"{v} = D{i}({v})")

    def _lists(self, i: int, node: Node, *, optional: bool = False) -> None:
        """A tuple of plain items (or of tuples of them), from a list; ``optional``: or null."""
        v = f"v{i}"
        check = f"type({v}) is list"
        if node.size is not None:
            check += f" and len({v}) == {node.size}"
        items = [f"({v} or ())" if optional else v]
        value = f"tuple({v})"
        if node.depth == 2 and not optional and node.size is not None and node.size <= _UNROLLED:
            # A few rows, each named: no iterator to set up.
            rows = [f"{v}[{k}]" for k in range(node.size)]
            check += "".join(f" and type({row}) is list" for row in rows)
            items = rows
            value = f"({''.join(f'tuple({row}), ' for row in rows)})"
        elif node.depth == 2:
            check += f" and LISTS.issuperset(map(type, {v}))"
            items = [f"chain.from_iterable({items[0]})"]
            value = f"tuple(map(tuple, {v}))"
        self.lists.setdefault(node.items, []).extend(items)
        self.checks.append(f"({v} is None or ({check}))" if optional else check)
        self.values[i] = f"None if {v} is None else {value}" if optional else value

    def _each(self, i: int, name: str, item: Node) -> None:
        """A tuple of items that each take a call, from a list."""
        v = f"v{i}"
        self.space[f"D{i}"] = item.decode
        self.checks.append(f"type({v}) is list")
        decoded = [f"{v} = tuple(map(D{i}, rest))"]
        if item.tags is not None:  # the union's dispatch, without its call
            self.space[f"T{i}"] = item.tags
            dispatched = f'T{i}[x["type"]](x) if type(x) is dict else D{i}(x)'
            decoded = [
                "try:",
                f"    {v} = tuple([{dispatched} for x in rest])",
                "except (KeyError, TypeError):  # no known tag: the union's own path says why",
                f"    rest = iter({v})",
                *_indent(decoded),
            ]
        self.calls += [
            f"rest = iter({v})",
            *_noted(name, decoded, f"[{{len({v}) - length_hint(rest) - 1}}]"),
        ]

    def decoder(self, careful: Decoder) -> Decoder:
        """The decoder written out, ``careful`` taking what it does not."""
        self.space["careful"] = careful
        for k, (items, lists) in enumerate(self.lists.items()):
            each = lists[0] if len(lists) == 1 else f"chain({', '.join(lists)})"
            if items == _TEXT:
                self.checks.append(f"TEXT({each}) is not None")
            else:
                self.space[f"I{k}"] = items
                self.checks.append(f"I{k}.issuperset(map(type, {each}))")
        fetched = ", ".join(["tag", *(f"v{i}" for i in range(len(self.names)))])
        lines = [
            "def decode(data):",
            f"    if type(data) is dict and len(data) == {len(self.names) + 1}:",
            "        try:",
            f"            {fetched} = GET(data)",
            f"            ok = {' and '.join(self.checks)}",
            "        except KeyError:",
            "            return careful(data)",
            "        except TypeError:  # TEXT met something other than text",
            "            ok = False",
            "        if ok:",
            *[f"            {line}" for line in [*self.calls, *self._build()]],
            "    return careful(data)",
        ]
        name = f"<codec decoder of {self.cls.__qualname__}>"
        # Written from field indices and constants only; the values sit in ``space``.
        exec(compile("\n".join(lines), name, "exec"), self.space)
        decode: Decoder = self.space["decode"]
        return decode

    def _build(self) -> list[str]:
        """The lines that build the object from the checked values."""
        cls, values = self.cls, self.values
        if not _built_from_fields(cls, self.names):
            return [
                "try:",
                f"    return {_call(cls, values)}",
                "except (TypeError, ValueError):",
                "    pass",
            ]
        if not hasattr(cls, "__post_init__"):
            twin = _twin(cls, self.names)
            if twin is not None:
                self.space["TWIN"] = twin
                return [
                    "o = NEW(TWIN)",
                    *(f"o.{name} = {v}" for name, v in zip(self.names, values, strict=True)),
                    "o.__class__ = CLS",
                    "return o",
                ]
        elif self.keyed:
            self.space["KEPT"] = {}
            return [
                f"key = ({', '.join(values)}{',' if len(values) == 1 else ''})",
                "o = KEPT.get(key)",
                "if o is None:",
                "    try:",
                f"        o = CLS({', '.join(values)})",
                "    except (TypeError, ValueError):",
                "        return careful(data)",
                f"    if len(KEPT) >= {_MAX_KEPT}:",
                "        KEPT.clear()",
                "    KEPT[key] = o",
                "return o",
            ]
        return [
            "try:",
            f"    return CLS({', '.join(values)})",
            "except (TypeError, ValueError):",
            "    pass",
        ]


def _indent(lines: list[str]) -> list[str]:
    return [f"    {line}" for line in lines]


def _noted(name: str, lines: str | list[str], item: str = "") -> list[str]:
    """``lines``, a failure in them noted as under the field ``name`` (and its ``item``)."""
    note = [f'    fail.at(f"{item}")'] if item else []
    return [
        "try:",
        *_indent([lines] if isinstance(lines, str) else lines),
        "except Fail as fail:",
        *note,
        f"    fail.at({'.' + name!r})",
        "    raise",
    ]


def _call(cls: type, values: list[str]) -> str:
    """A call of ``cls`` with every field's value."""
    if all(f.init and not f.kw_only for f in dataclasses.fields(cls)):
        return f"CLS({', '.join(values)})"
    return f"CLS(**dict(zip(NAMES, [{', '.join(values)}])))"


def _built_from_fields(cls: type, names: list[str]) -> bool:
    """Building ``cls`` is setting its fields (and calling its ``__post_init__``, if any):
    its ``__init__`` is the one :mod:`dataclasses` writes for a frozen class (each field set
    with ``object.__setattr__``), taking exactly the fields, with no ``__new__`` of its own."""
    code = getattr(cls.__dict__.get("__init__"), "__code__", None)
    return (
        code is not None
        and "__dataclass_builtins_object__" in code.co_freevars
        and code.co_varnames[1 : code.co_argcount] == tuple(names)
        and not code.co_kwonlyargcount
        and cls.__new__ is object.__new__  # type: ignore[comparison-overlap]
    )


def _twin(cls: type, names: list[str]) -> type | None:
    """A plain class with the very slots of ``cls``, if ``cls`` has a slot for each field
    and nothing else. An object made as a twin, its slots filled by plain assignment, and
    then made a ``cls`` (``o.__class__ = CLS``: Python allows it between classes of the same
    layout) is the object that ``cls``'s ``__init__`` builds, at a fraction of the cost."""
    if cls.__bases__ != (object,) or tuple(cls.__dict__.get("__slots__", ())) != tuple(names):
        return None
    twin = type(f"{cls.__name__}Slots", (), {"__slots__": tuple(names), "__module__": __name__})
    probe: Any = object.__new__(twin)
    try:
        probe.__class__ = cls
    except TypeError:  # not the same layout after all
        return None
    return twin


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
