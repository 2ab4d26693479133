"""Boss Dice (RULES.md §3) on the Game contract: options, actions, state, views, the Game."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import combinations
from typing import Literal

from dicehall.engine.chance import ChanceRequest, Outcome, Roll, chosen_faces
from dicehall.engine.errors import InvalidOptions
from dicehall.engine.game import Chance, Finished, Game, Result, Standing, ToAct, Turn
from dicehall.engine.options import described
from dicehall.games.boss.hands import (
    Dice,
    beats_first,
    boss_keep,
    faces_text,
    first_roll_rank,
    legal_keeps,
    missing_from,
    showdown_rank,
    two_pairs_in,
)
from dicehall.games.narration import faces_counted, number_word

MAX_HORSES = 25
MAX_PICKUPS = 100

#: The opponent's keep rule in one sentence, as the board and the command line show it.
KEEP_RULE = "Two pairs may not be kept; a full house may."


@dataclass(frozen=True, slots=True)
class BossOptions:
    """House rules: horses needed to win the match; pick-ups allowed per hand (None: any)."""

    horses: int = described(
        2, "Horses to win", "Hands a player must win to take the match, 1 to 25."
    )
    max_pickups: int | None = described(
        None, "Pick-ups per hand", "How often the Boss may pick 'em up; empty: no limit."
    )

    def __post_init__(self) -> None:
        if not 1 <= self.horses <= MAX_HORSES:
            raise InvalidOptions(f"horses must be 1 to {MAX_HORSES}, not {self.horses}")
        if self.max_pickups is not None and not 0 <= self.max_pickups <= MAX_PICKUPS:
            raise InvalidOptions(
                f"max_pickups must be none or 0 to {MAX_PICKUPS}, not {self.max_pickups}"
            )


# -- actions ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ComeUp:
    """The Boss lets the hand go on: the opponent keeps and rolls."""


@dataclass(frozen=True, slots=True)
class PickUp:
    """The Boss calls the hand off: a fresh first roll, no horse changes hands."""


@dataclass(frozen=True, slots=True)
class Keep:
    """The opponent keeps these dice of his first roll (any order; stored ascending)."""

    dice: Dice

    def __post_init__(self) -> None:
        object.__setattr__(self, "dice", chosen_faces(self.dice))


BossAction = ComeUp | PickUp | Keep


# -- the public hand history -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class NoBoss:
    """First rolls that made no Boss (no pair for either, or equal ranks): rolled again."""

    first_rolls: tuple[Dice, Dice]


@dataclass(frozen=True, slots=True)
class PickedUp:
    """The Boss called "pick 'em up"; his concealed dice were never shown."""

    boss: int
    first_rolls: tuple[Dice, Dice]
    boss_kept: Dice


@dataclass(frozen=True, slots=True)
class Showdown:
    """A hand played out: both final hands (ascending), and the winner (None for a push)."""

    boss: int
    first_rolls: tuple[Dice, Dice]
    boss_kept: Dice
    boss_hand: Dice
    keep: Dice
    opponent_hand: Dice
    winner: int | None


HandRecord = NoBoss | PickedUp | Showdown


@dataclass(frozen=True, slots=True)
class RefusedKeep:
    """A keep of the opponent's first-roll dice that the rules refuse, and why (a sentence)."""

    dice: Dice
    reason: str


Phase = Literal["first_roll", "boss_roll", "call", "keep", "opponent_roll", "over"]


@dataclass(frozen=True, slots=True)
class BossState:
    """The whole truth, concealed dice included; seats see it only through :meth:`Boss.view`.

    ``concealed`` is the Boss's second roll as rolled; ``keep`` the opponent's keep;
    ``pickups`` counts this hand's pick-ups; ``hands`` counts showdowns and pick-ups.
    """

    target: int
    max_pickups: int | None
    horses: tuple[int, int]
    phase: Phase
    first_rolls: tuple[Dice, ...] = ()
    boss: int | None = None
    concealed: Dice | None = None
    keep: Dice | None = None
    pickups: int = 0
    hands: int = 0
    history: tuple[HandRecord, ...] = ()

    @property
    def boss_kept(self) -> Dice:
        """The dice the Boss kept from his first roll (empty when there is no Boss)."""
        return () if self.boss is None else boss_keep(self.first_rolls[self.boss])


@dataclass(frozen=True, slots=True)
class BossView:
    """What one seat (or a spectator, seat None) may know.

    ``concealed`` is the Boss's hidden second roll, present only in the Boss's own view;
    once a hand is shown down both final hands are in ``history``. ``keep_rule`` states the
    opponent's keep rule; while the opponent keeps (phase ``keep``) ``refused_keeps`` lists
    every selection of his first-roll dice that is not a legal keep, each with the reason
    (empty in every other phase): a keep is legal exactly when it is in ``legal``.
    """

    seat: int | None
    target: int
    max_pickups: int | None
    horses: tuple[int, int]
    phase: Phase
    first_rolls: tuple[Dice, ...]
    boss: int | None
    boss_kept: Dice
    concealed: Dice | None
    keep: Dice | None
    pickups: int
    hands: int
    history: tuple[HandRecord, ...]
    keep_rule: str
    refused_keeps: tuple[RefusedKeep, ...]

    @property
    def opponent(self) -> int | None:
        """The seat that is not the Boss (None while there is no Boss)."""
        return None if self.boss is None else 1 - self.boss

    @property
    def concealed_count(self) -> int:
        """How many dice the Boss rolls (or rolled) out of sight."""
        return 0 if self.boss is None else 5 - len(self.boss_kept)


class Boss(Game[BossState, BossAction, BossOptions, BossView]):
    """Boss Dice for two seats: first rolls, a Boss, a concealed roll, a call, a showdown."""

    name = "boss"
    title = "Boss Dice"
    min_seats = 2
    max_seats = 2
    options_type = BossOptions
    state_type = BossState
    view_type = BossView
    action_type = BossAction
    hidden_information = True
    turn_noun = "hand"

    def start(self, seats: int, options: BossOptions) -> BossState:
        self.check_seats(seats)
        return BossState(options.horses, options.max_pickups, (0, 0), "first_roll")

    def standing(self, state: BossState) -> Standing:
        """Each seat's score so far and the hand being played."""
        return Standing(state.horses, state.hands + 1)

    def turn(self, state: BossState) -> Turn:
        phase = state.phase
        if phase == "over":
            winners = tuple(s for s in (0, 1) if state.horses[s] >= state.target)
            return Finished(Result(winners, state.horses, state.hands))
        if phase == "first_roll":
            return Chance(Roll(5))
        if phase == "boss_roll":
            return Chance(Roll(5 - len(state.boss_kept)))
        assert state.boss is not None
        if phase == "call":
            return ToAct(state.boss)
        if phase == "keep":
            return ToAct(1 - state.boss)
        assert state.keep is not None
        return Chance(Roll(5 - len(state.keep)))

    def legal(self, state: BossState, seat: int) -> Sequence[BossAction]:
        if state.boss is None:
            return ()
        if state.phase == "call" and seat == state.boss:
            if state.max_pickups is None or state.pickups < state.max_pickups:
                return (ComeUp(), PickUp())
            return (ComeUp(),)
        if state.phase == "keep" and seat == 1 - state.boss:
            return tuple(Keep(k) for k in legal_keeps(state.first_rolls[seat]))
        return ()

    def apply(self, state: BossState, seat: int, action: BossAction) -> BossState:
        if isinstance(action, ComeUp):
            return replace(state, phase="keep")
        if isinstance(action, PickUp):
            assert state.boss is not None
            record = PickedUp(state.boss, _pair(state.first_rolls), state.boss_kept)
            return _next_hand(state, record, pickups=state.pickups + 1)
        if len(action.dice) == 5:
            return _showdown(replace(state, keep=action.dice), ())
        return replace(state, keep=action.dice, phase="opponent_roll")

    def apply_outcome(
        self, state: BossState, request: ChanceRequest, outcome: Outcome
    ) -> BossState:
        dice = tuple(int(d) for d in outcome)
        if state.phase == "first_roll":
            return _first_roll(state, dice)
        if state.phase == "boss_roll":
            return replace(state, concealed=dice, phase="call")
        return _showdown(state, dice)

    def view(self, state: BossState, seat: int | None) -> BossView:
        own = seat is not None and seat == state.boss
        return BossView(
            seat=seat,
            target=state.target,
            max_pickups=state.max_pickups,
            horses=state.horses,
            phase=state.phase,
            first_rolls=state.first_rolls,
            boss=state.boss,
            boss_kept=state.boss_kept,
            concealed=state.concealed if own else None,
            keep=state.keep,
            pickups=state.pickups,
            hands=state.hands,
            history=state.history,
            keep_rule=KEEP_RULE,
            refused_keeps=_refused_keeps(state),
        )

    def why_illegal(self, state: BossState, seat: int, action: BossAction) -> str:
        if not isinstance(action, ComeUp | PickUp | Keep):
            return "that is not a Boss Dice move (come up, pick 'em up, or keep dice)"
        if state.phase == "call":
            if isinstance(action, Keep):
                return "the Boss keeps no more dice: he calls 'come up' or 'pick 'em up'"
            times = "once" if state.max_pickups == 1 else f"{state.max_pickups} times"
            return f"the Boss may pick 'em up only {times} a hand; he must call 'come up'"
        if not isinstance(action, Keep):
            return "only the Boss calls; choose which of your first-roll dice to keep"
        return _why_malformed_keep(action.dice) or _why_bad_keep(
            state.first_rolls[seat], action.dice
        )


def _why_malformed_keep(dice: object) -> str | None:
    """Why ``dice`` is not even a selection of dice (None when it is one)."""
    if not isinstance(dice, tuple):
        return f"keep dice as a list of faces, like 3 3, not {dice!r}"
    for face in dice:
        if type(face) is not int:
            return f"a die face is a whole number from 1 to 6, not {face!r}"
    return None


def _why_bad_keep(roll: Dice, keep: Dice) -> str:
    if len(keep) > 5:
        return f"you cannot keep {len(keep)} dice: you rolled five"
    for face in keep:
        if not 1 <= face <= 6:
            return f"{face} is not a die face (1 to 6)"
    short = missing_from(keep, roll)
    if short:
        have, wanted = Counter(roll), Counter(keep)
        parts = [
            f"{faces_counted(have[face], face)} (not {number_word(wanted[face])})"
            if have[face]
            else faces_counted(0, face)
            for face in sorted(set(short))
        ]
        return f"your first roll {faces_text(roll)} has {' and '.join(parts)} to keep"
    pairs = two_pairs_in(keep)
    if pairs is not None:
        high, low = pairs
        return (
            f"you may not keep two pairs ({high} {high} and {low} {low}): "
            "keep one of the pairs, or a full house"
        )
    # unreachable for a legal keep, which act() applies without asking why
    return f"keeping {faces_text(keep)} is not allowed now"


def _refused_keeps(state: BossState) -> tuple[RefusedKeep, ...]:
    """Every distinct selection of the keeping opponent's dice the rules refuse, with why."""
    if state.phase != "keep" or state.boss is None:
        return ()
    roll = tuple(sorted(state.first_rolls[1 - state.boss]))
    legal = set(legal_keeps(roll))
    refused = {
        keep
        for size in range(len(roll) + 1)
        for keep in combinations(roll, size)
        if keep not in legal
    }
    return tuple(
        RefusedKeep(keep, _why_bad_keep(roll, keep))
        for keep in sorted(refused, key=lambda k: (len(k), k))
    )


def _pair(rolls: tuple[Dice, ...]) -> tuple[Dice, Dice]:
    return (rolls[0], rolls[1])


def _first_roll(state: BossState, dice: Dice) -> BossState:
    rolls = (*state.first_rolls, dice)
    if len(rolls) < 2:
        return replace(state, first_rolls=rolls)
    ranks = [first_roll_rank(r) for r in rolls]
    if beats_first(ranks[0], ranks[1]):
        boss = 0
    elif beats_first(ranks[1], ranks[0]):
        boss = 1
    else:  # no pair for either, or equal first rolls: no Boss
        return replace(state, first_rolls=(), history=(*state.history, NoBoss(_pair(rolls))))
    kept = boss_keep(rolls[boss])
    if len(kept) == 5:  # full house or five of a kind: nothing to roll out of sight
        return replace(state, first_rolls=rolls, boss=boss, concealed=(), phase="call")
    return replace(state, first_rolls=rolls, boss=boss, phase="boss_roll")


def _showdown(state: BossState, rolled: Dice) -> BossState:
    assert state.boss is not None and state.concealed is not None and state.keep is not None
    boss, opponent = state.boss, 1 - state.boss
    boss_hand = tuple(sorted(state.boss_kept + state.concealed))
    opponent_hand = tuple(sorted(state.keep + rolled))
    boss_rank, opponent_rank = showdown_rank(boss_hand), showdown_rank(opponent_hand)
    winner = boss if boss_rank > opponent_rank else opponent if opponent_rank > boss_rank else None
    record = Showdown(
        boss,
        _pair(state.first_rolls),
        state.boss_kept,
        boss_hand,
        state.keep,
        opponent_hand,
        winner,
    )
    horses = state.horses
    if winner is not None:
        horses = (horses[0] + (winner == 0), horses[1] + (winner == 1))
    return _next_hand(replace(state, horses=horses), record, pickups=0)


def _next_hand(state: BossState, record: HandRecord, *, pickups: int) -> BossState:
    over = max(state.horses) >= state.target
    return replace(
        state,
        phase="over" if over else "first_roll",
        first_rolls=(),
        boss=None,
        concealed=None,
        keep=None,
        pickups=pickups,
        hands=state.hands + 1,
        history=(*state.history, record),
    )


GAME = Boss()
