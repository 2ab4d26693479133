"""The Game contract every game implements: pure functions over immutable states."""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar

from dicehall.engine.chance import ChanceRequest, Outcome, check_outcome
from dicehall.engine.errors import IllegalMove, InvalidOptions, InvalidOutcome
from dicehall.engine.options import parse_options

S = TypeVar("S")  # state
A = TypeVar("A")  # action
Opt = TypeVar("Opt")  # options
V = TypeVar("V")  # view


@dataclass(frozen=True, slots=True)
class Result:
    """The end of a game.

    ``scores`` is the game's own measure per seat (points, horses, chips); ``turns`` the game's
    own count of turns, hands or rounds played.
    """

    winners: tuple[int, ...]
    scores: tuple[int, ...]
    turns: int


@dataclass(frozen=True, slots=True)
class Standing:
    """Where a game stands, for lists of games: each seat's score so far (the measure of
    :class:`Result`: points, horses, chips) and which turn, hand or round is being played
    (from 1; the game's ``turn_noun`` names it)."""

    scores: tuple[int, ...]
    number: int


@dataclass(frozen=True, slots=True)
class ToAct:
    """A seat must choose an action."""

    seat: int


@dataclass(frozen=True, slots=True)
class Chance:
    """The driver must resolve a chance request."""

    request: ChanceRequest


@dataclass(frozen=True, slots=True)
class Finished:
    """The game is over."""

    result: Result


Turn = ToAct | Chance | Finished


def same_action(legal: object, sent: object) -> bool:
    """Whether ``sent`` is the action ``legal``: equal, and of the same types throughout, so
    ``1.0`` and ``True`` never pass for ``1`` (they would corrupt a saved state). Fields a
    dataclass leaves out of its comparison (derived figures) are not looked at."""
    if legal is sent:  # a bot's pick from ``legal`` itself: nothing to compare
        return True
    kind = type(legal)
    if kind is not type(sent):
        return False
    names = _compared_fields(kind)
    if names is not None:
        return all(same_action(getattr(legal, n), getattr(sent, n)) for n in names)
    if isinstance(legal, tuple | list):
        assert isinstance(sent, tuple | list)
        return len(legal) == len(sent) and all(
            same_action(a, b) for a, b in zip(legal, sent, strict=True)
        )
    return legal == sent


_COMPARED: dict[type, tuple[str, ...] | None] = {}


def _compared_fields(kind: type) -> tuple[str, ...] | None:
    """The names of the fields a dataclass compares, or None for a type that is not one."""
    if kind not in _COMPARED:
        _COMPARED[kind] = (
            tuple(f.name for f in dataclasses.fields(kind) if f.compare)
            if dataclasses.is_dataclass(kind)
            else None
        )
    return _COMPARED[kind]


class Game(ABC, Generic[S, A, Opt, V]):
    """A dice game as pure functions over immutable states.

    Subclasses set the class attributes and implement the abstract methods. :meth:`act` checks
    whose turn it is and that the action is legal before calling :meth:`apply`, so ``apply``
    may assume a legal action.
    """

    name: ClassVar[str]
    title: ClassVar[str]
    min_seats: ClassVar[int]
    max_seats: ClassVar[int]
    #: How many seats a game has when nobody says (the terminal's and the site's default).
    default_seats: ClassVar[int] = 2
    options_type: ClassVar[type[Any]]
    state_type: ClassVar[type[Any]]
    view_type: ClassVar[type[Any]]
    #: The type (usually a union of dataclasses) that actions decode to.
    action_type: ClassVar[Any]
    #: True when some seat's view hides dice another seat can see.
    hidden_information: ClassVar[bool] = False
    #: What the game's unit of play is called ("turn", "hand", "round").
    turn_noun: ClassVar[str] = "turn"

    # -- options -----------------------------------------------------------------------------

    def options(self, raw: Mapping[str, object] | None = None) -> Opt:
        """Options from ``key -> value`` pairs (text or typed); unknown keys are errors."""
        result: Opt = parse_options(self.options_type, raw or {})
        return result

    def check_seats(self, seats: int) -> None:
        """Raise :class:`InvalidOptions` unless ``seats`` is a seat count this game allows."""
        if isinstance(seats, bool) or not isinstance(seats, int):
            raise InvalidOptions("the number of seats must be a whole number")
        if not self.min_seats <= seats <= self.max_seats:
            raise InvalidOptions(f"{self.title} takes {self.seats_words()}, not {seats}")

    def seats_words(self) -> str:
        """The seat counts it takes, in words: "2 seats", "2 to 6 seats"."""
        if self.min_seats == self.max_seats:
            return f"{self.min_seats} seat{'s' if self.min_seats != 1 else ''}"
        return f"{self.min_seats} to {self.max_seats} seats"

    # -- the contract ------------------------------------------------------------------------

    @abstractmethod
    def start(self, seats: int, options: Opt) -> S:
        """The state before anything has happened."""

    @abstractmethod
    def turn(self, state: S) -> Turn:
        """Who or what must move next."""

    @abstractmethod
    def legal(self, state: S, seat: int) -> Sequence[A]:
        """Every action ``seat`` may take now (empty when it is not that seat's turn)."""

    @abstractmethod
    def apply(self, state: S, seat: int, action: A) -> S:
        """Apply an action already known to be legal."""

    @abstractmethod
    def apply_outcome(self, state: S, request: ChanceRequest, outcome: Outcome) -> S:
        """Apply an outcome already checked against the pending ``request``."""

    @abstractmethod
    def view(self, state: S, seat: int | None) -> V:
        """What ``seat`` (or a spectator, for ``None``) may know; hidden dice are absent."""

    # -- shared behaviour --------------------------------------------------------------------

    def act(self, state: S, seat: int, action: A) -> S:
        """Apply ``seat``'s action, or raise :class:`IllegalMove` and change nothing."""
        return self.apply(state, seat, self.legal_action(state, seat, action))

    def legal_action(self, state: S, seat: int, action: A) -> A:
        """The legal action equal to ``action``, as the rules state it (with the figures the
        rules derive, whatever the caller sent for them), or :class:`IllegalMove`."""
        turn = self.turn(state)
        if isinstance(turn, Finished):
            raise IllegalMove("the game is over")
        if isinstance(turn, Chance):
            raise IllegalMove("the dice must be rolled before anyone can act")
        if seat != turn.seat:
            raise IllegalMove(f"it is seat {turn.seat + 1}'s turn, not seat {seat + 1}'s")
        for legal in self.legal(state, seat):
            if same_action(legal, action):
                return legal
        try:
            reason = self.why_illegal(state, seat, action)
        except (TypeError, ValueError, AttributeError):
            # A malformed action (a float where a die's position belongs...) may trip the
            # explanation itself; it is refused all the same.
            reason = "that move is not one of the moves allowed now"
        raise IllegalMove(reason)

    def resolve(self, state: S, outcome: Outcome) -> S:
        """Apply the outcome of the pending chance request, or raise InvalidOutcome."""
        turn = self.turn(state)
        if not isinstance(turn, Chance):
            raise InvalidOutcome("no dice are pending")
        check_outcome(turn.request, outcome)
        return self.apply_outcome(state, turn.request, outcome)

    def variant_title(self, options: Opt) -> str:
        """The name of the game as these options make it (e.g. "Triple Boatzee")."""
        return self.title

    def standing(self, state: S) -> Standing | None:
        """Each seat's score so far and the turn being played; None where a game does not
        say (a game's scores here are public: every seat may see them)."""
        return None

    def why_illegal(self, state: S, seat: int, action: A) -> str:
        """A sentence explaining why ``action`` is not legal now; games refine it."""
        return f"{action!r} is not a legal move now"
