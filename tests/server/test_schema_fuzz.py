"""(Longer than most test modules: one signed-in walk calls every operation of the API once
with a success, which reads best in one place.)

Schemathesis against the JSON API's own OpenAPI schema, in-process, signed in, on SQLite
and PostgreSQL: no request a client can send gets a 5xx, and every answer conforms to the
schema: its status is one the operation documents, its content type the documented one, and
its body matches the documented schema (the exact response models of
:mod:`dicehall.server.api.schemas`, or the ``ErrorBody`` of every error). The schema is as
tight as the site (:mod:`tests.server.contract_checks`): what it allows is accepted (but for
refusals no schema can state), what it forbids is refused, and a method a path does not take
is 405 with its ``Allow``. Then the id faults the fuzz found, each pinned by a plain test
(the contract's faults are pinned in ``test_api_contract``).

(Longer than most test modules: one successful call of every operation of the whole API,
which the check that every success matches its schema needs in one place.)
"""

from __future__ import annotations

import random
import traceback
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st
from schemathesis import Case, GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.core.failures import FailureGroup
from schemathesis.python import asgi
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_schema_conformance,
    status_code_conformance,
)
from sqlalchemy import select, update

from dicehall.fairness.note import COSIGNATURE_V1, Signer, cosign
from dicehall.server.app import create_app
from dicehall.server.core.models import DiceBatch, Rating, SeatRow, User
from dicehall.server.core.security import issue_api_token
from dicehall.server.domain.moderation import roles
from dicehall.server.domain.notices.links import reset_token
from dicehall.server.domain.people import search
from dicehall.server.domain.services import Services, build_services
from dicehall.server.domain.site_secrets import site_secret
from dicehall.server.domain.tournaments import job as tournaments_job
from tests.server.conftest import Headers, MakeUser, site_settings
from tests.server.contract_checks import positive_data_accepted, unsupported_methods
from tests.server.pushservice import push_service
from tests.server.webhook_receiver import receiving
from tests.waiting import wait_until

API = "/api/v1"
SCHEMA_PATH = f"{API}/openapi.json"

#: Examples per operation (positive and negative mixed), deterministic: both databases
#: take about 20 s together on two cores.
EXAMPLES = 25
#: What every answer is checked for: no 5xx; a status the operation documents (each error
#: status a route can give is in its `responses`); the documented content type; a body that
#: matches the documented schema for that status (success models with every key and no
#: other, `ErrorBody` for errors); a request the schema allows accepted, one it forbids
#: refused (`tests.server.contract_checks`).
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    positive_data_accepted,
    negative_data_rejection,
]

#: Where webhooks and pushes may go although it is local: the test's own receiver and push
#: service listen there (nothing is ever sent to a public address).
LOOPBACK = ("127.0.0.1",)

# Every operation in the schema is fuzzed; none is left out. The WebSocket (`/api/v1/ws`) is
# not in the schema, and HTML pages are not in it either (their id faults are pinned below).
# Operations that change the caller's own state stay in: `DELETE /tokens/{token_id}` may
# revoke the fuzzing token, so `Caller` issues a fresh one; `POST /auth/password` needs the
# current password, which the fuzz never knows; `POST /auth/logout` refuses bearer tokens.


@pytest.fixture
def services(db_url: str, tmp_path: Path) -> Iterator[Services]:
    """The site's services on a fresh database; webhooks and pushes may reach the loopback,
    and mail (a changed address's verification link) goes to a Maildir of the test's own."""
    settings = site_settings(db_url, outbound_allow=LOOPBACK, mail_dir=str(tmp_path / "mail"))
    built = build_services(settings)
    try:
        yield built
    finally:
        built.engine.dispose()


@dataclass
class Caller:
    """The fuzzing user's bearer token, re-issued when the fuzz revokes it."""

    services: Services
    user_key: str
    headers: Headers = field(default_factory=dict)
    token_id: int = 0

    def refresh(self) -> None:
        """A new bearer token for the fuzzing user."""
        with self.services.writers() as db, db.begin():
            user = db.scalars(select(User).where(User.key == self.user_key)).one()
            secret, row = issue_api_token(db, user, "fuzz")
            db.flush()
            self.token_id = row.id
        self.headers = {"Authorization": f"Bearer {secret}"}


def _create(client: TestClient, headers: Headers, body: dict[str, Any]) -> int:
    response = client.post(f"{API}/games", json=body, headers=headers)
    assert response.status_code == 201, response.text
    game_id: int = response.json()["id"]
    return game_id


def _finish(client: TestClient, headers: Headers, game_id: int) -> None:
    """Play legal moves (leaning to turn-enders) until the game is over."""
    rng = random.Random(game_id)

    def movable() -> Any:
        game = client.get(f"{API}/games/{game_id}", headers=headers).json()
        # No legal move: the bot driver has the rest of the bot's turn.
        return game if game["status"] == "finished" or game["legal"] else None

    for _ in range(500):
        game = wait_until(movable, timeout=10, what=f"the bot's turn in game {game_id} to end")
        if game["status"] == "finished":
            return
        enders = [a for a in game["legal"] if a["type"] in {"stop", "hold", "bank", "fold"}]
        action = rng.choice(enders or game["legal"])
        body = {"action": action, "expected_version": game["version"]}
        moved = client.post(f"{API}/games/{game_id}/actions", json=body, headers=headers)
        # A move is committed before its answer is checked against its model: look at it.
        assert moved.status_code < 500, moved.text
    raise AssertionError(f"game {game_id} did not end")


def _seed_games(client: TestClient, me: Headers, friend: Headers) -> list[int]:
    """Games in every state an id route can meet: active, open, invited, finished."""
    two = {"allow_two_seats": True}
    ids = [
        _create(client, me, {"game": kind, "seats": ["me", "bot:random"], "options": options})
        for kind, options in [
            ("tenthousand", {}),
            ("boatzee", {}),
            ("boss", {}),
            ("holdem", {}),
            ("bullseye", two),
        ]
    ]
    ids.append(_create(client, me, {"game": "tenthousand", "seats": ["me", "open"]}))
    ids.append(_create(client, friend, {"game": "boss", "seats": ["me", "user:fuzzer"]}))
    short = {"rounds": 1, **two}
    finished = _create(
        client, me, {"game": "bullseye", "options": short, "seats": ["me", "bot:heuristic"]}
    )
    _finish(client, me, finished)
    ids.append(finished)
    return ids


@dataclass
class Fuzz:
    """The app as Schemathesis reaches it, its schema, a signed-in caller and known ids."""

    app: FastAPI
    schema: Any
    caller: Caller
    game_ids: list[int]
    #: The other user's bearer headers (to open seats and invite the fuzzing user).
    friend: Headers


@pytest.fixture
def fuzz(services: Services, make_user: MakeUser) -> Iterator[Fuzz]:
    """An app on a fresh database with two users and a few games, its schema loaded."""
    app = create_app(services=services)
    me, friend = make_user("fuzzer"), make_user("friend")
    with services.write_conn() as conn:  # the moderators' routes are fuzzed as one
        roles.set_role(conn, "fuzzer", "moderator", True, datetime.now(UTC))
    with TestClient(app) as client:
        game_ids = _seed_games(client, me, friend)
    try:
        schema = schemathesis.openapi.from_asgi(SCHEMA_PATH, app)
        caller = Caller(services, "fuzzer")
        caller.refresh()
        yield Fuzz(app, schema, caller, game_ids, friend)
    finally:
        # Schemathesis keeps an app's lifespan (bot driver, pushes) running until told.
        asgi.shutdown_lifespans()


#: Integers at the edges of the databases' id columns (32-bit on PostgreSQL, 64-bit on
#: SQLite), which unbounded generation reaches only by luck.
EDGE_IDS = [0, -1, 2**31 - 1, 2**31, 2**63 - 1, 2**63, 2**64]


#: Names in paths that are often known ones, so the fuzz gets past "no such user".
KNOWN_NAMES = {"user_id": ["friend"], "kind": ["boss", "bullseye"]}


def _cases(operation: Any, known: dict[str, list[int]]) -> st.SearchStrategy[Case[Any]]:
    """Positive and negative cases; integer path ids are often known ids or edge values,
    names often known names (Schemathesis judges a case positive or negative again after)."""
    modes = [GenerationMode.POSITIVE, GenerationMode.NEGATIVE]
    generated = st.one_of([operation.as_strategy(generation_mode=mode) for mode in modes])

    @st.composite
    def cases(draw: st.DrawFn) -> Case[Any]:
        case: Case[Any] = draw(generated)
        for name, value in case.path_parameters.items():
            if name.endswith("_id") and isinstance(value, int):
                choices = st.sampled_from([value, *known.get(name, []), *EDGE_IDS])
                case.path_parameters[name] = draw(choices)
            elif name in KNOWN_NAMES and isinstance(value, str):
                case.path_parameters[name] = draw(st.sampled_from([value, *KNOWN_NAMES[name]]))
        return case

    return cases()


def _send(fuzz: Fuzz, case: Case[Any], client: Any) -> None:
    """Send one case as the fuzzing user and run the checks on its answer."""
    caller = fuzz.caller
    sent = caller.headers
    # Reading `meta` judges the case again (positive or negative) after an id or name in it
    # was changed; a call would take the judgement made when it was drawn.
    assert case.meta is not None
    response = case.call(session=client, headers=sent)
    revoked = response.status_code == 200 and case.method.upper() == "DELETE"
    if revoked and response.json().get("revoked") == caller.token_id:
        caller.refresh()  # the fuzz revoked its own token: later cases need a live one
    case.validate_response(response, checks=CHECKS, headers=sent)


BOUNDED = settings(
    max_examples=EXAMPLES,
    derandomize=True,
    database=None,
    deadline=None,
    phases=[Phase.explicit, Phase.generate, Phase.shrink],
    suppress_health_check=list(HealthCheck),
)


def _fuzz_operation(fuzz: Fuzz, operation: Any, client: Any) -> None:
    """Bounded, deterministic examples of one operation; raises on the first failing one."""
    known = {"game_id": fuzz.game_ids, "token_id": [fuzz.caller.token_id], "batch_id": [1]}

    @BOUNDED
    @given(case=_cases(operation, known))
    def run(case: Case[Any]) -> None:
        _send(fuzz, case, client)

    run()


def _sweep_edges(fuzz: Fuzz, operation: Any, client: Any) -> None:
    """Every edge value in every integer id of the path, on the simplest valid case: the
    fuzz meets these only by chance, so they are also sent every time."""
    simplest: Case[Any] = find(operation.as_strategy(), lambda _: True, settings=BOUNDED)
    for name, value in simplest.path_parameters.items():
        if name.endswith("_id") and isinstance(value, int):
            for edge in EDGE_IDS:
                case = simplest.derive()
                case.path_parameters[name] = edge
                _send(fuzz, case, client)


@pytest.mark.both_databases
@pytest.mark.slow
def test_no_request_gets_a_server_error(fuzz: Fuzz) -> None:
    """Every operation of the schema, fuzzed; all failures are reported together."""
    failures: list[str] = []
    probed: set[str] = set()
    # Schemathesis types its ASGI app with plain dicts; FastAPI's are mutable mappings.
    with asgi.get_client(fuzz.app) as client:  # type: ignore[arg-type]
        for result in fuzz.schema.get_all_operations():
            operation = result.ok()
            if operation.path not in probed:
                probed.add(operation.path)
                try:
                    at = {"game_id": fuzz.game_ids[0], "user_id": "friend", "kind": "boss"}
                    unsupported_methods(client, fuzz.schema, operation.path, at)
                except AssertionError as exc:
                    failures.append(f"{operation.path}: a method it does not take: {exc}")
            for attempt in (_sweep_edges, _fuzz_operation):
                try:
                    attempt(fuzz, operation, client)
                # Schemathesis's FailureGroup is a BaseExceptionGroup, not an Exception.
                except (Exception, FailureGroup) as exc:
                    reason = "".join(traceback.format_exception_only(exc)).strip()
                    failures.append(f"{operation.label}:\n{reason}")
                    break
    assert not failures, f"{len(failures)} operations failed:\n\n" + "\n\n".join(failures)


# -- every operation's success, checked the same way -------------------------------------------


def test_every_operation_answers_a_success_that_matches_its_schema(
    fuzz: Fuzz, services: Services
) -> None:
    """The fuzz mostly meets errors; here every operation is sent a request that succeeds,
    and its answer gets the fuzz's checks (a documented status, content type and schema)."""
    me, friend = fuzz.caller.headers, fuzz.friend
    finished = fuzz.game_ids[-1]
    done: set[tuple[str, str]] = set()
    password, new_password = "correct horse battery", "battery staple horse"

    def call(client: Any, method: str, path: str, status: int, sent: Headers, **parts: Any) -> Any:
        case: Case[Any] = fuzz.schema[API + path][method].Case(**parts)
        response = case.call(session=client, headers=sent)
        assert response.status_code == status, (method, path, response.text)
        case.validate_response(response, checks=CHECKS, headers=sent)
        done.add((method, API + path))
        plain = "text/plain" in str(response.headers.get("content-type"))
        return response.text if plain else response.json()

    def create(client: Any, sent: Headers, game: str, *seats: str) -> int:
        body = {"game": game, "seats": list(seats)}
        game_id: int = call(client, "POST", "/games", 201, sent, body=body)["id"]
        return game_id

    # Schemathesis types its ASGI app with plain dicts; FastAPI's are mutable mappings.
    with asgi.get_client(fuzz.app) as client:  # type: ignore[arg-type]
        call(client, "GET", "/games/kinds", 200, me)
        call(client, "GET", "/games/open", 200, me, query={"limit": 5})
        mine = create(client, me, "tenthousand", "me", "bot:random")
        at = {"game_id": mine}
        call(client, "POST", "/games/{game_id}/seed", 200, me, path_parameters=at,
             body={"seed": "5eed" * 8})  # fmt: skip
        game = call(client, "GET", "/games/{game_id}", 200, me, path_parameters=at)
        assert game["your_turn"], game
        call(client, "GET", "/games/{game_id}/hint", 200, me, path_parameters=at)
        move = {"action": game["legal"][0], "expected_version": game["version"]}
        call(client, "POST", "/games/{game_id}/actions", 200, me, path_parameters=at, body=move)
        call(client, "GET", "/games/{game_id}/events", 200, me, path_parameters=at)
        call(client, "GET", "/games", 200, me)
        call(client, "GET", "/games/waiting-on-me", 200, me)
        nxt = call(client, "GET", "/games/next", 200, me, query={"skip": finished})
        assert (nxt["game"] is None) == (nxt["waiting"] == 0), nxt
        call(client, "GET", "/games/{game_id}/log", 200, me, path_parameters={"game_id": finished})
        call(
            client, "GET", "/games/{game_id}/replay", 200, me, path_parameters={"game_id": finished}
        )
        proof = call(
            client, "GET", "/games/{game_id}/proof", 200, me, path_parameters={"game_id": finished}
        )
        assert proof["chance"] and proof["keys"] and proof["log"] and proof["tree"], proof
        call(client, "GET", "/games/live", 200, me, query={"limit": 5})
        guest = {"game_id": mine, "user_id": "friend"}
        call(client, "POST", "/games/{game_id}/watchers", 200, me, path_parameters=at,
             body={"user": "friend"})  # fmt: skip
        call(client, "GET", "/games/{game_id}/watchers", 200, me, path_parameters=at)
        call(client, "DELETE", "/games/{game_id}/watchers/{user_id}", 200, me,
             path_parameters=guest)  # fmt: skip
        call(client, "POST", "/games/{game_id}/chat", 201, me, path_parameters=at,
             body={"preset": "gl"})  # fmt: skip
        call(client, "GET", "/games/{game_id}/chat", 200, me, path_parameters=at)
        call(client, "POST", "/games/{game_id}/chat/read", 200, me, path_parameters=at, body={})
        at = {"game_id": finished}
        call(client, "POST", "/games/{game_id}/rematch", 201, me, path_parameters=at)
        waiting = create(client, friend, "tenthousand", "me", "open")
        at = {"game_id": waiting}
        call(client, "POST", "/games/{game_id}/join", 200, me, path_parameters=at, body={})
        for answer in ("accept", "decline"):
            at = {"game_id": create(client, friend, "boss", "me", "user:fuzzer")}
            call(client, "POST", f"/games/{{game_id}}/{answer}", 200, me, path_parameters=at)
        at = {"game_id": create(client, me, "tenthousand", "me", "open")}
        call(client, "POST", "/games/{game_id}/cancel", 200, me, path_parameters=at)
        # Abort (I have not moved), resign, and take a seat back from the autopilot.
        for ending in ("abort", "resign", "take-back"):
            game_id = create(client, me, "bullseye", "me", "bot:random", "bot:random")
            if ending == "take-back":
                with services.writers() as db, db.begin():
                    db.execute(
                        update(SeatRow)
                        .where(SeatRow.game_id == game_id, SeatRow.seat == 0)
                        .values(status="autopilot")
                    )
            at = {"game_id": game_id}
            version = call(client, "GET", "/games/{game_id}", 200, me, path_parameters=at)
            body = {"expected_version": version["version"]}
            call(client, "POST", f"/games/{{game_id}}/{ending}", 200, me, path_parameters=at,
                 body=body)  # fmt: skip

        call(client, "GET", "/fairness", 200, me)
        call(client, "GET", "/fairness/log", 200, me, query={"from": 1})
        call(client, "GET", "/users/{user_id}/luck", 200, me, path_parameters={"user_id": "fuzzer"})
        # A batch is revealed once its dice are spent and its games over; mark one revealed
        # (the answer's shape does not depend on why).
        with services.writers() as db, db.begin():
            db.execute(update(DiceBatch).where(DiceBatch.id == 1).values(revealed=True))
        at = {"batch_id": 1}
        call(client, "GET", "/fairness/batches/{batch_id}", 200, me, path_parameters=at)
        # The log's tree: a checkpoint, its proofs, and a witness's cosignature of it.
        call(client, "GET", "/fairness/key", 200, me)
        note = call(client, "GET", "/fairness/checkpoint", 200, me)
        size = int(note.split("\n")[1])
        call(client, "GET", "/fairness/checkpoint", 200, me, query={"cosigned": True})
        call(client, "GET", "/fairness/consistency", 200, me, query={"from": 1, "to": size})
        call(client, "GET", "/fairness/inclusion", 200, me, query={"seq": 1, "size": size})
        witness = Signer("fuzz.example/witness", COSIGNATURE_V1, bytes([7]) * 32)
        line = cosign(note.split("\n\n")[0] + "\n", witness, 1_700_000_000)
        cosigned = {"note": note + line.text(), "witness_key": witness.verifier.text()}
        call(client, "POST", "/fairness/cosignatures", 200, me, body=cosigned)

        call(client, "GET", "/users/me", 200, me)
        call(client, "PATCH", "/users/me", 200, me, body={"about": "fuzzing"})
        call(client, "GET", "/users/{user_id}", 200, me, path_parameters={"user_id": "friend"})
        with services.write_conn() as conn:
            search.ensure_terms(conn)  # the fuzz's users were made without search terms
        found = call(client, "GET", "/users", 200, me, query={"q": "FRI"})
        assert [u["user_id"] for u in found["users"]] == ["friend"], found
        user_at = {"user_id": "friend"}
        call(client, "GET", "/users/{user_id}/games", 200, me, path_parameters=user_at)
        call(client, "GET", "/users/{user_id}/record", 200, me, path_parameters=user_at)
        call(client, "GET", "/users/me/vacation", 200, me)
        until = (datetime.now(UTC) + timedelta(days=1)).isoformat()
        call(client, "POST", "/users/me/away", 200, me, body={"until": until})
        call(client, "DELETE", "/users/me/away", 200, me)
        call(client, "PUT", "/relations/{user_id}", 200, me, path_parameters=user_at,
             body={"kind": "buddy", "note": "plays fast"})  # fmt: skip
        call(client, "GET", "/relations", 200, me, query={"kind": "buddy"})
        call(client, "DELETE", "/relations/{user_id}", 200, me, path_parameters=user_at)
        call(client, "GET", "/users/me/settings", 200, me)
        call(client, "PATCH", "/users/me/settings", 200, me, body={"dice_style": "numerals"})
        call(client, "GET", "/notifications", 200, me, query={"limit": 5})
        call(client, "POST", "/notifications/read", 200, me, body={"up_to": None})
        # A webhook at a real receiver on the loopback, tested, then forgotten.
        with receiving() as receiver:
            hook = {"url": receiver.url(), "format": "json"}
            call(client, "PUT", "/users/me/webhook", 200, me, body=hook)
            call(client, "GET", "/users/me/webhook", 200, me)
            tried = call(client, "POST", "/users/me/webhook/test", 200, me)
            assert tried == {"ok": True, "error": None}, tried
            receiver.wait_for(1)
            call(client, "DELETE", "/users/me/webhook", 200, me)
        # A browser's subscription at a real push service on the loopback, pushed to once.
        with push_service() as pushes:
            key = call(client, "GET", "/push/key", 200, {})["public_key"]
            made = call(client, "POST", "/push/subscriptions", 201, me,
                        body=pushes.new_subscription(server_key=key))  # fmt: skip
            listed = call(client, "GET", "/push/subscriptions", 200, me)
            assert [s["id"] for s in listed["subscriptions"]] == [made["id"]], listed
            sent = call(client, "POST", "/push/test", 200, me)
            assert sent == {"sent": 1, "errors": []}, sent
            pushes.wait_for(1)
            call(client, "DELETE", "/push/subscriptions/{subscription_id}", 200, me,
                 path_parameters={"subscription_id": made["id"]})  # fmt: skip
        friend_at = {"user_id": "friend"}
        call(client, "POST", "/messages/{user_id}", 201, me, path_parameters=friend_at,
             body={"body": "good game", "game_id": finished})  # fmt: skip
        call(client, "GET", "/messages", 200, me, query={"limit": 5})
        call(client, "GET", "/messages/{user_id}", 200, fuzz.friend,
             path_parameters={"user_id": "fuzzer"})  # fmt: skip
        call(client, "POST", "/messages/{user_id}/read", 200, fuzz.friend,
             path_parameters={"user_id": "fuzzer"}, body={"up_to": None})  # fmt: skip
        call(client, "DELETE", "/messages/{user_id}", 200, me, path_parameters=friend_at)
        # Reports, testimonials and the moderators' routes (the fuzzing user moderates).
        filed = call(client, "POST", "/reports", 201, me,
                     body={"kind": "user", "target": "friend", "reason": "other"})  # fmt: skip
        call(client, "GET", "/moderation/reports", 200, me, query={"status": "open"})
        call(client, "POST", "/moderation/actions", 201, me,
             body={"action": "warn", "reason": "fuzz", "report_id": filed["id"]})  # fmt: skip
        call(client, "GET", "/moderation/audit", 200, me, query={"user_id": "friend"})
        told = call(client, "PUT", "/users/me/testimonial", 200, friend, body={"body": "Fine"})
        call(client, "GET", "/users/me/testimonial", 200, friend)
        call(client, "GET", "/moderation/testimonials", 200, me)
        call(client, "POST", "/moderation/testimonials/{testimonial_id}/approve", 200, me,
             path_parameters={"testimonial_id": told["id"]})  # fmt: skip
        call(client, "GET", "/testimonials", 200, {})
        call(client, "DELETE", "/users/me/testimonial", 200, friend)
        call(client, "GET", "/presence", 200, me)
        call(client, "GET", "/presence/counts", 200, {})
        call(client, "GET", "/singularity", 200, me, query={"limit": 5})
        link = call(client, "POST", "/invites", 201, me, body={"make_buddies": False})
        call(client, "GET", "/invites", 200, me, query={"limit": 5})
        invite_token = link["url"].rsplit("/i/", 1)[1]
        call(client, "POST", "/invites/accept", 200, friend, body={"token": invite_token})
        link = call(client, "POST", "/invites", 201, me, body={})
        at = {"invite_id": link["id"]}
        call(client, "DELETE", "/invites/{invite_id}", 200, me, path_parameters=at)
        ladder = {"kind": "boss"}
        call(client, "GET", "/ladders", 200, me)
        call(client, "POST", "/ladders/{kind}/join", 200, me, path_parameters=ladder)
        call(client, "POST", "/ladders/{kind}/join", 200, friend, path_parameters=ladder)
        call(client, "POST", "/ladders/{kind}/challenges", 201, me, path_parameters=ladder,
             body={"opponent": "friend"})  # fmt: skip
        call(client, "GET", "/ladders/{kind}", 200, me, path_parameters=ladder)
        call(client, "POST", "/ladders/{kind}/vacation", 200, me, path_parameters=ladder,
             body={"days": 2})  # fmt: skip
        call(client, "GET", "/ladders/{kind}/history", 200, me, path_parameters=ladder)
        call(client, "POST", "/ladders/{kind}/leave", 200, me, path_parameters=ladder)
        ticket = call(client, "POST", "/automatch", 201, me,
                      body={"game": "bullseye", "seats": [3, 4], "bots_after": 60})  # fmt: skip
        call(client, "GET", "/automatch", 200, me)
        call(client, "DELETE", "/automatch/{ticket_id}", 200, me,
             path_parameters={"ticket_id": ticket["id"]})  # fmt: skip
        cup = {"name": "Fuzz cup", "game": "boatzee", "format": "cup", "size": 2}
        made = call(client, "POST", "/tournaments", 201, me, body=cup)
        at = {"tournament_id": made["id"]}
        call(client, "POST", "/tournaments/{tournament_id}/join", 200, me, path_parameters=at)
        call(client, "POST", "/tournaments/{tournament_id}/join", 200, friend, path_parameters=at)
        tournaments_job.run(services, datetime.now(UTC))  # full: its first round starts
        call(client, "GET", "/tournaments", 200, me, query={"status": "running"})
        call(client, "GET", "/tournaments/{tournament_id}", 200, me, path_parameters=at)
        call(client, "POST", "/tournaments/{tournament_id}/withdraw", 200, me,
             path_parameters=at)  # fmt: skip
        # A rated game to its end (I resign), and the two players listed on its leaderboard.
        rated = {"game_id": create(client, friend, "boss", "me", "user:fuzzer")}
        client.post(f"{API}/games/{rated['game_id']}/accept", headers=me)
        seen = call(client, "GET", "/games/{game_id}", 200, me, path_parameters=rated)
        client.post(f"{API}/games/{rated['game_id']}/resign", headers=me,
                    json={"expected_version": seen["version"]})  # fmt: skip
        with services.writers() as db, db.begin():
            db.execute(update(Rating).values(games=12))
        seen = call(client, "GET", "/games/{game_id}", 200, me, path_parameters=rated)
        assert seen["ratings"]["seats"][0]["change"] is not None, seen
        call(client, "GET", "/ratings", 200, me)
        board = call(client, "GET", "/ratings/{kind}", 200, {}, path_parameters={"kind": "boss"},
                     query={"limit": 1})  # fmt: skip
        assert board["next"] is not None, board
        call(client, "GET", "/users/{user_id}/ratings/{kind}/history", 200, {},
             path_parameters={"user_id": "friend", "kind": "boss"})  # fmt: skip
        call(client, "GET", "/tokens", 200, me)

        # A browser: the session cookie lives in the client, writes send the CSRF token.
        account = {"user_id": "sweeper", "password": password}
        call(client, "POST", "/auth/signup", 201, {}, body=account)
        call(client, "GET", "/auth/session", 200, {})
        csrf = {
            "X-CSRF-Token": call(client, "POST", "/auth/login", 200, {}, body=account)["csrf_token"]
        }
        # An address of my own (example.org: reserved, and mail goes to the test's Maildir),
        # set from a browser, and a reset link asked for it (202 whether or not it is known
        # and verified).
        address = "sweeper@example.org"
        mine_now = call(client, "PATCH", "/users/me", 200, csrf, body={"email": address})
        assert (mine_now["email"], mine_now["email_verified"]) == (address, False), mine_now
        call(client, "POST", "/auth/password-reset", 202, {}, body={"email": address})
        # Tokens are made from a browser (an API token may not make more of itself).
        token = call(client, "POST", "/tokens", 201, csrf, body={"name": "sweep"})
        at = {"token_id": token["id"]}
        call(client, "DELETE", "/tokens/{token_id}", 200, csrf, path_parameters=at)
        change = {"old_password": password, "new_password": new_password}
        call(client, "POST", "/auth/password", 200, csrf, body=change)
        call(client, "POST", "/auth/logout", 200, csrf)
        client.cookies.clear()

        # Last, as it ends every session and token of mine: a new password by a reset link
        # (its token made as the mailed link's is).
        with services.sessions() as db:
            user = db.scalars(select(User).where(User.key == "fuzzer")).one()
            token = reset_token(site_secret(services), user.id, user.password_hash)
        reset = {"token": token, "password": "a brand new battery"}
        done_reset = call(client, "POST", "/auth/password-reset/confirm", 200, {}, body=reset)
        assert done_reset["user_id"] == "fuzzer" and done_reset["ended_tokens"] >= 1, done_reset

    every = {
        (m.upper(), path) for path, item in fuzz.schema.raw_schema["paths"].items() for m in item
    }
    assert done == every, every - done


# -- the faults the fuzz found, pinned -----------------------------------------------------------

#: Ids no table can hold: 0 and below, past PostgreSQL's integer, past SQLite's 64 bits.
OUT_OF_RANGE = [0, -1, 2**31, 2**63, 2**64]


@pytest.mark.both_databases
@pytest.mark.parametrize("path", ["/api/v1/games/{}/hint", "/api/v1/fairness/batches/{}"])
def test_an_id_no_table_can_hold_is_422(path: str, client: TestClient, make_user: MakeUser) -> None:
    headers = make_user("ida")
    for value in OUT_OF_RANGE:
        response = client.get(path.format(value), headers=headers)
        assert response.status_code == 422, (value, response.text)
        assert response.json()["code"] == "invalid_request"


@pytest.mark.both_databases
def test_pages_answer_an_id_no_table_can_hold_with_the_404_page(client: TestClient) -> None:
    signup = {"user_id": "ivy", "password": "correct horse battery"}
    csrf = client.post(f"{API}/auth/signup", json=signup).json()["csrf_token"]
    for value in OUT_OF_RANGE:
        board = client.get(f"/games/{value}")
        assert board.status_code == 404, (value, board.text[:200])
        assert "text/html" in board.headers["content-type"]
        assert f"There is no game {value}." in board.text
        joined = client.post(
            f"/waiting/{value}/join", data={"csrf_token": csrf}, follow_redirects=False
        )
        assert joined.status_code == 404, (value, joined.text[:200])
        assert f"There is no game {value}." in joined.text
