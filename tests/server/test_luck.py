"""A player's luck report: exact probabilities, counts that follow the dice of their own shown
rolls in finished public games only (never a hidden roll), sums of faces for Boss and
Bullseye, and a 404 for nobody."""

from __future__ import annotations

import json
import random
from itertools import product

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from dicehall import games
from dicehall.engine.events import Acted, Resolved, apply_event, decode_event
from dicehall.games.boatzee.luck import boatzee_chance
from dicehall.games.tenthousand.luck import zero_out_chance
from dicehall.games.tenthousand.scoring import set_asides
from dicehall.server.core.models import EventRow
from dicehall.server.domain import luck
from dicehall.server.domain.luck_measures import Seen, face_sum, observe, roller, z_score
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


def test_a_crafted_boatzee_turn_counts_my_boatzees_against_the_dice_held() -> None:
    rules = games.get("boatzee").game
    state = rules.start(2, rules.options({}))
    # My first roll is a Boatzee: made, with the chance of five of a kind from nothing.
    first = observe("boatzee", state, 0, (2, 2, 2, 2, 2))
    assert first is not None and first.observed == 1
    assert first.expected == pytest.approx(6 / 6**5)
    assert first.variance == pytest.approx(6 / 6**5 * (1 - 6 / 6**5))
    assert observe("boatzee", state, 1, (2, 2, 2, 2, 2)) is None, "not the other seat's"
    state = apply_event(rules, state, Resolved((2, 2, 2, 2, 2)))
    rerolls = [a for a in rules.legal(state, 0) if type(a).__name__ == "Reroll"]
    one = next(a for a in rerolls if a.positions == (0,))
    state = apply_event(rules, state, Acted(0, one))
    # Holding four 2s, one die re-rolled to a 5: no Boatzee, against a chance of 1/6.
    missed = observe("boatzee", state, 0, (5,))
    assert missed is not None and missed.observed == 0
    assert (missed.expected, missed.variance) == pytest.approx((1 / 6, 1 / 6 * 5 / 6))
    state = apply_event(rules, state, Resolved((5,)))
    two = next(a for a in rules.legal(state, 0) if type(a).__name__ == "Reroll")
    state = apply_event(rules, state, Acted(0, two))
    held = tuple(d for i, d in enumerate(state.dice) if i not in state.rerolling)
    seen = observe("boatzee", state, 0, (2,) * len(state.rerolling))
    assert seen is not None and seen.expected == boatzee_chance(held)
    assert seen.observed == int(len(set(held)) == 1 and held[0] == 2)


def test_sums_of_faces_and_z_scores() -> None:
    assert face_sum((1, 6, 6)) == Seen(13, 10.5, 3 * 35 / 12)
    assert z_score(13, 10.5, 3 * 35 / 12) == pytest.approx(2.5 / (35 / 4) ** 0.5)
    assert z_score(0, 0.0, 0.0) is None
    boss = games.get("boss").game
    state = boss.start(2, boss.options({}))
    assert [roller("boss", state), roller("holdem", state)] == [0, None]
    assert observe("boss", state, 0, (1, 2, 3, 4, 5)) == face_sum((1, 2, 3, 4, 5))
    assert observe("boss", state, 1, (1, 2, 3, 4, 5)) is None
    state = apply_event(boss, state, Resolved((1, 2, 3, 4, 5)))
    assert roller("boss", state) == 1, "the second first roll is the other seat's"


def test_boss_counts_the_sum_of_my_own_shown_faces_and_never_a_hidden_roll(
    client: TestClient, make_user: MakeUser, services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice = make_user("alice")
    done = finish(client, alice, create(client, alice, "boss", {"horses": 1}), random.Random(3))
    public = client.get(f"{API}/games/{done['id']}/log").json()["events"]
    rules = games.get("boss").game
    with services.sessions() as db:
        rows = db.scalars(
            select(EventRow.data).where(EventRow.game_id == done["id"]).order_by(EventRow.seq)
        ).all()
    state = rules.start(2, rules.options({k: v for k, v in done["options"].items() if k != "type"}))
    rolls = faces = dice = 0
    for index, data in enumerate(rows):
        event = decode_event(rules, json.loads(data))
        outcome = public[index].get("outcome")
        shown = not (isinstance(outcome, dict) and outcome.get("hidden"))
        if isinstance(event, Resolved) and shown and roller("boss", state) == 0:
            rolled = [int(f) for f in event.outcome]
            rolls, faces, dice = rolls + 1, faces + sum(rolled), dice + len(rolled)
        state = apply_event(rules, state, event)
    assert rolls > 0
    report = client.get(f"{API}/users/alice/luck").json()
    mine = report["games"][0]
    assert (mine["measure"], mine["rolls"], mine["observed"]) == ("sum of faces", rolls, faces)
    assert mine["expected"] == pytest.approx(3.5 * dice)
    total = report["totals"][0]
    assert total["z"] == pytest.approx((faces - 3.5 * dice) / (dice * 35 / 12) ** 0.5, abs=0.01)
    assert "faces summing to" in client.get("/users/alice").text

    def hide_all(options: object, seats: int, events: list[object]) -> frozenset[int]:
        return frozenset(range(len(events)))

    def hook(kind: str) -> object:
        return hide_all

    monkeypatch.setattr(luck, "hidden_outcomes_of", hook)
    hidden = client.get(f"{API}/users/alice/luck").json()["games"][0]
    assert (hidden["rolls"], hidden["observed"], hidden["expected"]) == (0, 0, 0.0)
