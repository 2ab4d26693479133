"""Bull's Eye data: options, actions, state and view, all frozen dataclasses for the codec."""

from __future__ import annotations

from dataclasses import dataclass

from dicehall.engine.errors import InvalidOptions
from dicehall.engine.options import described

Throws = tuple[tuple[int, ...], ...]
"""One seat's counted throws in a round, each the dice as they finally lay."""


@dataclass(frozen=True, slots=True)
class BullseyeOptions:
    """House rules; ``rounds=None`` means two leads per seat, ``rounds=0`` no round limit."""

    rounds: int | None = described(
        None, "Rounds", "Empty: two leads per player; 0: no round limit (needs a target)."
    )
    target_points: int | None = described(
        None, "Target points", "Points that end the game; empty: none."
    )
    bet_limit: int = described(
        10, "Bet limit", "Most chips one bet may be, 0 to 1000 (0: no betting)."
    )
    bank: int = described(100, "Bank", "Chips each player starts with.")
    allow_two_seats: bool = described(
        False, "Allow two players", "Bull's Eye is best with three or more."
    )
    #: Rules version 1's ruling (games made before version 2): the lead may bet too.
    lead_bets: bool = described(
        False,
        "The lead bets",
        "On: the lead may bet too, though it cannot take the pot (rules version 1).",
    )
    #: Rules version 1 left a pot still carried at the end of the game in the pot.
    last_pot_shared: bool = described(
        True,
        "Last pot to the winners",
        "On: a pot still carried when the game ends goes to its winners; off: it stays "
        "(rules version 1).",
    )

    def __post_init__(self) -> None:
        if self.rounds is not None and not 0 <= self.rounds <= 10_000:
            raise InvalidOptions("rounds must be 0 to 10000 (0: no round limit)")
        if self.target_points is not None and not 1 <= self.target_points <= 1_000_000:
            raise InvalidOptions("target_points must be 1 to 1000000")
        if self.rounds == 0 and self.target_points is None:
            raise InvalidOptions("rounds=0 (no round limit) needs target_points to end the game")
        if not 0 <= self.bet_limit <= 1_000:
            raise InvalidOptions("bet_limit must be 0 to 1000 chips (0: no betting)")
        if not 0 <= self.bank <= 1_000_000:
            raise InvalidOptions("bank must be 0 to 1000000 chips")

    def rounds_for(self, seats: int) -> int | None:
        """The number of rounds a game of ``seats`` lasts, or None when only points end it."""
        if self.rounds is None:
            return 2 * seats
        return self.rounds or None


@dataclass(frozen=True, slots=True)
class Stop:
    """End this seat's throwing (for the lead: after the third throw), betting ``bet`` chips."""

    bet: int = 0


@dataclass(frozen=True, slots=True)
class ThrowOn:
    """Throw again with one die fewer (the lead: three dice again), betting ``bet`` chips."""

    bet: int = 0


BullseyeAction = Stop | ThrowOn


@dataclass(frozen=True, slots=True)
class LeadChoice:
    """Throwing for the first lead: ``contenders`` throw in seat order; ties throw again."""

    contenders: tuple[int, ...]
    throws: tuple[tuple[int, ...], ...]


@dataclass(frozen=True, slots=True)
class Round:
    """A round in play.

    ``dice`` is the throw on the table (empty until rolled); while two of its dice share a
    face those dice are being re-rolled, otherwise it has counted and the thrower chooses.
    """

    number: int
    lead: int
    thrower: int
    dice: tuple[int, ...]
    counted: tuple[Throws, ...]
    bets: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class RoundSummary:
    """A finished round; ``totals`` and ``scores`` are None for the lead.

    ``pot`` is the pot at the round's end, ``won`` the chips each seat took from it and
    ``carried`` what stays for the next round. In the game's last round ``won`` also holds
    the carried pot shared among the game's winners, so ``carried`` is then 0.
    """

    number: int
    lead: int
    target: int
    totals: tuple[int | None, ...]
    scores: tuple[int | None, ...]
    pot: int
    won: tuple[int, ...]
    carried: int


@dataclass(frozen=True, slots=True)
class BullseyeState:
    """The whole game; it is over when neither a lead choice nor a round is in play."""

    options: BullseyeOptions
    points: tuple[int, ...]
    banks: tuple[int, ...]
    pot: int
    lead_choice: LeadChoice | None
    round: Round | None
    history: tuple[RoundSummary, ...]


@dataclass(frozen=True, slots=True)
class Band:
    """A scoring band: a total at most ``distance`` from the Bull's Eye scores ``points``."""

    distance: int
    points: int


@dataclass(frozen=True, slots=True)
class RoundView:
    """A round as everyone sees it (Bull's Eye hides no dice), with the derived figures.

    ``order`` is the throwing order (the lead first); ``rerolling`` the positions of ``dice``
    the matching rule is re-rolling; ``target`` the Bull's Eye so far (final once
    ``target_set``); ``totals`` and ``scores`` are None for the lead, and ``scores`` also for
    seats still to finish. ``lead_adds`` is what each of the lead's counted throws added to
    the Bull's Eye. ``stop_scores`` is what each seat would score by stopping now, once the
    Bull's Eye is set, for a seat that has thrown and has no score yet (else None).
    ``next_dice`` is how many dice the thrower's next throw uses and ``next_counted`` how
    many of them, the highest, count toward the thrower's figure (both None once the
    thrower has taken every throw).
    """

    number: int
    lead: int
    order: tuple[int, ...]
    thrower: int
    dice: tuple[int, ...]
    rerolling: tuple[int, ...]
    counted: tuple[Throws, ...]
    target: int
    target_set: bool
    totals: tuple[int | None, ...]
    scores: tuple[int | None, ...]
    bets: tuple[int, ...]
    lead_adds: tuple[int, ...]
    stop_scores: tuple[int | None, ...]
    next_dice: int | None
    next_counted: int | None


@dataclass(frozen=True, slots=True)
class BullseyeView:
    """What a seat (or a spectator, ``seat=None``) knows: everything, as nothing is hidden.

    ``bands`` are the scoring bands, best first; a total farther from the Bull's Eye than the
    last band's distance scores 0.
    """

    seat: int | None
    options: BullseyeOptions
    points: tuple[int, ...]
    banks: tuple[int, ...]
    pot: int
    rounds_played: int
    rounds_limit: int | None
    lead_choice: LeadChoice | None
    round: RoundView | None
    history: tuple[RoundSummary, ...]
    bands: tuple[Band, ...]
