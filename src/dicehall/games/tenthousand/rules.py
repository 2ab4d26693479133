"""Ten Thousand on the Game contract: options, actions, state, view and the rules."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Literal

from dicehall.engine.chance import ChanceRequest, Outcome, Roll, chosen_faces
from dicehall.engine.errors import InvalidOptions
from dicehall.engine.game import Chance, Finished, Game, Result, Standing, ToAct, Turn
from dicehall.engine.options import described
from dicehall.games.tenthousand.scoring import counts_of, dead_dice, keep_value, set_asides
from dicehall.games.tenthousand.stakes import split_pot

DICE = 6
MAX_SEATS = 8


@dataclass(frozen=True, slots=True)
class TenThousandOptions:
    """House rules, validated when a game is created. Money is counted in cents."""

    target: int = described(
        10_000, "Target score", "The banked total that starts the final round, 50 to 100000."
    )
    entry_threshold: int = described(
        1000, "Entry threshold", "Points a player must bank in one turn to get on the board."
    )
    four_and_pair_is_three_pairs: bool = described(
        False, "Four of a kind and a pair count as three pairs"
    )
    ante: int = described(
        25, "Ante (cents)", "Play money each player puts in: shown, never charged. 0 to 100000."
    )
    zero_penalty: int = described(
        5,
        "Zero penalty (cents)",
        "Play money a player who has entered pays for each zero-out, 0 to 100000.",
    )

    def __post_init__(self) -> None:
        if not 50 <= self.target <= 100_000:
            raise InvalidOptions(f"target must be 50 to 100000 points, not {self.target}")
        if self.entry_threshold < 0:
            raise InvalidOptions(
                f"entry_threshold must be 0 to the target ({self.target}), "
                f"not {self.entry_threshold}"
            )
        if self.entry_threshold > self.target:
            # Either may be the one just set: name both, the target first.
            raise InvalidOptions(
                f"target ({self.target}) is below entry_threshold ({self.entry_threshold}): "
                "the target must be at least the entry threshold"
            )
        if not 0 <= self.ante <= 100_000:
            raise InvalidOptions(f"ante must be 0 to 100000 cents, not {self.ante}")
        if not 0 <= self.zero_penalty <= 100_000:
            raise InvalidOptions(f"zero_penalty must be 0 to 100000 cents, not {self.zero_penalty}")


# -- actions -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SetAside:
    """Set these dice of the latest roll aside; they must all score.

    ``points`` is informational (``legal`` fills it in); it takes no part in equality, so a
    client may post only the dice, in any order.
    """

    dice: tuple[int, ...]
    points: int = field(default=0, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "dice", chosen_faces(self.dice))


@dataclass(frozen=True, slots=True)
class Bank:
    """Bank the turn total and end the turn."""


@dataclass(frozen=True, slots=True)
class RollOn:
    """Roll the dice still in hand (all six after hot dice)."""


TenThousandAction = SetAside | Bank | RollOn

# -- state and view ----------------------------------------------------------------------------

Phase = Literal["roll", "set_aside", "choose", "over"]
"""``roll``: dice pending; ``set_aside``: the seat must set dice aside from ``dice``;
``choose``: the seat banks or rolls on; ``over``: the game has ended."""


@dataclass(frozen=True, slots=True)
class TurnEnd:
    """How a turn ended: banked ``banked`` points, or zeroed out on ``zero_roll``."""

    seat: int
    banked: int
    zero_roll: tuple[int, ...] = ()
    lost: int = 0
    penalty: int = 0

    @property
    def zeroed(self) -> bool:
        """True when the turn ended on a roll with no scoring dice."""
        return bool(self.zero_roll)


@dataclass(frozen=True, slots=True)
class TenThousandState:
    """Everything about a game of Ten Thousand; nothing in it is hidden."""

    options: TenThousandOptions
    banked: tuple[int, ...]
    #: Cents each seat has put in the pot: the ante plus zero-out penalties.
    paid: tuple[int, ...]
    current: int
    phase: Phase
    #: The latest roll, ascending (empty while dice are pending).
    dice: tuple[int, ...]
    #: How many dice the next roll throws.
    in_hand: int
    turn_total: int
    #: This turn's set-asides, in order.
    kept: tuple[tuple[int, ...], ...]
    #: Turns completed, by every seat together.
    turns: int
    #: The seat whose bank first reached the target; the final round is under way.
    final_trigger: int | None
    #: Seats still owed their one last turn in the final round.
    final_left: int
    last: TurnEnd | None
    #: Each seat's share of the pot once the game is over, else empty.
    payouts: tuple[int, ...]

    @property
    def seats(self) -> int:
        """How many seats play."""
        return len(self.banked)

    @property
    def pot(self) -> int:
        """Cents in the pot."""
        return sum(self.paid)

    @property
    def hot_dice(self) -> bool:
        """True when every die has been set aside and the seat may roll all six again."""
        return self.phase == "choose" and self.in_hand == DICE

    def entered(self, seat: int) -> bool:
        """True once ``seat`` has banked something (the entry threshold no longer applies)."""
        return self.banked[seat] > 0

    def can_bank(self) -> bool:
        """True when the seat to act may bank its turn total now."""
        return self.phase == "choose" and (
            self.banked[self.current] > 0 or self.turn_total >= self.options.entry_threshold
        )

    def winners(self) -> tuple[int, ...]:
        """The seats with the highest banked total (all of them share a win)."""
        top = max(self.banked)
        return tuple(i for i, b in enumerate(self.banked) if b == top)


@dataclass(frozen=True, slots=True)
class TenThousandView:
    """What a seat (or a spectator, ``seat=None``) sees: the whole table, nothing is hidden."""

    seat: int | None
    state: TenThousandState


# -- the game ----------------------------------------------------------------------------------

_ROLLS = {n: Chance(Roll(n)) for n in range(1, DICE + 1)}
_TO_ACT = tuple(ToAct(i) for i in range(MAX_SEATS))
_BANK_OR_ROLL: tuple[TenThousandAction, ...] = (Bank(), RollOn())
_ROLL_ONLY: tuple[TenThousandAction, ...] = (RollOn(),)


@cache
def _set_aside_actions(roll: tuple[int, ...], four_and_pair: bool) -> tuple[SetAside, ...]:
    return tuple(SetAside(keep, points) for keep, points in set_asides(roll, four_and_pair))


def _faces(dice: Sequence[int]) -> str:
    return ",".join(str(d) for d in dice)


class TenThousand(Game[TenThousandState, TenThousandAction, TenThousandOptions, TenThousandView]):
    """Ten Thousand (RULES.md section 1): six dice, set aside scoring dice, bank or roll on."""

    name = "tenthousand"
    title = "Ten Thousand"
    min_seats = 1
    max_seats = MAX_SEATS
    options_type = TenThousandOptions
    state_type = TenThousandState
    view_type = TenThousandView
    action_type = TenThousandAction

    def start(self, seats: int, options: TenThousandOptions) -> TenThousandState:
        self.check_seats(seats)
        return TenThousandState(
            options=options,
            banked=(0,) * seats,
            paid=(options.ante,) * seats,
            current=0,
            phase="roll",
            dice=(),
            in_hand=DICE,
            turn_total=0,
            kept=(),
            turns=0,
            final_trigger=None,
            final_left=0,
            last=None,
            payouts=(),
        )

    def standing(self, state: TenThousandState) -> Standing:
        """Each seat's score so far and the turn being played."""
        return Standing(state.banked, state.turns + 1)

    def turn(self, state: TenThousandState) -> Turn:
        phase = state.phase
        if phase == "roll":
            return _ROLLS[state.in_hand]
        if phase == "over":
            return Finished(Result(state.winners(), state.banked, state.turns))
        return _TO_ACT[state.current]

    def legal(self, state: TenThousandState, seat: int) -> Sequence[TenThousandAction]:
        if seat != state.current:
            return ()
        phase = state.phase
        if phase == "set_aside":
            return _set_aside_actions(state.dice, state.options.four_and_pair_is_three_pairs)
        if phase == "choose":
            return _BANK_OR_ROLL if state.can_bank() else _ROLL_ONLY
        return ()

    def apply(
        self, state: TenThousandState, seat: int, action: TenThousandAction
    ) -> TenThousandState:
        # States are built positionally, not with dataclasses.replace: this runs a few hundred
        # times per game, and replace() takes about twice as long per state.
        if isinstance(action, SetAside):
            points = keep_value(action.dice, state.options.four_and_pair_is_three_pairs)
            assert points is not None  # act() checked legality
            left = state.in_hand - len(action.dice)
            return TenThousandState(
                state.options,
                state.banked,
                state.paid,
                state.current,
                "choose",
                state.dice,
                left or DICE,  # hot dice: all six again
                state.turn_total + points,
                (*state.kept, action.dice),
                state.turns,
                state.final_trigger,
                state.final_left,
                state.last,
                (),
            )
        if isinstance(action, RollOn):
            return TenThousandState(
                state.options,
                state.banked,
                state.paid,
                state.current,
                "roll",
                (),
                state.in_hand,
                state.turn_total,
                state.kept,
                state.turns,
                state.final_trigger,
                state.final_left,
                state.last,
                (),
            )
        banked = list(state.banked)
        banked[seat] += state.turn_total
        return self._end_turn(state, tuple(banked), state.paid, TurnEnd(seat, state.turn_total))

    def apply_outcome(
        self, state: TenThousandState, request: ChanceRequest, outcome: Outcome
    ) -> TenThousandState:
        dice = tuple(sorted(int(face) for face in outcome))
        if _set_aside_actions(dice, state.options.four_and_pair_is_three_pairs):
            return TenThousandState(
                state.options,
                state.banked,
                state.paid,
                state.current,
                "set_aside",
                dice,
                state.in_hand,
                state.turn_total,
                state.kept,
                state.turns,
                state.final_trigger,
                state.final_left,
                state.last,
                (),
            )
        seat = state.current
        penalty = state.options.zero_penalty if state.banked[seat] > 0 else 0
        paid = state.paid
        if penalty:
            paid_list = list(paid)
            paid_list[seat] += penalty
            paid = tuple(paid_list)
        end = TurnEnd(seat, 0, dice, state.turn_total, penalty)
        return self._end_turn(state, state.banked, paid, end)

    def _end_turn(
        self,
        state: TenThousandState,
        banked: tuple[int, ...],
        paid: tuple[int, ...],
        end: TurnEnd,
    ) -> TenThousandState:
        seat = state.current
        seats = len(banked)
        trigger, left = state.final_trigger, state.final_left
        if trigger is None:
            if banked[seat] >= state.options.target:
                trigger, left = seat, seats - 1
        else:
            left -= 1
        over = trigger is not None and left == 0
        payouts: tuple[int, ...] = ()
        if over:
            top = max(banked)
            winners = [i for i, b in enumerate(banked) if b == top]
            payouts = split_pot(sum(paid), winners, seats)
        return TenThousandState(
            state.options,
            banked,
            paid,
            seat if over else (seat + 1) % seats,
            "over" if over else "roll",
            (),
            DICE,
            0,
            (),
            state.turns + 1,
            trigger,
            left,
            end,
            payouts,
        )

    def view(self, state: TenThousandState, seat: int | None) -> TenThousandView:
        return TenThousandView(seat, state)

    def why_illegal(self, state: TenThousandState, seat: int, action: TenThousandAction) -> str:
        roll = _faces(state.dice)
        if state.phase == "set_aside":
            if not isinstance(action, SetAside):
                return f"set aside scoring dice from your roll ({roll}) first"
            if not isinstance(action.dice, tuple):
                return f"set dice aside as a list of faces, like 1 5, not {action.dice!r}"
            if not action.dice:
                return "set aside at least one scoring die"
            have = counts_of(state.dice)
            faces_ok = all(type(d) is int and 1 <= d <= DICE for d in action.dice)
            want = counts_of(action.dice) if faces_ok else ()
            if not faces_ok or any(w > h for w, h in zip(want, have, strict=True)):
                return f"{_faces(action.dice)} is not part of your roll ({roll})"
            dead = dead_dice(action.dice, state.options.four_and_pair_is_three_pairs)
            shown = _faces(dead) if dead else _faces(action.dice)
            return f"{shown} does not score; every die you set aside must score"
        if state.phase == "choose":
            if isinstance(action, SetAside):
                return "you have already set dice aside from this roll: bank or roll on"
            if isinstance(action, Bank):
                need = state.options.entry_threshold
                return (
                    f"you cannot bank yet: your first bank needs at least {need} points "
                    f"and this turn has {state.turn_total}"
                )
        return f"{action!r} is not a Ten Thousand move"
