"""Answers serialised once: JSON bytes straight from a payload the domain built in the
response model's shape. FastAPI would validate the payload against the model and dump it
again, which costs a hot route (a move, a game's read) more than the rest of its work.

The keys are still held to the model's at run time (a drift is a 500, never trimmed or
filled in); the values' shapes are held by the tests (``tests/server/test_move_answers.py``
compares every answer of every game with what the model would write).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from typing import Any

from fastapi import Response
from pydantic import BaseModel

_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode


class AnswerDrift(Exception):
    """A payload whose keys are not its response model's (a bug: answered 500)."""


class JsonAnswer(Response):
    """``application/json``, as FastAPI's own answers are."""

    media_type = "application/json"


@cache
def _keys_of(model: type[BaseModel]) -> frozenset[str]:
    return frozenset(model.model_fields)


def json_answer(payload: Mapping[str, Any], model: type[BaseModel]) -> JsonAnswer:
    """``payload`` as a JSON response, encoded once; its keys must be exactly ``model``'s."""
    keys = _keys_of(model)
    if payload.keys() != keys:
        raise AnswerDrift(
            f"{model.__name__} answer drifted: extra {sorted(payload.keys() - keys)}, "
            f"missing {sorted(keys - payload.keys())}"
        )
    return JsonAnswer(_encode(payload).encode("utf-8"))
