"""``dicehall hint GAME ... --json`` prints exactly what the site's hint API answers.

For every game, positions are reached by seeded play on the engine. The hint command is run
with the arguments that describe the position, and its output is compared, as JSON text,
with the API's hint for the same state and seat (``dicehall.server.workers.hintwork``, which
answers ``GET /api/v1/games/{id}/hint``): both are the game's ``seat_hint(view, legal)``.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from dicehall import games
from dicehall.engine import Chance, Finished, Seeded, codec, resolve_request
from dicehall.server.workers.hintwork import compute
from tests.conftest import CliRunner
from tests.games.boatzee.solved import solved, solved_dir

__all__ = ["solved", "solved_dir"]

Position = tuple[Any, int]
"""A state and the seat asking for a hint."""

#: Positions kept from each seeded game, spread over the game.
PER_GAME = 4


def seeded_positions(
    name: str,
    seats: int,
    options: Mapping[str, object],
    seed: int,
    wanted: Callable[[Any, int], bool],
    *,
    chance_seat: Callable[[Any], int | None] | None = None,
) -> list[Position]:
    """Play ``name`` with seeded dice and uniformly random moves; keep the positions
    ``wanted`` accepts (a seat to act, or with ``chance_seat`` a seat waiting on dice)."""
    game = games.get(name).game
    state = game.start(seats, game.options(options))
    source, rng = Seeded(seed), random.Random(seed)
    found: list[Position] = []
    for _ in range(100_000):
        turn = game.turn(state)
        if isinstance(turn, Finished):
            break
        if isinstance(turn, Chance):
            seat = None if chance_seat is None else chance_seat(state)
            if seat is not None and wanted(state, seat):
                found.append((state, seat))
            state = game.resolve(state, resolve_request(source, turn.request))
            continue
        if wanted(state, turn.seat):
            found.append((state, turn.seat))
        state = game.act(state, turn.seat, rng.choice(list(game.legal(state, turn.seat))))
    assert found, f"no position found in {name} with seed {seed}"
    step = max(1, len(found) // PER_GAME)
    return found[::step][:PER_GAME]


def api_hint(name: str, position: Position) -> str:
    """The API's hint for the position, as ``dicehall hint --json`` prints JSON."""
    state, seat = position
    answer = compute(name, codec.dumps(state), seat)  # what GET .../hint answers as "hint"
    return json.dumps(json.loads(answer), indent=2) + "\n"


def same_hint(cli: CliRunner, name: str, position: Position, *args: str) -> dict[str, Any]:
    """Run ``dicehall hint name ARGS --json``; it must print the API's hint, to the byte."""
    result = cli("hint", name, *args, "--json")
    assert result.code == 0, (args, result.err)
    assert result.out == api_hint(name, position), args
    found: dict[str, Any] = json.loads(result.out)
    return found


def faces(dice: Any) -> str:
    return ",".join(str(d) for d in dice)


# -- Ten Thousand -------------------------------------------------------------------------------


def _tenthousand(seed: int, options: dict[str, object]) -> Iterator[tuple[Position, list[str]]]:
    def wanted(state: Any, seat: int) -> bool:
        return bool(state.phase == "set_aside")

    for state, seat in seeded_positions("tenthousand", 2, options, seed, wanted):
        args = ["--roll", faces(state.dice), "--turn", str(state.turn_total)]
        args += ["--banked", str(state.banked[seat]), "--opponent", str(state.banked[1 - seat])]
        for key, value in options.items():
            args += ["-o", f"{key}={value}"]
        yield (state, seat), args


@pytest.mark.parametrize(
    ("seed", "options"),
    [
        (1, {"target": 2000, "entry_threshold": 300}),
        (2, {"target": 3000, "entry_threshold": 0, "four_and_pair_is_three_pairs": "true"}),
        (3, {}),
    ],
)
def test_tenthousand(cli: CliRunner, seed: int, options: dict[str, object]) -> None:
    for position, args in _tenthousand(seed, options):
        hint = same_hint(cli, "tenthousand", position, *args)
        assert hint["choices"], args


# -- Boatzee ------------------------------------------------------------------------------------


def _scored(card: Any) -> str:
    from dicehall.games.boatzee.scoring import BOXES

    return ",".join(
        f"{box}={v}" for box, v in zip(BOXES, card.boxes[0], strict=True) if v is not None
    )


@pytest.mark.parametrize(("seed", "ruleset"), [(1, "boatzee"), (2, "yahtzee"), (3, "yahtzee")])
def test_boatzee(cli: CliRunner, solved: Path, seed: int, ruleset: str) -> None:
    def wanted(state: Any, seat: int) -> bool:
        return True

    options = {"ruleset": ruleset}
    for state, seat in seeded_positions("boatzee", 2, options, seed, wanted):
        view = games.get("boatzee").game.view(state, seat)
        card = state.cards[seat]
        args = ["--dice", faces(state.dice), "--rolls-left", str(view.rerolls_left)]
        args += ["--scored", _scored(card), "--bonuses", str(card.extra_bonuses)]
        args += ["--ruleset", ruleset]
        if ruleset == "boatzee":  # two seats: each choice's chance to win as well
            args += ["--opponent", _scored(state.cards[1 - seat])]
        hint = same_hint(cli, "boatzee", (state, seat), *args)
        assert "solved tables" in hint["note"]
        if ruleset == "boatzee":
            assert all("win_chance" in choice for choice in hint["choices"])


# -- Boss Dice ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("seed", "phase"), [(1, "call"), (2, "keep"), (3, "call"), (4, "keep")])
def test_boss(cli: CliRunner, seed: int, phase: str) -> None:
    def wanted(state: Any, seat: int) -> bool:
        return bool(state.phase == phase)

    for state, seat in seeded_positions("boss", 2, {"horses": 5}, seed, wanted):
        boss = state.boss
        roll, kept = faces(state.first_rolls[1 - boss]), faces(state.boss_kept)
        hand = faces((*state.boss_kept, *state.concealed))
        if state.phase == "call":
            args = ["--call", "--roll", roll, "--boss-kept", kept, "--boss", hand]
            assert same_hint(cli, "boss", (state, seat), *args)["kind"] == "call"
        else:
            args = ["--roll", roll, "--boss-kept", kept]
            assert same_hint(cli, "boss", (state, seat), *args)["kind"] == "keep"
            # The opponent never sees the Boss's hand: stating it is refused, not ignored.
            stated = cli("hint", "boss", *args, "--boss", hand, "--json")
            assert stated.code == 2 and "(--boss) is hidden from him" in stated.err


# -- Hold'em Dice -------------------------------------------------------------------------------


@pytest.mark.parametrize(("seed", "seats"), [(1, 2), (2, 4), (3, 6)])
def test_holdem(cli: CliRunner, seed: int, seats: int) -> None:
    def wanted(state: Any, seat: int) -> bool:
        return len(state.pockets[seat]) == 2

    for state, seat in seeded_positions("holdem", seats, {}, seed, wanted):
        view = games.get("holdem").game.view(state, seat)
        others = sum(
            1 for s in range(seats) if s != seat and not view.folded[s] and not view.out[s]
        )
        args = ["--pocket", faces(view.pocket), "--opponents", str(others)]
        if view.board:
            args += ["--board", faces(view.board)]
        args += ["--to-call", str(view.to_call), "--pot", str(sum(p.amount for p in view.pots))]
        args += ["--hand", str(view.hand)]
        assert same_hint(cli, "holdem", (state, seat), *args)["kind"] == "equity"


# -- Bull's Eye ---------------------------------------------------------------------------------


def _thrower_before_a_throw(state: Any) -> int | None:
    """The seat about to throw (not the lead), while it waits on its first throw."""
    rnd = state.round
    if rnd is None or rnd.thrower == rnd.lead or rnd.dice or rnd.counted[rnd.thrower]:
        return None
    thrower: int = rnd.thrower
    return thrower


@pytest.mark.parametrize(("seed", "seats"), [(1, 3), (2, 4), (3, 5)])
def test_bullseye(cli: CliRunner, seed: int, seats: int) -> None:
    def wanted(state: Any, seat: int) -> bool:
        rnd = state.round
        return rnd is not None and seat != rnd.lead

    positions = seeded_positions(
        "bullseye", seats, {}, seed, wanted, chance_seat=_thrower_before_a_throw
    )
    kinds = set()
    for state, seat in positions:
        view = games.get("bullseye").game.view(state, seat)
        rnd = view.round
        args = ["--target", str(rnd.target), "--total", str(rnd.totals[seat] or 0)]
        args += ["--throws", str(len(rnd.counted[seat]))]
        kinds.add(same_hint(cli, "bullseye", (state, seat), *args)["kind"])
    assert kinds <= {"choice", "wait"}


def test_every_game_is_covered() -> None:
    tested = {name.removeprefix("test_") for name in globals() if name.startswith("test_")}
    assert set(games.NAMES) <= tested
