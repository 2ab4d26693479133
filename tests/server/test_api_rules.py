"""The schema's text rules say what the domain's checks do: a text matches the pattern the
schema states exactly when the check takes it, read by Python's ``re`` (which Schemathesis
draws from) and by the Rust engine of ``jsonschema_rs`` (which it validates with) alike. The
only texts a pattern takes and a check refuses are those the rule names as unstated
(Unicode's printable rule, reserved names, a domain without an IDNA form)."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from typing import Any

import jsonschema_rs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dicehall.server.api import rules
from dicehall.server.domain import account_checks
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.games.pace import BadPace, parse_pace
from dicehall.server.domain.moderation.reports import clean_text
from dicehall.server.domain.notices import reminders
from dicehall.server.domain.notices.account_mail import check_email
from dicehall.server.domain.people import chat
from dicehall.server.domain.people.message_checks import BODY_MOST, clean_body
from dicehall.server.domain.tournaments import create
from dicehall.server.infra.webpush import unb64url

#: Characters at the rules' edges: letters, spaces of every kind, line breaks, controls,
#: hiding, reordering and format characters, one outside the first plane.
EDGES = "aZé0 .-_@\t\n\r\x0b\x1c\x85\xa0\u2028\u3000\x00\x7f\u200b\u202e\u2066\u00ad\U0001f600"
BOUNDED = settings(max_examples=150, deadline=None, derandomize=True, database=None)


def texts(most: int, alphabet: str = EDGES) -> st.SearchStrategy[str]:
    """Texts around ``most`` characters long as well as short ones, edges in any place."""
    bit = st.text(alphabet, max_size=6)
    fill = st.sampled_from([0, 1, max(0, most - 3), most - 1, most, most + 1])
    return st.builds(lambda a, n, b: a + "x" * n + b, bit, fill, bit) | bit


@cache
def _rust(pattern: str) -> Any:
    return jsonschema_rs.validator_for({"type": "string", "pattern": pattern})


def matches(pattern: str, text: str) -> bool:
    """Whether ``text`` matches ``pattern``, the same for Python and for the Rust engine."""
    python = re.search(pattern, text) is not None
    assert _rust(pattern).is_valid(text) == python, (pattern[:60], text)
    return python


def takes(check: Callable[[str], object], text: str) -> str | None:
    """None when ``check`` takes ``text``; else why it refuses it."""
    try:
        check(text)
    except (Refused, ValueError, BadPace) as exc:
        return str(exc)
    return None


def agree(pattern: str, check: Callable[[str], object], text: str, *unstated: str) -> None:
    refused = takes(check, text)
    if matches(pattern, text) and refused is not None:
        assert any(part in refused for part in unstated), (text, refused)
    else:
        assert matches(pattern, text) == (refused is None), (text, refused)


@BOUNDED
@given(texts(account_checks.DISPLAY_NAME_MAX))
def test_a_display_name(text: str) -> None:
    pattern = rules.stripped_line(account_checks.DISPLAY_NAME_MAX)
    agree(pattern, account_checks.check_display_name, text, "printable", "looks too much like")


@BOUNDED
@given(texts(account_checks.TOKEN_NAME_MAX))
def test_a_token_name(text: str) -> None:
    pattern = rules.stripped_line(account_checks.TOKEN_NAME_MAX)
    agree(pattern, account_checks.check_token_name, text, "printable")


@BOUNDED
@given(texts(account_checks.ABOUT_MAX))
def test_an_about_text(text: str) -> None:
    agree(rules.stripped_text(account_checks.ABOUT_MAX), account_checks.check_about, text)


@BOUNDED
@given(texts(chat.BODY_MOST))
def test_a_chat_line(text: str) -> None:
    agree(rules.tidied_line(chat.BODY_MOST), lambda t: chat.tidy_body(t, None), text)


@BOUNDED
@given(texts(BODY_MOST))
def test_a_message(text: str) -> None:
    pattern = rules.stripped_text(BODY_MOST, least=1, never=rules.REORDERING, crlf=True)
    agree(pattern, clean_body, text)


@BOUNDED
@given(texts(500))
def test_a_report_note(text: str) -> None:
    pattern = rules.stripped_text(500, never=rules.FORMATS, crlf=True)
    agree(pattern, lambda t: clean_text(t, 500, "a note", "invalid_text"), text)


@BOUNDED
@given(texts(create.NAME_MAX))
def test_a_tournament_name(text: str) -> None:
    pattern = rules.tidied_line(create.NAME_MAX, never=rules.FORMATS)
    agree(pattern, create._name, text, "control characters")


@BOUNDED
@given(st.text("aZ09_-é ", max_size=22))
def test_a_user_id(text: str) -> None:
    keywords = rules.USER_ID.keywords
    fits = keywords["minLength"] <= len(text) <= keywords["maxLength"]
    pattern = keywords["pattern"] if fits else "(?!)"
    agree(pattern, account_checks.check_user_id, text, "reserved", "looks too much like")


ADDRESS = st.builds(
    lambda lead, name, domain, trail: f"{lead}{name}@{domain}{trail}",
    st.sampled_from(["", " ", "\t"]),
    st.text("ab.+'é@", min_size=0, max_size=5),
    st.text("ab.-ü0¨", min_size=0, max_size=8),
    st.sampled_from(["", " ", "\n"]),
)


@BOUNDED
@given(ADDRESS | st.text(EDGES, max_size=6))
def test_an_email_address(text: str) -> None:
    keywords = rules.email_address().keywords
    pattern = keywords["pattern"] if len(text) <= keywords["maxLength"] else "(?!)"
    agree(pattern, check_email, text, "is not a valid domain")


@BOUNDED
@given(st.text("livebrskdaynoe-0124 \tLD", max_size=10))
def test_a_pace_name(text: str) -> None:
    agree(rules.pace_names(none=True).keywords["pattern"], parse_pace, text)


@BOUNDED
@given(st.text("0159%mhdMH \t", max_size=6))
def test_a_reminder(text: str) -> None:
    pattern = rules.spaced("[1-9][0-9]?%|[1-9][0-9]{0,2}[MmHhDd]")
    agree(pattern, lambda t: reminders.check([t]), text)


@pytest.mark.parametrize("size", [16, 65])
def test_a_key_in_base64url(size: int) -> None:
    pattern = rules.base64url(size).keywords["pattern"]
    for length in range(size - 2, size + 3):
        whole = "A" * ((length * 8 + 5) // 6)
        for text in (whole, f" {whole}==\n", whole.replace("A", "+/", 1), whole[:-1] + "*"):
            try:
                decodes = len(unb64url(text)) == size
            except ValueError:
                decodes = False
            assert matches(pattern, text) == decodes, (size, text)
