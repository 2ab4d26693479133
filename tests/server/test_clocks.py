"""(Longer than most test modules: every way a clock ends a game shares one site clock and
the helpers that move it.)

Games that end: tiny paces run out, and the rules apply — a
2-seat game is lost on time or aborted when unplayed, a 3-seat game plays on under
autopilot with the absent seat ranked last, vacation saves a seat once and costs an hour,
resign and abort answer at a version and are idempotent.

No test waits for a clock to run out: ``site_clock`` stops the site's clock and the test moves
it past a deadline (time-machine moves ``datetime.now()`` and ``time.time()`` in the whole
process, the app's threads and the bot driver's sweeper included; ``time.monotonic()``, which
paces the site's loops and the tests' waits, runs on).

(Longer than most test modules: every way a clock can end a game, on the site's clock.)
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from time_machine import TimeMachineFixture

from dicehall.server.core.clock import now
from dicehall.server.core.models import SeatTimeout, User
from dicehall.server.domain.services import Services
from dicehall.server.domain.vacation import DAY, FLOATING_HOUR, SIGN_UP_ALLOWANCE
from tests.server.conftest import Headers, MakeUser
from tests.waiting import wait_until

API = "/api/v1"
#: Every turn gets a few seconds: enough for a test's own moves on a loaded machine (and the
#: tests here stop the site's clock while they move).
TINY = {"initial": 3, "increment": 3, "cap": 3}
#: Seconds the site's clock is moved on to run a TINY turn out.
PAST_TINY = 3.2
#: The shortest pace vacation saves at (a day per move), and how far to move on past it.
ONE_DAY = {"initial": DAY, "increment": DAY, "cap": DAY}
PAST_ONE_DAY = DAY + 0.2


@pytest.fixture
def site_clock(time_machine: TimeMachineFixture) -> TimeMachineFixture:
    """The site's clock, stopped at this moment: it moves only when the test moves it on
    (``site_clock.shift(seconds)``)."""
    time_machine.move_to(now(), tick=False)
    return time_machine


def create(client: TestClient, headers: Headers, body: dict[str, Any]) -> Any:
    answer = client.post(f"{API}/games", json=body, headers=headers)
    assert answer.status_code == 201, answer.text
    return answer.json()


def fetch(client: TestClient, game_id: int, headers: Headers) -> Any:
    answer = client.get(f"{API}/games/{game_id}", headers=headers)
    assert answer.status_code == 200, answer.text
    return answer.json()


def play(client: TestClient, headers: Headers, game: Any, rng: random.Random) -> Any:
    """One legal move chosen at random by the seat whose headers these are."""
    answer = client.post(
        f"{API}/games/{game['id']}/actions",
        json={"action": rng.choice(game["legal"]), "expected_version": game["version"]},
        headers=headers,
    )
    assert answer.status_code == 200, answer.text
    return answer.json()


def timeouts(services: Services, game_id: int) -> int:
    with services.sessions() as db:
        return int(
            db.scalar(
                select(func.count()).select_from(SeatTimeout).where(SeatTimeout.game_id == game_id)
            )
            or 0
        )


def allowance(services: Services, user_id: str) -> float:
    with services.sessions() as db:
        user = db.scalar(select(User).where(User.user_id == user_id))
        assert user is not None
        return float(user.vacation_seconds)


def two_people(
    client: TestClient, make_user: MakeUser, *, vacation: bool, pace: object = None
) -> tuple[Any, dict[int, Headers]]:
    alice, bob = make_user("alice"), make_user("bob")
    game = create(
        client,
        alice,
        {
            # Boatzee: the first seat always acts first (a Ten Thousand roll may bust and
            # pass the turn before anyone moves).
            "game": "boatzee",
            "seats": ["me", "bob"],
            "pace": TINY if pace is None else pace,
            "vacation": vacation,
        },
    )
    accepted = client.post(f"{API}/games/{game['id']}/accept", headers=bob)
    assert accepted.status_code == 200, accepted.text
    return accepted.json(), {0: alice, 1: bob}


def both_move(client: TestClient, game: Any, players: dict[int, Headers]) -> Any:
    """Play until each seat has made a move and the game waits on a person."""
    rng = random.Random(3)
    moved: set[int] = set()
    for _ in range(200):
        seat = game["to_act"]
        if moved == {0, 1}:
            return game
        game = play(client, players[seat], fetch(client, game["id"], players[seat]), rng)
        moved.add(seat)
    raise AssertionError("the seats never both moved")


def test_a_game_shows_its_pace_and_clock(client: TestClient, make_user: MakeUser) -> None:
    game, players = two_people(client, make_user, vacation=False, pace="days-3")
    assert game["pace"] == {
        "name": "days-3",
        "initial": 3 * 86400,
        "increment": 3 * 86400,
        "cap": 3 * 86400,
    }
    clocks = game["clock"]["seats"]
    running = [c for c in clocks if c["running"]]
    assert len(running) == 1 and running[0]["seat"] == game["to_act"]
    assert running[0]["deadline"] is not None and 0 < running[0]["remaining"] <= 3 * 86400
    assert all(c["deadline"] is None for c in clocks if not c["running"])
    assert [s["status"] for s in game["seats"]] == ["playing", "playing"]
    listed = client.get(f"{API}/games", headers=players[0]).json()
    assert listed[0]["pace"] == "days-3" and listed[0]["deadline"] == running[0]["deadline"]


def test_the_default_pace_is_daily_between_people_and_none_against_bots(
    client: TestClient, make_user: MakeUser
) -> None:
    me = make_user("pacer")
    make_user("friend")
    solo = create(client, me, {"game": "boatzee", "seats": ["me", "bot:greedy"]})
    assert solo["pace"] is None and solo["clock"] is None
    social = create(client, me, {"game": "boatzee", "seats": ["me", "friend"]})
    assert social["pace"]["name"] == "daily"


@pytest.mark.parametrize(
    ("pace", "fragment"),
    [
        ("sometimes", "unknown pace"),
        ("days-15", "unknown pace"),
        ({"initial": 0, "increment": 1, "cap": 5}, "initial and cap"),
        ({"initial": 5, "increment": 1}, "exactly initial, increment and cap"),
        ({"initial": 9, "increment": 1, "cap": 5}, "may not exceed the cap"),
    ],
)
def test_a_bad_pace_is_refused_and_creates_nothing(
    client: TestClient, make_user: MakeUser, pace: object, fragment: str
) -> None:
    me = make_user("picky")
    make_user("other")
    answer = client.post(
        f"{API}/games", json={"game": "boss", "seats": ["me", "other"], "pace": pace}, headers=me
    )
    assert answer.status_code == 422, answer.text
    assert answer.json()["code"] == "invalid_pace" and fragment in answer.json()["error"]
    assert client.get(f"{API}/games", headers=me).json() == []


def test_a_two_seat_game_is_lost_on_time(
    client: TestClient, make_user: MakeUser, services: Services, site_clock: TimeMachineFixture
) -> None:
    game, players = two_people(client, make_user, vacation=False)
    game = both_move(client, game, players)
    late = game["to_act"]
    site_clock.shift(PAST_TINY)
    # Reading the game applies the timeout: nobody waits for the sweeper.
    ended = fetch(client, game["id"], players[1 - late])
    assert ended["status"] == "finished"
    assert ended["result"]["winners"] == [1 - late]
    assert ended["result"]["forfeit"] == {"seat": late, "reason": "timed_out"}
    assert ended["seats"][late]["status"] == "timed_out"
    assert ended["ranking"] == [1 - late, late]
    assert ended["clock"]["seats"][late]["running"] is False
    assert timeouts(services, game["id"]) == 1
    # The late seat's move now is refused and changes nothing.
    refused = client.post(
        f"{API}/games/{game['id']}/actions",
        json={"action": {"type": "bank"}, "expected_version": ended["version"]},
        headers=players[late],
    )
    assert refused.status_code == 409
    assert fetch(client, game["id"], players[late])["version"] == ended["version"]


def test_the_sweeper_ends_a_game_nobody_reads(
    client: TestClient, make_user: MakeUser, services: Services, site_clock: TimeMachineFixture
) -> None:
    game, players = two_people(client, make_user, vacation=False)
    game = both_move(client, game, players)

    def status() -> str | None:
        with services.read_conn() as conn:
            from dicehall.server.domain.games.records import fetch_game

            found = fetch_game(conn, game["id"]).status
            return found if found != "active" else None

    assert status() is None
    # The deadline is at most 3 s away: past it, the sweeper (every second) ends the game.
    site_clock.shift(PAST_TINY)
    assert wait_until(status, timeout=1 + 5, what="the sweeper to end the game") == "finished"


def test_an_unplayed_two_seat_game_is_aborted(
    client: TestClient, make_user: MakeUser, services: Services, site_clock: TimeMachineFixture
) -> None:
    game, players = two_people(client, make_user, vacation=False)
    site_clock.shift(PAST_TINY)
    ended = fetch(client, game["id"], players[0])
    assert ended["status"] == "aborted"
    assert ended["result"] is None and ended["ranking"] is None
    assert timeouts(services, game["id"]) == 1


def test_vacation_saves_a_seat_once_and_costs_an_hour(
    client: TestClient, make_user: MakeUser, services: Services, site_clock: TimeMachineFixture
) -> None:
    game, players = two_people(client, make_user, vacation=True, pace=ONE_DAY)
    game = both_move(client, game, players)
    late = game["to_act"]
    name = game["seats"][late]["user"]
    before = allowance(services, name)
    assert before == SIGN_UP_ALLOWANCE
    assert game["clock"]["seats"][late]["saved_by"] is None
    site_clock.shift(PAST_ONE_DAY)
    saved = fetch(client, game["id"], players[late])
    assert saved["status"] == "active"
    left = saved["clock"]["seats"][late]["remaining"]
    assert FLOATING_HOUR - 60 < left <= FLOATING_HOUR
    # (A user made here has no accrual date yet: the allowance has gained nothing.)
    assert allowance(services, name) == before - FLOATING_HOUR
    assert timeouts(services, game["id"]) == 0
    # Reading it again spends nothing more; the opponent sees why the seat still plays.
    seen = fetch(client, game["id"], players[1 - late])
    assert allowance(services, name) == before - FLOATING_HOUR
    assert seen["clock"]["seats"][late]["saved_by"] == "vacation"
    assert seen["clock"]["seats"][late]["deadline"] == saved["clock"]["seats"][late]["deadline"]
    assert seen["clock"]["seats"][1 - late]["saved_by"] is None


def test_a_game_that_forbids_vacation_is_lost_on_time_even_with_allowance(
    client: TestClient, make_user: MakeUser, services: Services, site_clock: TimeMachineFixture
) -> None:
    game, players = two_people(client, make_user, vacation=False)
    game = both_move(client, game, players)
    late = game["to_act"]
    site_clock.shift(PAST_TINY)
    assert fetch(client, game["id"], players[late])["status"] == "finished"
    assert allowance(services, game["seats"][late]["user"]) == SIGN_UP_ALLOWANCE


def test_a_three_seat_game_plays_on_under_autopilot_and_ranks_the_absent_seat_last(
    client: TestClient, make_user: MakeUser, services: Services, site_clock: TimeMachineFixture
) -> None:
    carol, alice, bob = make_user("carol"), make_user("alice"), make_user("bob")
    game = create(
        client,
        carol,
        {
            "game": "bullseye",
            "seats": ["me", "alice", "bob"],
            "options": {"rounds": 1},
            "pace": {"initial": 3, "increment": 60, "cap": 60},
            "vacation": False,
        },
    )
    for headers in (alice, bob):
        assert client.post(f"{API}/games/{game['id']}/accept", headers=headers).status_code == 200
    players = {1: alice, 2: bob}
    rng = random.Random(8)
    game_id = game["id"]
    game = fetch(client, game_id, alice)
    for _ in range(600):
        if game["status"] != "active":
            break
        seat = game["to_act"]
        if seat in players:
            game = play(client, players[seat], fetch(client, game["id"], players[seat]), rng)
        else:  # carol's turn: she is away; her clock runs out and the autopilot takes over
            if seat == 0 and game["seats"][0]["status"] == "playing":
                site_clock.shift(PAST_TINY)  # her 3 s; nobody else's clock runs on her turn
            game = wait_until(
                lambda: (g := fetch(client, game_id, alice))["to_act"] != 0 and g,
                timeout=10,
                what="the autopilot to move",
            )
            assert game["seats"][0]["status"] == "autopilot"
    else:
        raise AssertionError("the game did not end")
    assert game["status"] == "finished"
    assert game["seats"][0]["status"] == "autopilot"
    assert game["ranking"][-1] == 0 and sorted(game["ranking"]) == [0, 1, 2]
    assert timeouts(services, game["id"]) == 1


def test_resign_in_two_seats_gives_the_other_the_win_and_is_idempotent(
    client: TestClient, make_user: MakeUser
) -> None:
    game, players = two_people(client, make_user, vacation=False, pace="daily")
    stale = client.post(
        f"{API}/games/{game['id']}/resign",
        json={"expected_version": game["version"] - 1},
        headers=players[0],
    )
    assert stale.status_code == 409 and stale.json()["code"] == "stale"
    assert fetch(client, game["id"], players[0])["status"] == "active"
    resigned = client.post(
        f"{API}/games/{game['id']}/resign",
        json={"expected_version": game["version"]},
        headers=players[0],
    )
    assert resigned.status_code == 200, resigned.text
    body = resigned.json()
    assert body["status"] == "finished" and body["result"]["winners"] == [1]
    assert body["seats"][0]["status"] == "resigned" and body["ranking"] == [1, 0]
    again = client.post(
        f"{API}/games/{game['id']}/resign",
        json={"expected_version": game["version"]},
        headers=players[0],
    )
    assert again.status_code == 200 and again.json()["version"] == body["version"]


def test_resign_in_three_seats_hands_the_seat_to_the_autopilot(
    client: TestClient, make_user: MakeUser
) -> None:
    me = make_user("quitter")
    game = create(
        client,
        me,
        {
            "game": "bullseye",
            "seats": ["me", "bot:heuristic", "bot:heuristic"],
            "options": {"rounds": 1},
        },
    )
    resigned = client.post(
        f"{API}/games/{game['id']}/resign",
        json={"expected_version": game["version"]},
        headers=me,
    )
    assert resigned.status_code == 200, resigned.text
    ended = wait_until(
        lambda: (g := fetch(client, game["id"], me))["status"] == "finished" and g,
        timeout=12,
        what="the game to finish",
    )
    assert ended["seats"][0]["status"] == "resigned"
    assert ended["ranking"][-1] == 0


def test_abort_only_while_someone_has_not_moved(
    client: TestClient, make_user: MakeUser, services: Services
) -> None:
    game, players = two_people(client, make_user, vacation=False, pace="daily")
    played = both_move(client, game, players)
    refused = client.post(
        f"{API}/games/{game['id']}/abort",
        json={"expected_version": played["version"]},
        headers=players[0],
    )
    assert refused.status_code == 409 and refused.json()["code"] == "everyone_moved"
    fresh, others = two_people_again(client, make_user)
    aborted = client.post(
        f"{API}/games/{fresh['id']}/abort",
        json={"expected_version": fresh["version"]},
        headers=others[1],
    )
    assert aborted.status_code == 200, aborted.text
    assert aborted.json()["status"] == "aborted" and aborted.json()["result"] is None
    again = client.post(
        f"{API}/games/{fresh['id']}/abort", json={"expected_version": 0}, headers=others[0]
    )
    assert again.status_code == 200 and again.json()["version"] == aborted.json()["version"]
    stranger = make_user("stranger")
    assert (
        client.post(
            f"{API}/games/{fresh['id']}/abort", json={"expected_version": 0}, headers=stranger
        ).status_code
        == 403
    )


def two_people_again(client: TestClient, make_user: MakeUser) -> tuple[Any, dict[int, Headers]]:
    dora, eve = make_user("dora"), make_user("eve")
    game = create(client, dora, {"game": "boss", "seats": ["me", "eve"], "pace": "daily"})
    accepted = client.post(f"{API}/games/{game['id']}/accept", headers=eve)
    assert accepted.status_code == 200
    return accepted.json(), {0: dora, 1: eve}


@pytest.mark.usefixtures("old_scheme")  # the pool serves games made before decks
@pytest.mark.parametrize("ending", ["abort", "timeout"])
def test_a_batch_an_ended_game_drew_from_is_revealed_once_spent(
    client: TestClient,
    make_user: MakeUser,
    services: Services,
    ending: str,
    site_clock: TimeMachineFixture,
) -> None:
    """An old (scheme-1) batch an aborted game drew from is revealed once spent."""
    from tests.server.legacy_batches import make_legacy
    from tests.server.test_games_api import create as create_pig
    from tests.server.test_games_api import play_to_end

    make_legacy(services)
    alice, bob = make_user("alice"), make_user("bob")
    # Pig's first roll is made at once: the game draws from the first batch.
    cut = create(
        client,
        alice,
        {
            "game": "pig",
            "seats": ["me", "bob"],
            "options": {"target": 1000},
            "pace": TINY,
            "vacation": False,
        },
    )
    cut = client.post(f"{API}/games/{cut['id']}/accept", headers=bob).json()
    assert cut["status"] == "active"
    if ending == "abort":
        answer = client.post(
            f"{API}/games/{cut['id']}/abort",
            json={"expected_version": cut["version"]},
            headers=bob,
        )
        assert answer.status_code == 200, answer.text
    else:
        site_clock.shift(PAST_TINY)
    assert fetch(client, cut["id"], alice)["status"] == "aborted"
    first: dict[str, Any] = {}
    for _ in range(40):  # until the first batch of 40 sets is spent
        play_to_end(client, {0: alice}, create_pig(client, alice, ["me", "bot:random"], target=30))
        first = client.get(f"{API}/fairness").json()["batches"][0]
        if first["revealed"]:
            break
    assert first["revealed"], "the batch the ended game drew from should be revealed"
    batches = client.get(f"{API}/fairness").json()["batches"]
    assert first["scheme"] == 1 and any(b["scheme"] == 2 for b in batches)
    assert not any(b["revealed"] for b in batches if b["scheme"] == 2), "new: never whole"


def test_games_waiting_on_me_come_least_time_left_first(
    client: TestClient, make_user: MakeUser
) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    made = []
    for pace in ("days-1", "days-5", "days-3"):
        game = create(
            client,
            alice,
            {"game": "boatzee", "seats": ["me", "bob"], "pace": pace},
        )
        accepted = client.post(f"{API}/games/{game['id']}/accept", headers=bob).json()
        assert accepted["to_act"] == 0
        made.append(game["id"])
    listed = client.get(f"{API}/games", headers=alice).json()
    mine = [g["id"] for g in listed if g["your_turn"]]
    assert mine == [made[0], made[2], made[1]]
    deadlines = [g["deadline"] for g in listed if g["your_turn"]]
    assert deadlines == sorted(deadlines)
