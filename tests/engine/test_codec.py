"""The JSON codec: lossless for every shape games use, strict on bad input."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Literal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dicehall.engine import codec
from dicehall.engine.chance import Outcome
from dicehall.engine.errors import CodecError


class Colour(enum.Enum):
    RED = "r"
    BLACK = "k"


@dataclass(frozen=True, slots=True)
class Bet:
    amount: int


@dataclass(frozen=True, slots=True)
class Fold:
    pass


@dataclass(frozen=True, slots=True)
class Sample:
    faces: tuple[int, ...]
    pair: tuple[int, str]
    seen: frozenset[int]
    stacks: dict[int, int]
    last: Bet | Fold | None
    box: Literal["ones", "twos"]
    colour: Colour
    note: str | None = None
    flag: bool = False


def sample() -> Sample:
    return Sample(
        (1, 2, 3), (4, "x"), frozenset({3, 1}), {0: 10, 1: 20}, Bet(10), "twos", Colour.RED
    )


def test_round_trip_keeps_every_type() -> None:
    value = sample()
    text = codec.dumps(value)
    back = codec.loads(text, Sample)
    assert back == value
    assert isinstance(back.faces, tuple) and isinstance(back.seen, frozenset)
    assert back.stacks == {0: 10, 1: 20}


def test_tags_are_snake_case_and_unions_dispatch() -> None:
    assert codec.encode(Fold()) == {"type": "fold"}
    assert codec.decode({"type": "bet", "amount": 20}, Bet | Fold) == Bet(20)
    assert codec.decode({"type": "fold"}, Bet | Fold) == Fold()
    assert codec.decode(None, Bet | Fold | None) is None


@pytest.mark.parametrize(
    ("data", "expected", "message"),
    [
        ({"type": "raise"}, Bet | Fold, "type must be one of"),
        ({"type": "bet"}, Bet, "missing field 'amount'"),
        ({"type": "bet", "amount": "10"}, Bet, "whole number"),
        ({"type": "bet", "amount": True}, Bet, "whole number"),
        ({"type": "bet", "amount": 10, "extra": 1}, Bet, "unknown field"),
        ([1, 2], tuple[int, str], "expected text"),
        ([1, 2, 3], tuple[int, int], "expected 2 items"),
        ("threes", Literal["ones", "twos"], "expected one of"),
        ({"1": 2}, dict[int, int], None),
        ({"x": 2}, dict[int, int], "not a whole number"),
        (None, Bet | Fold, "null is not allowed"),
    ],
)
def test_bad_input_raises_codec_error(data: object, expected: object, message: str | None) -> None:
    if message is None:
        assert codec.decode(data, expected) == {1: 2}
        return
    with pytest.raises(CodecError, match=message):
        codec.decode(data, expected)


def test_malformed_json_text() -> None:
    with pytest.raises(CodecError, match="not valid JSON"):
        codec.loads("{nope", Bet)


@given(st.lists(st.integers(1, 6), max_size=10) | st.lists(st.sampled_from("rkwy"), max_size=10))
def test_outcomes_round_trip(items: list[int] | list[str]) -> None:
    outcome = tuple(items)
    assert codec.loads(codec.dumps(outcome), Outcome) == outcome
