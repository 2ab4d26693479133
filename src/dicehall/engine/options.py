"""A game's options: parsed from text (CLI, forms) or typed values (JSON), and described for
people (a label, a line of help, named choices) as dataclass field metadata on the options
type, so every surface words an option the same way::

    target: int = described(10_000, "Target score", "Points to win, 50 to 100000.")
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeVar, get_args, get_origin

from dicehall.engine.errors import InvalidOptions

T = TypeVar("T")

_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}
_NONE = {"none", "null", ""}


def _convert(name: str, value: object, annotation: Any) -> object:
    origin = get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        members = get_args(annotation)
        if type(None) in members and (
            value is None or (isinstance(value, str) and value.strip().lower() in _NONE)
        ):
            return None
        errors: list[str] = []
        for member in members:
            if member is type(None):
                continue
            try:
                return _convert(name, value, member)
            except InvalidOptions as exc:
                errors.append(str(exc))
        raise InvalidOptions(errors[0] if errors else f"bad value for option {name!r}")
    if origin is Literal:
        allowed = get_args(annotation)
        for choice in allowed:
            if value == choice or (isinstance(value, str) and str(choice) == value.strip()):
                return choice
        shown = ", ".join(str(a) for a in allowed)
        raise InvalidOptions(f"option {name!r} must be one of {shown}, not {value!r}")
    if annotation is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
            return value.strip().lower() in _TRUE
        raise InvalidOptions(f"option {name!r} must be true or false, not {value!r}")
    if annotation is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, str):
            try:
                return int(value.strip())
            except ValueError:
                pass
        raise InvalidOptions(f"option {name!r} must be a whole number, not {value!r}")
    if annotation is str:
        if isinstance(value, str):
            return value.strip()
        raise InvalidOptions(f"option {name!r} must be text, not {value!r}")
    raise InvalidOptions(f"option {name!r} has an unsupported type")  # pragma: no cover


def parse_options(options_type: type[T], raw: Mapping[str, object]) -> T:
    """Build an options dataclass from ``raw``; unknown names and bad values raise.

    Range checks belong to the dataclass's ``__post_init__``, which raises InvalidOptions.
    """
    fields = {f.name: f for f in dataclasses.fields(options_type)}  # type: ignore[arg-type]
    hints = typing.get_type_hints(options_type)
    values: dict[str, object] = {}
    for key, value in raw.items():
        name = key.strip().replace("-", "_")
        if name not in fields:
            known = ", ".join(sorted(fields)) or "none"
            raise InvalidOptions(f"unknown option {key!r} (known options: {known})")
        values[name] = _convert(name, value, hints[name])
    try:
        return options_type(**values)
    except TypeError as exc:  # pragma: no cover - fields all have defaults
        raise InvalidOptions(str(exc)) from exc


def parse_pairs(pairs: list[str]) -> dict[str, str]:
    """``["k=v", ...]`` from the command line as a dict; malformed pairs raise."""
    result: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise InvalidOptions(f"an option must look like name=value, not {pair!r}")
        result[key.strip()] = value
    return result


@dataclass(frozen=True)
class OptionText:
    """How an option is shown: its label, a line of help, and named choices if any."""

    label: str
    help: str = ""
    #: (value, label) pairs, for options better chosen from a list than typed in.
    choices: tuple[tuple[str, str], ...] = ()


def described(
    default: Any, label: str, help: str = "", choices: Sequence[tuple[str, str]] = ()
) -> Any:
    """A dataclass field with ``default`` and its :class:`OptionText` in the metadata."""
    text = OptionText(label, help, tuple(choices))
    return dataclasses.field(default=default, metadata={"option_text": text})


def option_text(field: dataclasses.Field[Any]) -> OptionText:
    """The field's :class:`OptionText` (its name, capitalised, when it has none)."""
    text = field.metadata.get("option_text")
    if isinstance(text, OptionText):
        return text
    return OptionText(field.name.replace("_", " ").capitalize())
