"""The leagues of ``ratings_calibrate.py``: for each rating kind, bot players of known
strength play rounds of games at random tables, and each game's places are kept.

A league is a population of players in strength tiers (several players per tier, a tier's
bots taken in turn), playing rounds: each round every player sits at one table, tables drawn
at random of the kind's sizes (so 3+ seat kinds get mixed tables). Games never depend on
ratings, so one league serves every choice of constants. Places come from each game's result
as the site makes them (``place_groups`` in ``domain/ratings/store.py``: winners first, then
by score; equal ones share a place).
"""

from __future__ import annotations

import multiprocessing
import random
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any, TypeVar

from dicehall import games
from dicehall.engine.dice import Seeded, resolve_request
from dicehall.engine.game import Chance, Finished, Result, ToAct
from dicehall.server.domain.ratings import model

T = TypeVar("T")
R = TypeVar("R")


@dataclass(frozen=True)
class KindSetup:
    """How one rating kind's league is played."""

    game: str
    options: dict[str, int]
    #: Bots by strength, weakest tier first; the bots of one tier count as equally strong.
    tiers: tuple[tuple[str, ...], ...]
    #: Table sizes drawn for each table (repeats weigh a size more).
    table_sizes: tuple[int, ...]
    note: str = ""


#: A 200-game win share has a standard error of 3.5 points: bots closer than about 5 points
#: of an even duel are one tier (no rating can tell them apart in 200 games). The duel
#: figures below are 2000 games (20000 for Boss and Bull's Eye), seats alternating.
SETUPS: dict[str, KindSetup] = {
    "tenthousand": KindSetup(
        "tenthousand",
        {},
        (("random",), ("heuristic",), ("max_expected", "optimal")),
        (2, 2, 3, 4),
        "heuristic wins 44.0% against max_expected; max_expected 46.6% against optimal, "
        "one tier (threshold is another name for max_expected)",
    ),
    "boatzee": KindSetup(
        "boatzee",
        {"columns": 1},
        (("random",), ("greedy",), ("heuristic",), ("optimal",)),
        (2, 2, 3, 4),
        "greedy wins 33.7% against heuristic (1000 games), heuristic 41.5% against optimal; "
        "strong is the same bot as optimal",
    ),
    "boatzee-double": KindSetup(
        "boatzee",
        {"columns": 2},
        (("random",), ("greedy",), ("heuristic",), ("optimal",)),
        (2, 2, 3, 4),
        "greedy wins 23.5% against heuristic (1000 games), heuristic 44.9% against optimal; "
        "strong is the same bot as optimal",
    ),
    "boatzee-triple": KindSetup(
        "boatzee",
        {"columns": 3},
        (("random",), ("greedy",), ("heuristic", "optimal")),
        (2, 2, 3, 4),
        "greedy wins 22.0% against heuristic (1000 games); heuristic 46.3% against optimal, "
        "one tier; strong is the same bot as optimal",
    ),
    "boss": KindSetup(
        "boss",
        {},
        (("random",), ("heuristic", "odds", "equilibrium")),
        (2,),
        "random wins 23.8% against heuristic (3000 games); heuristic 49.0% against odds and "
        "48.8% against equilibrium, odds 49.7% against equilibrium: one tier",
    ),
    "holdem": KindSetup(
        "holdem",
        {},
        (("random",), ("equity",)),
        (2, 2, 3),
        "the game's only bots; 4 to 6 seats left out for time (equity-only tables are slow)",
    ),
    "bullseye": KindSetup(
        "bullseye",
        {},
        (("random",), ("heuristic", "optimal")),
        (3, 3, 4, 5),
        "3 seats is the default; at 3 seats heuristic alone takes 31.8% of the wins against "
        "two optimal, optimal alone 34.8% against two heuristic (even: 33.3%): one tier",
    ),
}


@dataclass(frozen=True)
class Played:
    """One league game: its round, the players at its seats and their places."""

    round: int
    players: tuple[int, ...]
    places: tuple[int, ...]


@dataclass
class League:
    """A kind's simulated league: each player's tier and bot, and every game in order."""

    kind: str
    tiers: list[int]
    bots: list[str]
    rounds: int
    played: list[Played] = field(default_factory=list)


# -- simulation --------------------------------------------------------------------------


def table_sizes(rng: random.Random, players: int, sizes: Sequence[int]) -> list[int]:
    """Random table sizes from ``sizes`` that seat exactly ``players``."""
    smallest, left, drawn = min(sizes), players, []
    while left:
        fits = [s for s in sizes if s == left or smallest <= left - s]
        if not fits:
            raise ValueError(f"{players} players do not fit tables of {sorted(set(sizes))}")
        drawn.append(rng.choice(fits))
        left -= drawn[-1]
    return drawn


def population(setup: KindSetup, copies: int) -> tuple[list[int], list[str]]:
    """Each player's tier and bot: ``copies`` players per tier, its bots taken in turn."""
    tiers, bots = [], []
    for tier, names in enumerate(setup.tiers):
        for copy in range(copies):
            tiers.append(tier)
            bots.append(names[copy % len(names)])
    return tiers, bots


def schedule(
    kind: str, copies: int, rounds: int, seed: int
) -> tuple[League, list[tuple[str, tuple[str, ...], int]]]:
    """An empty league and its games to play: (kind, bots by seat, game seed) each."""
    setup = SETUPS[kind]
    tiers, bots = population(setup, copies)
    league = League(kind, tiers, bots, rounds)
    rng = random.Random(f"{seed}:{kind}")
    tasks, seats = [], []
    for round_ in range(rounds):
        order = list(range(len(bots)))
        rng.shuffle(order)
        start = 0
        for size in table_sizes(rng, len(order), setup.table_sizes):
            table = tuple(order[start : start + size])
            start += size
            seats.append((round_, table))
            tasks.append((kind, tuple(bots[p] for p in table), rng.getrandbits(64)))
    league.played = [Played(r, table, ()) for r, table in seats]
    return league, tasks


@cache
def _game(kind: str) -> tuple[games.GameEntry, Any]:
    setup = SETUPS[kind]
    entry = games.get(setup.game)
    return entry, entry.game.options(dict(setup.options))


def play_game(kind: str, bots: Sequence[str], seed: int) -> Result:
    """One game of ``kind`` between ``bots``, its dice and bots seeded from ``seed``.

    The same game as the engine's ``play_out`` with these seeds, without checking each bot's
    move against the legal moves a second time (the bot picked it from them).
    """
    entry, options = _game(kind)
    game = entry.game
    rng = random.Random(seed)
    players = [entry.bot(name, random.Random(rng.getrandbits(64))) for name in bots]
    source = Seeded(rng.getrandbits(64))
    state = game.start(len(bots), options)
    for _ in range(10_000_000):
        turn = game.turn(state)
        if isinstance(turn, Finished):
            return turn.result
        if isinstance(turn, Chance):
            state = game.apply_outcome(state, turn.request, resolve_request(source, turn.request))
            continue
        assert isinstance(turn, ToAct)
        legal = game.legal(state, turn.seat)
        action = players[turn.seat].choose(game.view(state, turn.seat), legal)
        if not any(action is move for move in legal):
            action = game.legal_action(state, turn.seat, action)
        state = game.apply(state, turn.seat, action)
    raise RuntimeError(f"{kind} did not end")  # pragma: no cover


def places(result: Result) -> tuple[int, ...]:
    """Each seat's place as the site rates a game nobody left: winners first, then by score,
    equal ones sharing a place (``store.place_groups`` and ``model.places_of``)."""
    groups: dict[tuple[bool, float], list[int]] = {}
    for seat, score in enumerate(result.scores):
        groups.setdefault((seat not in result.winners, -float(score)), []).append(seat)
    order = [groups[key] for key in sorted(groups)]
    return tuple(model.places_of(order, len(result.scores)))


def _play_chunk(chunk: list[tuple[str, tuple[str, ...], int]]) -> list[tuple[int, ...]]:
    return [places(play_game(kind, bots, seed)) for kind, bots, seed in chunk]


def simulate(
    kinds: Sequence[str], copies: int, rounds: int, seed: int, workers: int
) -> dict[str, League]:
    """Every kind's league, its games played on ``workers`` processes (1: in this one)."""
    leagues, tasks = {}, []
    for kind in kinds:
        leagues[kind], kind_tasks = schedule(kind, copies, rounds, seed)
        tasks += kind_tasks
    chunks = [tasks[i : i + 25] for i in range(0, len(tasks), 25)]
    results: list[tuple[int, ...]] = []
    for done, chunk in enumerate(imap(_play_chunk, chunks, workers), 1):
        results += chunk
        if done % 40 == 0 or done == len(chunks):
            say(f"simulated {len(results)} of {len(tasks)} games")
    position = iter(results)
    for league in leagues.values():
        league.played = [Played(p.round, p.players, next(position)) for p in league.played]
    return leagues


def imap(function: Callable[[T], R], items: Sequence[T], workers: int) -> Iterator[R]:
    """``map`` over ``workers`` processes (1: in this one), in order."""
    if workers <= 1:
        yield from map(function, items)
        return
    with multiprocessing.Pool(workers) as pool:
        yield from pool.imap(function, items)


def say(text: str) -> None:
    """Progress, on stderr."""
    print(text, file=sys.stderr, flush=True)
