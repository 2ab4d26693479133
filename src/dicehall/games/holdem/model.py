"""Hold'em Dice data: options, actions, the state, a seat's view and a finished hand."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from dicehall.engine.errors import InvalidOptions
from dicehall.engine.options import described
from dicehall.games.holdem.pots import UNIT, Pot

Street = Literal["open", "flop", "turn", "river"]
Stage = Literal[
    "pocket_colours", "pocket_faces", "betting", "board_colours", "board_faces", "reroll", "over"
]

#: Most raises in one betting round (the opening bet is not a raise).
MAX_RAISES = 3
#: The ante every seat posts at the start of a hand.
ANTE = 10
#: The largest bet or raise per street.
LIMITS: dict[str, int] = {"open": 10, "flop": 10, "turn": 20, "river": 20}
#: How many community dice each street deals.
STREET_DICE: dict[str, int] = {"flop": 3, "turn": 1, "river": 1}


@dataclass(frozen=True, slots=True)
class HoldemOptions:
    """House options: starting stack, and a cap on flop re-rolls (None: no cap)."""

    stack: int = described(
        500, "Starting stack", "Chips each player starts with: a multiple of 10."
    )
    max_flop_rerolls: int | None = described(
        None, "Flop re-rolls", "A cap on flop re-rolls; empty: no cap."
    )

    def __post_init__(self) -> None:
        if not UNIT <= self.stack <= 1_000_000 or self.stack % UNIT:
            raise InvalidOptions("stack must be a multiple of 10 from 10 to 1,000,000")
        if self.max_flop_rerolls is not None and not 0 <= self.max_flop_rerolls <= 1000:
            raise InvalidOptions("max_flop_rerolls must be none or 0 to 1000")


@dataclass(frozen=True, slots=True)
class Check:
    """Stay in without betting (only when there is nothing to call)."""


@dataclass(frozen=True, slots=True)
class Call:
    """Match the current bet."""


@dataclass(frozen=True, slots=True)
class Fold:
    """Leave the hand."""


@dataclass(frozen=True, slots=True)
class AllIn:
    """Put in every chip left, when that is less than a call."""


@dataclass(frozen=True, slots=True)
class Bet:
    """Open the betting with ``amount`` (10 up to the street's limit)."""

    amount: int


@dataclass(frozen=True, slots=True)
class Raise:
    """Call, then add ``amount`` on top (10 up to the street's limit)."""

    amount: int


HoldemAction = Check | Call | Fold | AllIn | Bet | Raise


@dataclass(frozen=True, slots=True)
class Showing:
    """A seat's dice turned up at showdown."""

    seat: int
    pocket: tuple[str, ...]
    five: tuple[str, ...]
    category: str


@dataclass(frozen=True, slots=True)
class PotResult:
    """Who won one pot and how it was shared (``shares`` line up with ``winners``)."""

    amount: int
    eligible: tuple[int, ...]
    winners: tuple[int, ...]
    shares: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class HandEnd:
    """How a hand ended: the board, the dice shown (none if uncontested), the pots."""

    hand: int
    board: tuple[str, ...]
    showdown: tuple[Showing, ...]
    pots: tuple[PotResult, ...]
    won: tuple[int, ...]
    yahtzee_flush: bool
    eliminated: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class HoldemState:
    """Everything about a game in progress, hidden dice included."""

    options: HoldemOptions
    stacks: tuple[int, ...]
    out: tuple[bool, ...]
    dealer: int
    hand: int
    stage: Stage
    street: Street
    contributions: tuple[int, ...]
    round_bets: tuple[int, ...]
    folded: tuple[bool, ...]
    acted: tuple[bool, ...]
    raises: int
    to_act: int | None
    pockets: tuple[tuple[str, ...], ...]
    board: tuple[str, ...]
    drawn: tuple[str, ...]
    dealing: int | None
    rerolls: int
    last: HandEnd | None
    winners: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class HoldemView:
    """What one seat (or a spectator, ``seat`` None) may know: other pockets are absent.

    ``limit`` is this street's largest bet or raise; ``raises`` the raises made this round,
    at most ``max_raises``.
    """

    seat: int | None
    hand: int
    dealer: int
    stage: Stage
    street: Street
    stacks: tuple[int, ...]
    out: tuple[bool, ...]
    folded: tuple[bool, ...]
    contributions: tuple[int, ...]
    round_bets: tuple[int, ...]
    board: tuple[str, ...]
    pocket: tuple[str, ...]
    to_act: int | None
    to_call: int
    raises: int
    limit: int
    max_raises: int
    pots: tuple[Pot, ...]
    rerolls: int
    max_flop_rerolls: int | None
    last: HandEnd | None
    winners: tuple[int, ...]

    def in_hand(self, seat: int) -> bool:
        """True when ``seat`` was dealt in and has not folded."""
        return not self.out[seat] and not self.folded[seat]

    @property
    def pot_total(self) -> int:
        """Every chip in the pots this hand."""
        return sum(self.contributions)
