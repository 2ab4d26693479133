"""A player's luck report: exact probabilities, counts that follow the dice of their own shown
rolls in finished public games only, and a 404 for nobody."""

from __future__ import annotations

import json
import random
from itertools import product

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from dicehall import games
from dicehall.engine.events import Resolved, apply_event, decode_event
from dicehall.games.tenthousand.scoring import set_asides
from dicehall.server.core.models import EventRow
from dicehall.server.domain.luck import boatzee_chance, zero_out_chance
from dicehall.server.domain.services import Services
from tests.server.conftest import MakeUser
from tests.server.proof_games import API, LONG, create, finish, step


def test_zero_out_chances_are_the_known_figures() -> None:
    assert [round(zero_out_chance(n, False), 4) for n in range(1, 7)] == [
        0.6667, 0.4444, 0.2778, 0.1574, 0.0772, 0.0231,
    ]  # fmt: skip
    assert boatzee_chance(()) == pytest.approx(6 / 6**5)
    assert boatzee_chance((4, 4, 4)) == pytest.approx(1 / 36)
    assert boatzee_chance((4, 5)) == 0.0
    # Counted by brute force from the rules, not from the function under test.
    dead = sum(1 for roll in product(range(1, 7), repeat=3) if not set_asides(tuple(sorted(roll))))
    assert zero_out_chance(3, False) == dead / 216


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_the_report_counts_my_own_zero_outs_in_finished_games_only(
    client: TestClient, make_user: MakeUser, services: Services
) -> None:
    alice = make_user("alice")
    rng = random.Random(11)
    done = finish(client, alice, create(client, alice, "tenthousand", {"target": 1500}), rng)
    playing = create(client, alice, "tenthousand", LONG["tenthousand"])
    for _ in range(3):
        playing = step(client, alice, playing, rng)
    report = client.get(f"{API}/users/alice/luck").json()
    assert [g["game_id"] for g in report["games"]] == [done["id"]]
    # Recount from the stored log, seat 0's own rolls.
    rules = games.get("tenthousand").game
    with services.sessions() as db:
        rows = db.scalars(
            select(EventRow.data).where(EventRow.game_id == done["id"]).order_by(EventRow.seq)
        ).all()
    options = {k: v for k, v in done["options"].items() if k != "type"}
    state = rules.start(2, rules.options(options))
    rolls = zeros = 0
    for data in rows:
        event = decode_event(rules, json.loads(data))
        if isinstance(event, Resolved) and state.current == 0:
            rolls += 1
            zeros += not set_asides(tuple(sorted(event.outcome)))
        state = apply_event(rules, state, event)
    mine = report["games"][0]
    assert (mine["measure"], mine["rolls"], mine["observed"]) == ("zero-outs", rolls, zeros)
    total = report["totals"][0]
    assert total["games"] == 1 and total["observed"] == zeros and "1 time in 20" in report["note"]
    assert client.get(f"{API}/users/nobody-here/luck").status_code == 404
    page = client.get("/users/alice")
    assert page.status_code == 200
    assert f"{zeros} zero-outs in {rolls} rolls over 1 game" in page.text
