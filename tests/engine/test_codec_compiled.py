"""The compiled codec against the codec it replaced (:mod:`tests.engine.codec_reference`):
for every type, every value it decodes and every error it words must be the same, down to
the class of each item (True is not 1) and the path and words of each message.

(Longer than most test modules: one comparison with the reference codec per kind of
value and of mistake, each short.)
"""

from __future__ import annotations

import enum
import json
import random
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any, Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dicehall import games
from dicehall.engine import codec
from dicehall.engine.bots import RandomBot
from dicehall.engine.dice import Seeded
from dicehall.engine.errors import CodecError, InvalidOptions
from dicehall.engine.table import Table
from tests.engine import codec_reference as reference


class Colour(enum.Enum):
    RED = "r"
    BLACK = "k"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


@dataclass(frozen=True, slots=True)
class Leaf:
    value: int
    note: str | None = None


@dataclass(frozen=True, slots=True)
class Pair:
    left: Leaf
    right: Leaf | None


@dataclass(frozen=True, slots=True)
class Tree:
    label: str
    children: tuple[Tree, ...] = ()


@dataclass(frozen=True, slots=True)
class Checked:
    low: int
    high: int

    def __post_init__(self) -> None:
        if self.low > self.high:
            raise ValueError("low above high")


@dataclass(frozen=True, slots=True)
class Opts:
    size: int = 3
    mode: Literal["a", "b"] = "a"
    flag: bool = False
    cap: int | None = None

    def __post_init__(self) -> None:
        if self.size < 0:
            raise InvalidOptions("size below zero")


@dataclass(frozen=True)
class Loose:
    xs: tuple[int, ...]
    ys: frozenset[str]


@dataclass(frozen=True, kw_only=True)
class Keyed:
    a: int
    b: str = "x"


@dataclass(frozen=True, slots=True)
class Hidden:
    a: int
    b: int = field(init=False, default=0)


@dataclass(frozen=True, slots=True)
class Either:
    value: bool | int
    count: int | bool = 0


@dataclass(frozen=True, slots=True)
class Toggle:
    value: bool | int

    def __post_init__(self) -> None:
        if self.value == 7:
            raise InvalidOptions("not seven")


@dataclass(frozen=True, slots=True)
class Grid:
    rows: tuple[tuple[int | None, ...], ...]
    fixed: tuple[tuple[int, ...], tuple[int, ...]]
    pair: tuple[int, str]
    twice: tuple[int, int]
    maybe: tuple[int, ...] | None
    words: tuple[str, ...]
    flags: tuple[bool, ...]
    deep: tuple[tuple[tuple[int, ...], ...], ...]
    lines: tuple[tuple[str, ...], ...] | None = None
    pairs: tuple[tuple[int, ...], tuple[int, ...]] | None = None


@dataclass(frozen=True, slots=True)
class Mixed:
    items: tuple[Leaf | Pair | None, ...]
    table: dict[int, Leaf]
    names: dict[str, int]
    colour: Colour
    level: Level
    ratio: float
    anything: Any
    lit: Literal[1, True, "1"]
    seen: frozenset[int]
    opts: Opts


TYPES: list[Any] = [
    Leaf,
    Pair,
    Tree,
    Checked,
    Opts,
    Loose,
    Keyed,
    Hidden,
    Either,
    Toggle,
    Grid,
    Mixed,
    Leaf | Pair,
    Pair | Leaf,
    Leaf | None,
    Leaf | Pair | None,
    int | float,
    float | int,
    int | str | None,
    bool | int,
    tuple[int, ...] | tuple[str, ...],
    tuple[int, ...] | None,
    Literal["x", "y"],
    Literal[1, True],
    Literal[True, 1],
    tuple[()],
    tuple[int, ...],
    tuple[Leaf, ...],
    tuple[int, str],
    dict[int, int],
    dict[str, Leaf],
    frozenset[int],
    set[str],
    list[int],
    Any,
    None,
    type(None),
    int,
    bool,
    float,
    str,
    Colour,
    Level,
    "nonsense",
]

SAMPLES: list[tuple[Any, Any]] = [
    (Leaf, Leaf(3, "n")),
    (Pair, Pair(Leaf(1), None)),
    (Pair, Pair(Leaf(1), Leaf(2, "x"))),
    (Tree, Tree("a", (Tree("b"), Tree("c", (Tree("d"),))))),
    (Checked, Checked(1, 2)),
    (Opts, Opts()),
    (Opts, Opts(5, "b", True, 7)),
    (Loose, Loose((1, 2), frozenset({"a", "b"}))),
    (Keyed, Keyed(a=1, b="y")),
    (Either, Either(True, 3)),
    (
        Grid,
        Grid(
            ((1, None, 3), (None,), ()),
            ((1, 2), (3,)),
            (4, "x"),
            (5, 6),
            (1, 2, 3),
            ("a", "bc"),
            (True, False),
            (((1,), (2, 3)), ((),)),
            (("p", "q"), ()),
            ((1,), ()),
        ),
    ),
    (
        Mixed,
        Mixed(
            (Leaf(1), Pair(Leaf(2), None), None),
            {1: Leaf(1), 20: Leaf(2)},
            {"a": 1},
            Colour.BLACK,
            Level.HIGH,
            0.5,
            {"free": [1, {"type": "leaf"}]},
            True,
            frozenset({3, 1}),
            Opts(2),
        ),
    ),
]

#: What a JSON value is swapped for: equal ones of other classes (True and 1 and 1.0), and
#: one of every other shape.
SWAPS: list[Any] = [
    None,
    True,
    False,
    0,
    1,
    2,
    1.0,
    2.5,
    "x",
    "",
    "a",
    [],
    [1],
    [None],
    {},
    {"type": "leaf"},
]


def outcome(decode: Callable[[], Any]) -> tuple[Any, ...]:
    """What a decode gave: its value, or the class and words of what it raised."""
    try:
        return ("value", decode())
    except Exception as exc:  # every failure is compared
        return (type(exc).__name__, str(exc))


def same(a: Any, b: Any) -> bool:
    """Equal, and of the very same classes all the way down."""
    if type(a) is not type(b):
        return False
    if isinstance(a, tuple | list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, frozenset | set):
        return a == b and same(sorted(map(repr, a)), sorted(map(repr, b)))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if is_dataclass(a):
        return all(same(getattr(a, f.name), getattr(b, f.name)) for f in fields(a))
    return bool(a == b) if a == a else b != b


def assert_agree(data: Any, expected: Any) -> None:
    new = outcome(lambda: codec.decode(data, expected))
    old = outcome(lambda: reference.decode(data, expected))
    assert new[0] == old[0] and same(new[1], old[1]), f"{expected!r} of {data!r}: {new} != {old}"


def mutations(data: Any) -> Iterator[Any]:
    """``data`` with one thing changed: a value swapped, a key dropped, added or renamed."""
    yield from SWAPS
    if isinstance(data, list):
        yield data[:-1]
        yield [*data, data[-1] if data else 0]
        for i, item in enumerate(data):
            for changed in mutations(item):
                yield [*data[:i], changed, *data[i + 1 :]]
    elif isinstance(data, dict):
        yield {**data, "zz": 1}
        yield {"x": 1, **data}
        for key, value in data.items():
            yield {k: v for k, v in data.items() if k != key}
            yield {("k" + k if k == key else k): v for k, v in data.items()}
            for changed in mutations(value):
                yield {**data, key: changed}


@pytest.mark.parametrize(("expected", "value"), SAMPLES)
def test_every_small_change_decodes_or_fails_alike(expected: Any, value: Any) -> None:
    data = codec.encode(value)
    assert same(data, reference.encode(value))
    assert same(codec.decode(data, expected), value)
    for changed in mutations(data):
        for kind in (expected, Any, *TYPES[:12]):
            assert_agree(changed, kind)


JSONS = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 300)
    | st.floats(allow_nan=False)
    | st.sampled_from(["a", "b", "x", "1", "leaf", "pair", "tree", "r", "k"]),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                ["type", "value", "note", "left", "right", "label", "children", "low", "high", "a"]
            )
            | st.sampled_from(["size", "mode", "flag", "cap", "xs", "ys", "1", "02", "x", "b"]),
            inner,
            max_size=5,
        )
    ),
    max_leaves=12,
)


@settings(max_examples=400, deadline=None, derandomize=True, database=None)
@given(data=JSONS, expected=st.sampled_from(TYPES))
def test_any_json_decodes_or_fails_alike(data: Any, expected: Any) -> None:
    assert_agree(data, expected)


class Count(int):
    pass


def test_python_values_beyond_json_decode_alike() -> None:
    class Table(dict[str, Any]):
        pass

    class Row(list[Any]):
        pass

    cases = [
        (Level.HIGH, int),
        (Count(4), int),
        (Table(type="leaf", value=1), Leaf),
        (Table(type="leaf", value=1), Leaf | Pair),
        ({"type": "leaf", "value": Count(2)}, Leaf),
        (Row([1, 2]), tuple[int, ...]),
        (Row([1, "x"]), tuple[int, str]),
        ({"rows": Row([Row([1])])}, Grid),
        ({"type": ["leaf"], "value": 1}, Leaf | Pair),
        ({"type": "leaf", "value": 1, 3: 4}, Leaf),
        ({None: 1}, dict[int, int]),
        ({"1": 1, "01": 2}, dict[int, int]),
        ({"type": "opts", "size": -1}, Opts),
        ({"type": "opts", "size": -1}, Mixed),
        ({"type": "checked", "low": 3, "high": 1}, Checked),
        ({"type": "checked", "low": 3, "high": 1}, tuple[Checked, ...]),
        ({"type": "hidden", "a": 1, "b": 2}, Hidden),
        ({"a": 1}, Keyed),
        ([{"type": "tree", "label": "a", "children": [{"label": 1}]}], tuple[Tree, ...]),
        ("k", Colour),
        ("z", Colour),
        (2, Level),
    ]
    for data, expected in cases:
        assert_agree(data, expected)


def test_union_order_and_literal_order_are_kept() -> None:
    """Typing calls ``int | float`` and ``float | int`` equal; the codec does not."""
    assert same(codec.decode(3, int | float), 3)
    assert same(codec.decode(3, float | int), 3.0)
    assert str(outcome(lambda: codec.decode(0, Literal["b", "a"]))[1]) == (
        "$: expected one of 'b', 'a'"
    )
    assert str(outcome(lambda: codec.decode(0, Literal["a", "b"]))[1]) == (
        "$: expected one of 'a', 'b'"
    )
    assert_agree(True, Literal[1, True])
    assert_agree(1, Literal[True, 1])


def test_kept_options_are_told_apart_by_class() -> None:
    """A class whose ``__post_init__`` checks its fields keeps what it built per values; a
    value equal to one seen (True, once 1 was) is still refused, not handed the kept one."""
    whole = {"type": "opts", "size": 1, "mode": "a", "flag": False, "cap": None}
    assert codec.decode(whole, Opts) == Opts(1)
    assert codec.decode(whole, Opts) is codec.decode(dict(whole), Opts)
    assert_agree({"type": "opts", "size": True, "mode": "a", "flag": False, "cap": None}, Opts)
    assert_agree({"type": "opts", "size": 1, "mode": "a", "flag": 0, "cap": None}, Opts)
    assert same(codec.decode({"type": "either", "value": 1}, Either), Either(1))
    assert same(codec.decode({"type": "either", "value": True}, Either), Either(True))
    for value in (1, True, 1, 1.0, True):  # a field of int or bool: its values name nothing
        assert_agree({"type": "toggle", "value": value}, Toggle)


@pytest.mark.parametrize(
    "text",
    [
        '{"type":"leaf","value":1}',
        ' {"type":"leaf","value":1}',
        '{"type":"leaf","value":1}\n',
        '{"type":"leaf","value":1} x',
        b'{"type":"leaf","value":1}',
        bytearray(b'{"type":"leaf","value":1}'),
        '\ufeff{"type":"leaf","value":1}',
        '{"type":"leaf","value":NaN}',
        '{"type":"leaf","value":1',
        "",
        "nul",
        b"\xff",
        '"\\ud800"',
        "[1, 2",
    ],
)
def test_text_reads_alike(text: str | bytes) -> None:
    for expected in (Leaf, Any, str, float):
        new = outcome(lambda: codec.loads(text, expected))  # noqa: B023 - called at once
        old = outcome(lambda: reference.loads(text, expected))  # noqa: B023
        assert new[0] == old[0] and same(new[1], old[1]), f"{text!r}: {new} != {old}"


def test_not_text_at_all_is_refused_alike() -> None:
    new = outcome(lambda: codec.loads(12, Leaf))  # type: ignore[arg-type]
    old = outcome(lambda: reference.loads(12, Leaf))  # type: ignore[arg-type]
    assert new == old


def _states(kind: str, seats: int, seed: int, count: int) -> list[Any]:
    """``count`` states of a random game, spread over it."""
    game = games.get(kind).game
    extra = {"allow_two_seats": True} if kind == "bullseye" and seats == 2 else {}
    rng = random.Random(seed)
    seen: list[Any] = []
    table: Table[Any, Any] = Table(
        game, seats, game.options(extra), record=False, listener=lambda s, _e, _a: seen.append(s)
    )
    table.advance(Seeded(seed), {seat: RandomBot(rng) for seat in range(seats)})
    seen.append(table.state)
    return seen[:: max(1, len(seen) // count)][:count]


@pytest.mark.parametrize("kind", games.NAMES)
def test_game_states_and_their_small_changes_decode_alike(kind: str) -> None:
    game = games.get(kind).game
    rng = random.Random(kind)
    for state in _states(kind, min(3, game.max_seats), 7, 6):
        text = codec.dumps(state)
        assert text == json.dumps(reference.encode(state), separators=(",", ":"))
        assert same(codec.encode(state), reference.encode(state))
        assert same(codec.loads(text, game.state_type), state)
        changes = list(mutations(json.loads(text)))
        for changed in rng.sample(changes, min(400, len(changes))):
            assert_agree(changed, game.state_type)


@pytest.mark.parametrize("kind", games.NAMES)
def test_game_actions_and_options_decode_alike(kind: str) -> None:
    game = games.get(kind).game
    state = _states(kind, 2, 3, 1)[0]
    options = codec.encode(game.options({"allow_two_seats": True} if kind == "bullseye" else {}))
    for changed in [options, *mutations(options)]:
        assert_agree(changed, game.options_type)
    for seat in range(2):
        for action in game.legal(state, seat):
            for changed in [codec.encode(action), *mutations(codec.encode(action))]:
                assert_agree(changed, game.action_type)


def test_decoders_build_once_under_threads() -> None:
    """Threads that meet a type first at once all get the same, complete decoder."""

    @dataclass(frozen=True, slots=True)
    class Fresh:
        leaves: tuple[Leaf, ...]
        grid: Grid | None = None

    data = {"type": "fresh", "leaves": [{"type": "leaf", "value": 1}], "grid": None}
    got: list[Any] = []
    threads = [
        threading.Thread(target=lambda: got.append(codec.decode(data, Fresh))) for _ in range(8)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert got == [Fresh((Leaf(1),))] * 8


def test_a_failure_names_its_path() -> None:
    data = {"type": "mixed", "items": [None, {"type": "pair", "left": {"type": "leaf"}}]}
    with pytest.raises(CodecError, match=r"^\$\.items\[1\]\.left: missing field 'value'$"):
        codec.decode({**codec.encode(SAMPLES[-1][1]), **data}, Mixed)
    with pytest.raises(CodecError, match=r"^\$\.action\.rows\[1\]\[0\]: expected a whole number"):
        codec.decode({**codec.encode(SAMPLES[10][1]), "rows": [[1], [True]]}, Grid, "$.action")
