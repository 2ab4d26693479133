"""Replaying a proven game: each chance event's outcome from its committed sources, every
action through the rules, and the end the rules reach against the recorded result.

Outcomes the table never saw (a folded Hold'em pocket) are not in the proof; the replay
stands in for them: any faces for a roll, and for a draw colours from the bag left that keep
every later shown draw of the same shuffle possible. Such dice never decide a result, so the
replay still reaches it, or the proof fails.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from dicehall import games
from dicehall.engine import codec
from dicehall.engine.chance import Draw, Roll
from dicehall.engine.errors import DicehallError
from dicehall.engine.events import Acted, decode_event
from dicehall.engine.game import Chance, Finished, Game
from dicehall.fairness.proof_check import SHUFFLE_POSITIONS, ShownSet
from dicehall.fairness.proof_parts import MalformedProof, ProofFailure, field


def _hidden(event: Mapping[str, Any]) -> bool:
    outcome = event.get("outcome")
    return isinstance(outcome, Mapping) and outcome.get("hidden") is True


def _roll(
    request: Roll, source: Mapping[str, Any], sets: Mapping[int, ShownSet], index: int
) -> tuple[int, ...] | None:
    """A roll's faces from its sets (None: a set is withheld)."""
    numbers = field(source, "dice_sets", list, f"chance for event {index}")
    if not numbers or numbers != list(range(numbers[0], numbers[0] + len(numbers))):
        raise ProofFailure(f"event {index}: its dice sets are not consecutive")
    if len(numbers) != max(1, -(-request.count // 6)):
        raise ProofFailure(f"event {index}: {len(numbers)} dice sets for {request.count} dice")
    faces = ""
    for number in numbers:
        shown = sets.get(number)
        if shown is None:
            raise ProofFailure(f"event {index}: dice set {number} is not in the proof")
        if shown.faces is None:
            return None
        faces += shown.faces
    return tuple(int(c) for c in faces[: request.count])


class _Shuffles:
    """Where each shuffle's draws have reached, so that each hand draws its prefix."""

    def __init__(
        self,
        colours: Mapping[int, list[str | None]],
        events: list[Any] | None = None,
        sources: Mapping[int, Mapping[str, Any]] | None = None,
    ) -> None:
        self.colours = colours
        self.reached: dict[int, int] = {}
        self.events = events or []
        self.sources = sources or {}

    def uncommitted_stand_in(self, request: Draw, index: int) -> tuple[str, ...]:
        """Colours for a hidden draw from before committed bags (an old site's hand): from
        the bag left, sparing those the later shown draws of such hands took (up to the
        next committed draw), so that they stay possible."""
        later: Counter[str] = Counter()
        for after in range(index + 1, len(self.events)):
            source = self.sources.get(after, {})
            if "bag_shuffle" in source:
                break
            event = self.events[after]
            outcome = event.get("outcome") if isinstance(event, Mapping) else None
            if "uncommitted" in source and isinstance(outcome, list):
                later.update(str(c) for c in outcome)
        left = Counter(request.population)
        spare = sorted((left - later).elements())
        rest = sorted((left - Counter(spare)).elements())
        return tuple((spare + rest)[: request.count])

    def draw(
        self, request: Draw, source: Mapping[str, Any], hidden: bool, index: int
    ) -> tuple[str, ...]:
        where = f"chance for event {index}"
        number = field(source, "bag_shuffle", int, where)
        offset = field(source, "offset", int, where)
        colours = self.colours.get(number)
        if colours is None:
            raise ProofFailure(f"event {index}: bag shuffle {number} is not in the proof")
        if offset != self.reached.get(number, 0):
            raise ProofFailure(
                f"event {index}: it does not draw where shuffle {number}'s draws reached"
            )
        if SHUFFLE_POSITIONS - offset != len(request.population):
            raise ProofFailure(f"event {index}: the bag left does not match shuffle {number}")
        end = offset + request.count
        self.reached[number] = end
        if not hidden:
            taken = colours[offset:end]
            if any(c is None for c in taken):
                raise ProofFailure(f"event {index}: shuffle {number} hides a draw the table saw")
            return tuple(c for c in taken if c is not None)
        later = Counter(c for c in colours[end:] if c is not None)
        left = Counter(request.population) - later
        stand_in = sorted(left.elements())[: request.count]
        if len(stand_in) < request.count:
            raise ProofFailure(f"event {index}: the bag cannot hold shuffle {number}'s later draws")
        return tuple(stand_in)


def replay(
    proof: Mapping[str, Any],
    sets: Mapping[int, ShownSet],
    shuffles: Mapping[int, list[str | None]],
) -> list[str]:
    """Replay the proof's game; raise :class:`ProofFailure` at the first thing that does not
    hold. Returns notes on what could not be checked."""
    kind = field(proof, "game", str, "proof")
    try:
        game: Game[Any, Any, Any, Any] = games.get(kind).game
        options = codec.decode(field(proof, "options", dict, "proof"), game.options_type, "$")
    except DicehallError as exc:
        raise MalformedProof(f"game {kind!r}: {exc}") from None
    events = field(proof, "events", list, "proof")
    sources = {
        field(entry, "event", int, "chance"): entry
        for entry in field(proof, "chance", list, "proof")
    }
    state = game.start(field(proof, "seats", int, "proof"), options)
    draws = _Shuffles(shuffles, events, sources)
    notes: list[str] = []
    for index, event in enumerate(events):
        try:
            state = _step(game, state, event, sources.get(index), sets, draws, index, notes)
        except ProofFailure:
            raise
        except (DicehallError, ValueError, KeyError, TypeError) as exc:
            raise ProofFailure(f"event {index}: the rules refuse it ({exc})") from None
        if notes and notes[-1].startswith("stopped"):
            return notes
    if len(sources) != sum(
        1 for e in events if isinstance(e, Mapping) and e.get("type") == "resolved"
    ):
        raise ProofFailure("the chance list does not match the game's chance events")
    _check_result(game, state, field(proof, "result", dict, "proof"))
    return notes


def _step(
    game: Game[Any, Any, Any, Any],
    state: Any,
    event: Any,
    source: Mapping[str, Any] | None,
    sets: Mapping[int, ShownSet],
    draws: _Shuffles,
    index: int,
    notes: list[str],
) -> Any:
    if not isinstance(event, Mapping) or event.get("type") not in ("acted", "resolved"):
        raise MalformedProof(f"events[{index}] is not an event")
    if event["type"] == "acted":
        acted = decode_event(game, dict(event))
        assert isinstance(acted, Acted)
        return game.act(state, acted.seat, acted.action)
    turn = game.turn(state)
    if not isinstance(turn, Chance):
        raise ProofFailure(f"event {index}: dice where the rules wait for a move")
    if source is None:
        raise ProofFailure(f"event {index}: the proof names no source for it")
    hidden = _hidden(event)
    request = turn.request
    if "uncommitted" in source:
        if hidden and isinstance(request, Draw):
            outcome: tuple[Any, ...] = draws.uncommitted_stand_in(request, index)
            notes.append(f"event {index}: a hidden draw from before committed bags, stood in for")
        elif hidden:
            notes.append(f"stopped at event {index}: a hidden roll from before committed bags")
            return state
        else:
            outcome = tuple(event["outcome"])
            notes.append(f"event {index}: drawn before committed bags, taken as recorded")
    elif isinstance(request, Roll) and "faces" in source:  # from a deck's key
        shown = source["faces"]
        if shown is None and not hidden:
            raise ProofFailure(f"event {index}: a roll the table saw, but its key is withheld")
        outcome = (1,) * request.count if shown is None else tuple(shown)
    elif isinstance(request, Roll):
        faces = _roll(request, source, sets, index)
        if faces is None and not hidden:
            raise ProofFailure(f"event {index}: a roll the table saw, but its dice set is withheld")
        outcome = (1,) * request.count if faces is None else faces
    else:
        outcome = draws.draw(request, source, hidden, index)
    if not hidden and list(outcome) != list(event.get("outcome", [])):
        raise ProofFailure(
            f"event {index}: the log says {event.get('outcome')}, "
            f"its committed source {list(outcome)}"
        )
    return game.resolve(state, outcome)


def _check_result(game: Game[Any, Any, Any, Any], state: Any, result: Mapping[str, Any]) -> None:
    turn = game.turn(state)
    scores = field(result, "scores", list, "result")
    if "forfeit" in result:
        standing = game.standing(state)
        if standing is not None and list(standing.scores) != scores:
            raise ProofFailure(
                f"result: the replay stands at {list(standing.scores)}, not {scores}"
            )
        return
    if not isinstance(turn, Finished):
        raise ProofFailure("result: the replay does not reach the end of the game")
    winners = field(result, "winners", list, "result")
    if list(turn.result.winners) != winners or list(turn.result.scores) != scores:
        raise ProofFailure(
            f"result: the replay ends with winners {list(turn.result.winners)} and scores "
            f"{list(turn.result.scores)}, the site recorded {winners} and {scores}"
        )
