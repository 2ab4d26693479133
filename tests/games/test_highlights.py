"""Each game's highlights hook (what was worth a look in a finished game), on games played
by random bots with seeded dice and told again another way: Boatzees by the dice scored,
Ten Thousand's biggest turn and Hold'em's biggest pot by the narrator's sentences, Bull's
Eyes by the rounds' 50-point scores."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from dicehall import games
from dicehall.engine import step
from dicehall.engine.bots import RandomBot
from dicehall.engine.dice import Seeded, resolve_request
from dicehall.engine.events import Acted, Event
from dicehall.engine.game import Finished
from dicehall.games.feed import narrator_of
from dicehall.games.highlights import Highlight, HighlightsHook, Played, hook_of, played
from dicehall.games.tenthousand.highlights import BIG_TURN

#: Options that keep each game short.
SHORT: dict[str, dict[str, Any]] = {
    "boatzee": {},
    "tenthousand": {"target": 3000, "entry_threshold": 0},
    "holdem": {"stack": 200},
    "bullseye": {"rounds": 6},
}


def random_game(name: str, seats: int, seed: int) -> Played:
    """A game of ``name`` played to its end by random bots with ``Seeded(seed)`` dice."""
    game = games.get(name).game
    options = game.options(SHORT[name])
    dice, rng = Seeded(seed), random.Random(seed)
    events: list[Event] = []
    step.advance(
        game,
        game.start(seats, options),
        lambda request: resolve_request(dice, request),
        lambda _seat: RandomBot(rng),
        on_event=lambda _before, event, _after: events.append(event),
    )
    return played(game, options, seats, events)


def hook(name: str) -> HighlightsHook:
    found = hook_of(games.get(name))
    assert found is not None
    return found


def told(name: str, game: Played) -> list[str]:
    """Every sentence the game's narrator tells a spectator."""
    narrate = narrator_of(games.get(name))
    view = game.game.view
    names = [f"seat{s}" for s in range(game.seats)]
    return [
        line.text
        for before, event, after in game.steps()
        for line in narrate(view(before, None), event, view(after, None), names)
    ]


def scores(found: list[Highlight]) -> list[tuple[int, int]]:
    return [(h.seat, h.value) for h in found if h.what == "score" and not h.shown]


def final_scores(game: Played) -> list[tuple[int, int]]:
    turn = game.game.turn(game.final)
    assert isinstance(turn, Finished)
    return list(enumerate(turn.result.scores))


@pytest.mark.parametrize("seed", range(3))
def test_boatzees_are_turns_scored_on_five_of_a_kind(seed: int) -> None:
    game = random_game("boatzee", 2, seed)
    found = list(hook("boatzee")(game))
    rolled = [0, 0]
    for before, event, _after in game.steps():
        if isinstance(event, Acted) and type(event.action).__name__ == "Score":
            rolled[event.seat] += len(set(before.dice)) == 1
    boatzees = [(h.seat, h.value) for h in found if h.what == "boatzee" and h.shown]
    assert boatzees == [(seat, n) for seat, n in enumerate(rolled) if n]
    # Every card's total competes for its variant's record, unshown.
    assert scores(found) == final_scores(game)
    assert {h.record for h in found if h.what == "score"} == {"boatzee:Boatzee"}


def test_a_ten_thousand_turn_is_its_biggest_bank() -> None:
    for seed in range(5):
        game = random_game("tenthousand", 2, seed)
        banks = [
            int(hit.group(1).replace(",", ""))
            for text in told("tenthousand", game)
            if (hit := re.search(r" banks ([\d,]+):", text))
        ]
        found = list(hook("tenthousand")(game))
        turn = next(h for h in found if h.what == "turn")
        assert turn.value == max(banks) and turn.record == "tenthousand:turn"
        assert turn.shown == (turn.value >= BIG_TURN)
        assert scores(found) == final_scores(game)


def test_holdems_biggest_pot_from_a_stack_up() -> None:
    seen = set()
    for seed in (0, 2):  # one game's biggest pot holds a starting stack, the other's not
        game = random_game("holdem", 3, seed)
        pots = [
            int(hit.group(1))
            for text in told("holdem", game)
            if (hit := re.search(r"pot of (\d+)", text))
        ]
        found = [h for h in hook("holdem")(game) if h.what == "pot"]
        big = max(pots) >= SHORT["holdem"]["stack"]
        seen.add(big)
        assert [h.value for h in found] == ([max(pots)] if big else [])
    assert seen == {True, False}


def test_bulls_eyes_are_the_rounds_50_point_scores() -> None:
    hits_seen = 0
    for seed in range(10, 16):  # seeds whose games hit the Bull's Eye
        game = random_game("bullseye", 3, seed)
        hits = [0, 0, 0]
        for summary in game.final.history:
            for seat, score in enumerate(summary.scores):
                hits[seat] += score == 50
        found = list(hook("bullseye")(game))
        shown = [(h.seat, h.value) for h in found if h.what == "bullseye"]
        assert shown == [(seat, n) for seat, n in enumerate(hits) if n]
        hits_seen += sum(hits)
        assert scores(found) == final_scores(game)
        assert {h.record for h in found if h.what == "score"} == {"bullseye:3 players, 6 rounds"}
    assert hits_seen, "the seeds should hit the Bull's Eye at least once"


def test_a_game_not_played_to_its_end_competes_for_no_record() -> None:
    whole = random_game("boatzee", 2, 0)
    cut = played(whole.game, whole.options, whole.seats, whole.events[:40])
    assert whole.complete and not cut.complete
    assert scores(list(hook("boatzee")(cut))) == []
