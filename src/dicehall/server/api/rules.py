"""Rules the site checks, stated in the OpenAPI schema as well.

The domain checks a request's texts and names with a code and a sentence of its own
(``invalid_display_name``: "a display name must be at most 40 characters long"), which the
API keeps: pydantic does not check these rules again. ``Rule`` puts them in the schema only
(lengths, patterns, enums), so that what the schema allows is what the site takes, and what
it forbids the site refuses. An enum known only when the site runs (the installed games) is
read when the schema is made.

The text patterns follow the domain's checks: surrounding white space is stripped (or every
run of it made one space) before a length is measured, and control characters and
characters that hide or reorder text are refused. White space is spelled out as the class
Python's ``str.strip`` removes (``\\s`` means a little less to some engines), and every
character as a ``\\uXXXX`` escape, which Python, ECMAScript and Rust read alike. What no
such pattern says stays the domain's alone: a one-line name must be printable
(``str.isprintable`` also refuses Unicode's format, private-use and unassigned characters),
a domain must have an IDNA form, no text may hold a lone surrogate (JSON text should not
carry one at all), and rules across fields or over what exists.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from typing import Annotated, Any

from pydantic import Field, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema

from dicehall import games
from dicehall.server.domain.games.pace import LONGEST, PRESETS
from dicehall.server.domain.names import HIDDEN


class Rule:
    """Annotation: JSON Schema keywords for a rule the route checks itself. A keyword's value
    may be a function, called each time a schema is made (an enum known when the site runs)."""

    def __init__(self, **keywords: Any) -> None:
        self.keywords = keywords

    def __get_pydantic_json_schema__(
        self, core_schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        schema = handler(core_schema)
        for name, value in self.keywords.items():
            schema[name] = list(value()) if callable(value) else value
        return schema


def enum_of(values: Callable[[], Iterable[str]]) -> Rule:
    """The schema's enum is ``values()``, read when the schema is made."""
    return Rule(enum=values)


# -- texts -------------------------------------------------------------------------------------


def _ranges(points: Iterable[int]) -> str:
    """A character class's body for ``points``, as ``\\uXXXX`` escapes (the pattern stays
    ASCII, and means the same to Python's ``re`` and to ECMAScript)."""
    ordered = sorted(set(points))
    out: list[str] = []
    start = previous = ordered[0]
    for point in [*ordered[1:], -1]:
        if point == previous + 1:
            previous = point
            continue
        out.append(f"\\u{start:04x}" if start == previous else f"\\u{start:04x}-\\u{previous:04x}")
        start = previous = point
    return "".join(out)


_CONTROLS = [*range(0x00, 0x20), *range(0x7F, 0xA0)]
_LINE_CONTROLS = {0x09, 0x0A, 0x0D}
#: White space other than the ASCII space: not printable, so not inside a one-line name.
_OTHER_SPACES = [0x85, 0xA0, 0x1680, *range(0x2000, 0x200B), 0x2028, 0x2029, 0x202F, 0x205F]
_OTHER_SPACES.append(0x3000)
#: What ``str.strip`` and ``str.split`` take for white space, as a class's body.
_SPACES = _ranges([*range(0x09, 0x0E), *range(0x1C, 0x21), *_OTHER_SPACES])
#: Characters that reorder text (bidirectional embeddings, overrides and isolates).
REORDERING = [*range(0x202A, 0x202F), *range(0x2066, 0x206A)]

#: Characters that hide or reorder text (all of them format characters).
HIDING = [ord(c) for c in HIDDEN]
#: Unicode's format characters (category Cf) a pattern can name: those of the first plane.
FORMATS = [p for p in range(0xD800) if unicodedata.category(chr(p)) == "Cf"]
FORMATS += [p for p in range(0xE000, 0x10000) if unicodedata.category(chr(p)) == "Cf"]
#: The first plane's private use area: not printable.
_PRIVATE = range(0xE000, 0xF900)
_NEVER = _ranges([*_CONTROLS, *HIDING, *FORMATS, *_PRIVATE])
_SPACE = f"[{_SPACES}]"


def stripped_line(most: int) -> str:
    """One line of 1 to ``most`` characters once stripped of surrounding white space, printable
    (no control, format or private-use character, and no white space but the ASCII space
    inside; only the unassigned characters, and those past the first plane, are not named)."""
    visible = f"[^{_SPACES}{_NEVER}]"
    inner = f"[^{_NEVER}{_ranges(_OTHER_SPACES)}]"
    return f"^{_SPACE}*{visible}(?:{inner}{{0,{most - 2}}}{visible})?{_SPACE}*$"


def stripped_text(
    most: int, *, least: int = 0, never: Iterable[int] = HIDING, crlf: bool = False
) -> str:
    """A text of ``least`` (0 or 1) to ``most`` characters once stripped of surrounding white
    space; line breaks and tabs allowed, other control characters and those of ``never``
    not. ``crlf``: a CR LF counts as one character (it is stored as one line break)."""
    refused = _ranges([*(p for p in _CONTROLS if p not in _LINE_CONTROLS), *never])
    visible = f"[^{_SPACES}{refused}]"
    inner = f"(?:\\r\\n|[^{refused}])" if crlf else f"[^{refused}]"
    body = f"{visible}(?:{inner}{{0,{most - 2}}}{visible})?"
    return f"^{_SPACE}*{body if least else f'(?:{body})?'}{_SPACE}*$"


def tidied_line(most: int, never: Iterable[int] = REORDERING) -> str:
    """A line of 1 to ``most`` characters once every run of white space is made one space
    (and the ends trimmed), with no control character nor one of ``never``."""
    visible = f"[^{_SPACES}{_ranges([*_CONTROLS, *never])}]"
    return f"^{_SPACE}*(?:{visible}|{_SPACE}+(?={visible})){{1,{most}}}{_SPACE}*$"


def any_case(word: str) -> str:
    """``word`` as a pattern of any letter case (portable: no inline flags)."""
    return "".join(f"[{c.upper()}{c.lower()}]" if c.isalpha() else re.escape(c) for c in word)


def spaced(pattern: str) -> str:
    """A pattern: all of the text is ``pattern``, surrounding white space aside."""
    return f"^{_SPACE}*(?:{pattern}){_SPACE}*$"


def words(*choices: str) -> str:
    """A pattern: one of ``choices`` in any letter case, surrounding white space aside."""
    return spaced("|".join(any_case(c) for c in choices))


# -- names, addresses and keys -----------------------------------------------------------------


#: A user id as sign-up takes it: 3 to 20 ASCII letters, digits, ``_`` and ``-``, a letter
#: first (the reserved names, and those that look like them, are refused besides).
USER_ID = Rule(minLength=3, maxLength=20, pattern="^[A-Za-z][A-Za-z0-9_-]*$")

_LOCAL = "[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]"
#: A domain's letter: an ASCII letter or digit, or any character past ASCII but white space
#: (as a class of what it is not, which is quick to draw from).
_LETTER = f"[^\\u0000-\\u002f\\u003a-\\u0040\\u005b-\\u0060\\u007b-\\u009f{_SPACES}]"
#: A domain's label: letters, digits and ``-`` (not first or last); a name in any script
#: must have an IDNA form besides (not stated here).
_LABEL = f"(?:{_LETTER}(?:(?:{_LETTER}|-){{0,61}}{_LETTER})?)"


def email_address(*, blank: bool = False) -> Rule:
    """An e-mail address as the site takes it, surrounding white space aside: a name of at
    most 64 characters (no ``..``, not starting with ``.``), ``@`` and a domain with a dot;
    at most 254 characters (the schema counts the white space around it too: a length in a
    pattern's lookahead makes drawing values for it far too slow). ``blank``: or "" (which
    removes it)."""
    name = f"(?!\\.)(?!{_LOCAL}*\\.\\.){_LOCAL}{{1,64}}"
    address = f"{_SPACE}*{name}@(?:{_LABEL}\\.)+{_LABEL}{_SPACE}*"
    return Rule(pattern=f"^(?:{address}){'?' if blank else ''}$", maxLength=254)


def web_url(*, schemes: str = "https?") -> Rule:
    """An absolute URL of ``schemes`` (a pattern, any letter case), surrounding white space
    aside, with a host and no user name or password in it (whether its host may be reached
    is looked up when it is given: not stated here)."""
    scheme = re.sub(r"[a-z]", lambda m: f"[{m.group().upper()}{m.group()}]", schemes)
    host = f"[^/?#@{_SPACES}]+"
    return Rule(pattern=f"^{_SPACE}*{scheme}://{host}(?:[/?#].*)?{_SPACE}*$")


def base64url(size: int, *, first: str = "") -> Rule:
    """``size`` bytes in base64url (or standard base64), padding optional, surrounding white
    space aside; ``first``: a class the first characters must match (a leading byte)."""
    chars = -(-size * 8 // 6)
    rest = chars - len(re.findall(r"\[[^]]*\]|.", first))
    return Rule(pattern=f"^{_SPACE}*{first}[A-Za-z0-9_+/-]{{{rest}}}=*{_SPACE}*$")


# -- games -------------------------------------------------------------------------------------


#: The name of an installed game (``tenthousand``...): the schema lists the site's games.
GameName = Annotated[str, Field(max_length=30), enum_of(games.available)]


def pace_names(*, none: bool) -> Rule:
    """A game's pace by name: a preset, ``days-1`` to ``days-14`` (``none``: or no clock)."""
    days = f"{any_case('days')}-(?:0?[1-9]|1[0-4])"
    names = [*PRESETS, *(["none"] if none else [])]
    choices = "|".join([*(any_case(n) for n in names), days])
    return Rule(pattern=spaced(choices))


#: A pace in seconds, ``{initial, increment, cap}`` (the increment and the initial bank no
#: more than the cap: not stated here).
PACE_SECONDS = Rule(
    properties={
        "initial": {"type": "integer", "minimum": 1, "maximum": LONGEST},
        "increment": {"type": "integer", "minimum": 0, "maximum": LONGEST},
        "cap": {"type": "integer", "minimum": 1, "maximum": LONGEST},
    },
    required=["initial", "increment", "cap"],
    additionalProperties=False,
)


# -- rules across a model's fields -------------------------------------------------------------


def _given(name: str) -> dict[str, Any]:
    return {"required": [name], "properties": {name: {"not": {"type": "null"}}}}


def some_of(*names: str) -> dict[str, Any]:
    """A model's ``json_schema_extra``: at least one of ``names`` is given, and not null."""
    return {"anyOf": [_given(name) for name in names]}


def needs(name: str, other: str) -> dict[str, Any]:
    """A model's ``json_schema_extra``: ``name`` is given (not null) only with ``other``."""
    absent = [{"not": {"required": [name]}}, {"properties": {name: {"type": "null"}}}]
    return {"anyOf": [*absent, _given(other)]}


def one_of(*names: str) -> dict[str, Any]:
    """A model's ``json_schema_extra``: exactly one of ``names`` is given, and not null."""
    return {"oneOf": [_given(name) for name in names]}
