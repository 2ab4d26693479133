"""The API's contract, checked on Schemathesis's cases: the schema is as tight as the site.

A request the schema allows is accepted (:func:`positive_data_accepted`: Schemathesis's
``positive_data_acceptance``, less the refusals listed in :data:`UNSTATED`, which no schema
can state); a request it forbids is refused (``negative_data_rejection``); and a method a
path's schema does not name is 405 with an ``Allow`` header naming exactly the ones it
does (:func:`unsupported_methods`).
"""

from __future__ import annotations

import json
import re
from typing import Any

from schemathesis import Case
from schemathesis.core.transport import Response
from schemathesis.openapi.checks import RejectedPositiveData
from schemathesis.specs.openapi.checks import positive_data_acceptance

#: Refusals of requests the schema allows, by operation id, then error code, then a part of
#: the message ("" for any message with that code). Each depends on what a schema cannot
#: state: what exists or who asks (the site's state), the time, another field or the game
#: chosen, or a rule over text that no portable pattern spells (Unicode's printable and
#: IDNA rules).
UNSTATED: dict[str, dict[str, tuple[str, ...]]] = {
    # Who asks: a bearer token has no session to end.
    "auth-logout": {"not_a_session": ("",)},
    # Reserved names and those that look like them; the password is not the user id.
    "auth-signup": {
        "invalid_user_id": ("reserved",),
        "invalid_password": ("must not be the user id",),
        "invalid_display_name": ("printable", "looks too much like"),
    },
    "users-me-update": {
        "invalid_display_name": ("printable", "looks too much like"),
        "invalid_email": ("is not a valid domain",),
    },
    "tokens-create": {"invalid_token_name": ("printable",)},
    # A domain with no IDNA form.
    "auth-password-reset": {"invalid_email": ("is not a valid domain",)},
    # A forged or expired link.
    "auth-password-reset-confirm": {"invalid_link": ("",)},
    # The game chosen decides its options, seat counts and bots; who exists; a pace's
    # increment and start within its cap; vacation and ratings by pace and seats.
    "games-create": {
        "invalid_options": ("",),
        "invalid_input": ("",),
        "unknown_user": ("",),
        "invalid_seats": ("only one seat",),
        "invalid_pace": ("the cap",),
        "invalid_vacation": ("",),
        "not_rateable": ("",),
    },
    "games-move": {"invalid_input": ("",), "illegal_move": ("",)},
    # The time now, and the allowance left.
    "users-me-away": {"invalid_away": ("",), "not_enough_vacation": ("",)},
    # A key that is no point on the curve; a host that cannot be reached from here.
    "push-subscribe": {
        "invalid_subscription": ("not a point on the P-256 curve", "cannot be used"),
    },
    "users-me-webhook-set": {"unsafe_url": ("",)},
    "invites-create": {"not_your_game": ("",)},
    "messages-send": {"unknown_game": ("",)},
    # The log's size now; a cosignature is checked against the site's key and log.
    "fairness-consistency": {"no_such_tree": ("",), "invalid_range": ("",)},
    "fairness-inclusion": {"no_such_tree": ("",)},
    "fairness-cosign": {"invalid_cosignature": ("",)},
    # A cursor is one the site gave.
    "users-search": {"invalid_cursor": ("",)},
    "users-games": {
        "invalid_cursor": ("",),
        "invalid_result": ("only finished games",),
        "unknown_user": ("",),
    },
    "users-record": {"unknown_user": ("",)},
    "ladders-challenge": {"unknown_user": ("",)},
    # A moderator names the content an action is on by its kind and id together.
    "moderation-act": {"invalid_target": ("",), "invalid_minutes": ("say for how long",)},
    "ratings-leaderboard": {"invalid_cursor": ("",)},
    "users-rating-history": {"invalid_cursor": ("",)},
    "ladders-history": {"invalid_cursor": ("",)},
    "automatch-file": {
        "invalid_options": ("",),
        "invalid_seats": ("above the largest", "with these options takes"),
        "invalid_pace": ("the cap",),
    },
    "tournaments-create": {
        "invalid_options": ("",),
        "invalid_table": ("",),
        "invalid_size": ("",),
        "invalid_rounds": ("",),
        "invalid_start": ("",),
        "invalid_name": ("control characters",),
    },
}

#: What pydantic says of a value not of its type (an integer, or one arm of a union), and
#: the API of a path's or query's number not written in digits.
_NOT_WHOLE = ("Input should be a valid ", "must be a whole number written in digits")


#: How pydantic names one arm of a union in an error's path ("constrained-str",
#: "dict[str,int]"): a step that is no key of the value sent.
_ARM = re.compile(r"[a-z]+(-[a-z]+)+|[a-z]+\[.*\]")


def _at(container: Any, where: list[str]) -> Any:
    """The value at ``where`` inside ``container`` (as far as the path leads; a union arm's
    name is passed over)."""
    for step in where:
        if isinstance(container, dict) and step in container:
            container = container[step]
        elif isinstance(container, list) and step.isdigit() and int(step) < len(container):
            container = container[int(step)]
        elif _ARM.fullmatch(step):
            continue
        else:
            break
    return container


def _other_arm(case: Case[Any], part: str) -> bool:
    """Whether the error ``part`` only says the value is not of one arm of a union
    ("pace.constrained-str: Input should be a valid string" for a pace sent as an object)."""
    where, _, message = part.partition(": ")
    steps = where.split(".")
    if not message.startswith("Input should be a valid ") or not any(
        _ARM.fullmatch(step) for step in steps
    ):
        return False
    arm = next(step for step in reversed(steps) if _ARM.fullmatch(step))
    value = _at(case.body, steps[: steps.index(arm)])
    return not isinstance(value, str) if arm.endswith("str") else isinstance(value, str)


def _whole_float(case: Case[Any], part: str) -> bool:
    """Whether the error ``part`` ("up_to: Input should be a valid integer") blames an
    integer written with a fraction (``3600.0``, or its text in a query)."""
    where, _, message = part.partition(": ")
    if not any(text in message for text in _NOT_WHOLE):
        return False
    steps = where.split(".")
    containers = {"query": case.query, "path": case.path_parameters}
    if steps[0] in containers:
        value = _at(containers[steps[0]], steps[1:])
        return isinstance(value, float) or bool(re.fullmatch(r"-?\d+\.\d*", str(value)))
    value = _at(case.body, steps)
    return isinstance(value, float) and value.is_integer()


def unstated(case: Case[Any], response: Response) -> bool:
    """Whether ``response`` refuses ``case`` for a reason :data:`UNSTATED` lists, or only for
    integers written with a fraction: JSON Schema counts ``1.0`` an integer, so no schema
    can say that the site takes ids and counts as whole JSON numbers only (it does)."""
    try:
        body = json.loads(response.content)
    except ValueError:
        return False
    if not isinstance(body, dict):
        return False
    code, message = str(body.get("code")), str(body.get("error", ""))
    parts = message.split("; ")
    whole = [_whole_float(case, part) for part in parts]
    if any(whole) and all(w or _other_arm(case, p) for w, p in zip(whole, parts, strict=True)):
        return True
    operation = str(case.operation.definition.raw.get("operationId"))
    fragments = UNSTATED.get(operation, {}).get(code, ())
    return any(fragment in message for fragment in fragments)


def positive_data_accepted(ctx: Any, response: Response, case: Case[Any]) -> bool | None:
    """``positive_data_acceptance``, but a refusal :func:`unstated` explains passes."""
    try:
        return positive_data_acceptance(ctx, response, case)
    except RejectedPositiveData:
        if unstated(case, response):
            return None
        raise


def unsupported_methods(client: Any, schema: Any, path: str, values: dict[str, Any]) -> None:
    """Every method the schema's ``path`` does not name, sent there (its parameters from
    ``values``), is 405 with ``Allow`` naming exactly the methods it does (HEAD with GET)."""
    declared = {method.upper() for method in schema.raw_schema["paths"][path]}
    allowed = declared | ({"HEAD"} if "GET" in declared else set())
    url = re.sub(r"\{(\w+)\}", lambda m: str(values.get(m.group(1), 1)), path)
    for method in sorted({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"} - allowed):
        answer = client.request(method, url)
        named = {m.strip() for m in answer.headers.get("allow", "").split(",") if m.strip()}
        assert (answer.status_code, named) == (405, allowed), (method, url, answer.status_code)
