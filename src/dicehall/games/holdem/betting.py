"""The betting round: who must act, what each seat may do, and why a move is refused."""

from __future__ import annotations

from dicehall.games.holdem.model import (
    LIMITS,
    MAX_RAISES,
    AllIn,
    Bet,
    Call,
    Check,
    Fold,
    HoldemAction,
    HoldemState,
    Raise,
)
from dicehall.games.holdem.pots import UNIT


def in_hand(state: HoldemState, seat: int) -> bool:
    """Dealt in this hand and not folded."""
    return not state.out[seat] and not state.folded[seat]


def able(state: HoldemState, seat: int) -> bool:
    """Still in the hand with chips to bet (not all-in)."""
    return in_hand(state, seat) and state.stacks[seat] > 0


def able_count(state: HoldemState) -> int:
    """How many seats can still bet."""
    return sum(able(state, s) for s in range(len(state.stacks)))


def to_match(state: HoldemState) -> int:
    """The most any seat has put in this round."""
    return max(state.round_bets)


def to_call(state: HoldemState, seat: int) -> int:
    """What ``seat`` must add to match the current bet."""
    return to_match(state) - state.round_bets[seat]


def limit(state: HoldemState) -> int:
    """The largest bet or raise on this street."""
    return LIMITS[state.street]


def needs_action(state: HoldemState, seat: int) -> bool:
    """True while ``seat`` still has to act this round.

    A seat that can bet must act until it has acted since the last bet or raise and matched
    it; with nobody else able to bet it acts only to answer chips it has not matched.
    """
    if not able(state, seat):
        return False
    if state.round_bets[seat] < to_match(state):
        return True
    return not state.acted[seat] and able_count(state) >= 2


def next_to_act(state: HoldemState, after: int) -> int | None:
    """The first seat left of ``after`` that still has to act, if any."""
    seats = len(state.stacks)
    for step in range(1, seats + 1):
        seat = (after + step) % seats
        if needs_action(state, seat):
            return seat
    return None


def _others_able(state: HoldemState, seat: int) -> bool:
    return any(able(state, s) for s in range(len(state.stacks)) if s != seat)


def _amounts(top: int) -> tuple[int, ...]:
    return tuple(range(UNIT, top + 1, UNIT))


def legal_actions(state: HoldemState, seat: int) -> tuple[HoldemAction, ...]:
    """Every action ``seat`` may take now, every legal amount listed."""
    if state.stage != "betting" or state.to_act != seat:
        return ()
    stack = state.stacks[seat]
    owed = to_call(state, seat)
    actions: list[HoldemAction] = [Fold()]
    if owed == 0:
        actions.append(Check())
        if to_match(state) == 0 and _others_able(state, seat):
            actions.extend(Bet(a) for a in _amounts(min(limit(state), stack)))
        return tuple(actions)
    actions.append(Call() if stack >= owed else AllIn())
    if state.raises < MAX_RAISES and _others_able(state, seat):
        actions.extend(Raise(a) for a in _amounts(min(limit(state), stack - owed)))
    return tuple(actions)


def why_illegal(state: HoldemState, seat: int, action: object) -> str:
    """A sentence saying why ``action`` is not allowed for ``seat`` now."""
    stack = state.stacks[seat]
    owed = to_call(state, seat)
    top = limit(state)
    if isinstance(action, Check):
        return f"you can't check: there is {owed} to call (call, raise, or fold)"
    if isinstance(action, Call):
        if owed == 0:
            return "there is no bet to call: check or bet"
        return f"you have only {stack}, not enough to call {owed}: go all-in or fold"
    if isinstance(action, AllIn):
        return f"all-in is for a seat that can't afford the call; you can call {owed}" + (
            " or raise up to the limit" if owed else " or bet up to the limit"
        )
    if isinstance(action, Bet):
        if to_match(state) > 0:
            return "there is already a bet this round: call, raise or fold"
        if not _others_able(state, seat):
            return "nobody left can answer a bet: check"
        return _amount_problem("bet", action.amount, min(top, stack), stack, top)
    if isinstance(action, Raise):
        if owed == 0:
            return "there is no bet to raise: bet instead"
        if state.raises >= MAX_RAISES:
            return f"no more raises: this round has had {MAX_RAISES} (call or fold)"
        if not _others_able(state, seat):
            return "nobody left can answer a raise: call or fold"
        room = stack - owed
        if room < UNIT:
            return f"you have only {stack}, not enough to raise after calling {owed}"
        return _amount_problem("raise", action.amount, min(top, room), room, top)
    if isinstance(action, Fold):  # pragma: no cover - folding is always legal in turn
        return "you can't fold now"
    return f"{action!r} is not a Hold'em Dice action"


def _amount_problem(word: str, amount: object, most: int, room: int, top: int) -> str:
    allowed = " or ".join(str(a) for a in _amounts(most))
    if type(amount) is not int:
        # 10.0, "10" or True look like an allowed amount but are not one: say what is wrong.
        return f"a {word} is a whole number of chips ({allowed} here), not {amount!r}"
    if room < amount <= top:
        return f"you can {word} at most {room}: that is every chip you have left"
    return f"a {word} here must be {allowed}, not {amount}"
