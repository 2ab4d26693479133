"""Bull's Eye (RULES.md §5) on the Game contract."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from dicehall.engine.chance import ChanceRequest, Outcome, Roll
from dicehall.engine.errors import IllegalMove, InvalidOptions
from dicehall.engine.game import Chance, Finished, Game, Result, Standing, ToAct, Turn
from dicehall.games.bullseye.model import (
    Band,
    BullseyeAction,
    BullseyeOptions,
    BullseyeState,
    BullseyeView,
    LeadChoice,
    Round,
    RoundSummary,
    RoundView,
    Stop,
    ThrowOn,
)
from dicehall.games.bullseye.scoring import (
    BANDS,
    DICE,
    THROWS,
    dice_for,
    lead_counted,
    lead_part,
    round_score,
    shared_positions,
    target_of,
    total_of,
)


def throwing_order(lead: int, seats: int) -> tuple[int, ...]:
    """The lead first, then every other seat from the lead's left."""
    return tuple((lead + i) % seats for i in range(seats))


def _new_round(number: int, lead: int, seats: int) -> Round:
    return Round(number, lead, lead, (), ((),) * seats, (0,) * seats)


class BullsEye(Game[BullseyeState, BullseyeAction, BullseyeOptions, BullseyeView]):
    """Bull's Eye: the lead sets a target with three throws, the others try to match it."""

    name = "bullseye"
    title = "Bull's Eye"
    min_seats = 2
    max_seats = 8
    default_seats = 3
    options_type = BullseyeOptions
    state_type = BullseyeState
    view_type = BullseyeView
    action_type = BullseyeAction
    turn_noun = "round"

    # -- the contract ------------------------------------------------------------------------

    def start(self, seats: int, options: BullseyeOptions) -> BullseyeState:
        self.check_seats(seats)
        if seats == 2 and not options.allow_two_seats:
            raise InvalidOptions(
                "Bull's Eye takes 3 to 8 seats; two seats need the house rule allow_two_seats=true"
            )
        return BullseyeState(
            options=options,
            points=(0,) * seats,
            banks=(options.bank,) * seats,
            pot=0,
            lead_choice=LeadChoice(tuple(range(seats)), ()),
            round=None,
            history=(),
        )

    def standing(self, state: BullseyeState) -> Standing:
        """Each seat's score so far and the round being played."""
        return Standing(state.points, len(state.history) + 1)

    def turn(self, state: BullseyeState) -> Turn:
        if state.lead_choice is not None:
            return Chance(Roll(DICE))
        rnd = state.round
        if rnd is None:
            return Finished(self.result(state))
        if not rnd.dice:
            taken = len(rnd.counted[rnd.thrower])
            return Chance(Roll(dice_for(taken, lead=rnd.thrower == rnd.lead)))
        shared = shared_positions(rnd.dice)
        if shared:
            return Chance(Roll(len(shared)))
        return ToAct(rnd.thrower)

    def legal(self, state: BullseyeState, seat: int) -> Sequence[BullseyeAction]:
        turn = self.turn(state)
        if not isinstance(turn, ToAct) or turn.seat != seat:
            return ()
        rnd = state.round
        assert rnd is not None
        bets = range(self.max_bet(state, seat) + 1)
        actions: list[BullseyeAction] = []
        if self._may_throw_on(rnd, seat):
            actions.extend(ThrowOn(b) for b in bets)
        if self._may_stop(rnd, seat):
            actions.extend(Stop(b) for b in bets)
        return tuple(actions)

    def apply(self, state: BullseyeState, seat: int, action: BullseyeAction) -> BullseyeState:
        rnd = state.round
        assert rnd is not None
        bet = action.bet
        banks = list(state.banks)
        banks[seat] -= bet
        bets = list(rnd.bets)
        bets[seat] += bet
        rnd = replace(rnd, dice=(), bets=tuple(bets))
        state = replace(state, banks=tuple(banks), pot=state.pot + bet, round=rnd)
        if isinstance(action, ThrowOn):
            return state
        seats = len(state.points)
        if seat == (rnd.lead - 1) % seats:
            return self._end_round(state, rnd)
        return replace(state, round=replace(rnd, thrower=(seat + 1) % seats))

    def apply_outcome(
        self, state: BullseyeState, request: ChanceRequest, outcome: Outcome
    ) -> BullseyeState:
        faces = tuple(int(f) for f in outcome)
        if state.lead_choice is not None:
            return self._lead_throw(state, state.lead_choice, faces)
        rnd = state.round
        assert rnd is not None
        if rnd.dice:
            dice = list(rnd.dice)
            for position, face in zip(shared_positions(rnd.dice), faces, strict=True):
                dice[position] = face
            faces = tuple(dice)
        if not shared_positions(faces):
            counted = list(rnd.counted)
            counted[rnd.thrower] = (*counted[rnd.thrower], faces)
            return replace(state, round=replace(rnd, dice=faces, counted=tuple(counted)))
        return replace(state, round=replace(rnd, dice=faces))

    def view(self, state: BullseyeState, seat: int | None) -> BullseyeView:
        seats = len(state.points)
        return BullseyeView(
            seat=seat,
            options=state.options,
            points=state.points,
            banks=state.banks,
            pot=state.pot,
            rounds_played=len(state.history),
            rounds_limit=state.options.rounds_for(seats),
            lead_choice=state.lead_choice,
            round=None if state.round is None else round_view(state.round),
            history=state.history,
            bands=_BANDS,
        )

    def act(self, state: BullseyeState, seat: int, action: BullseyeAction) -> BullseyeState:
        """Apply ``seat``'s move, or raise IllegalMove and change nothing."""
        bet: object = getattr(action, "bet", 0)
        # True == 1 and 2.0 == 2 would pass the legality check; the log must hold whole ints.
        if isinstance(bet, bool) or not isinstance(bet, int):
            raise IllegalMove("a bet must be a whole number of chips")
        return super().act(state, seat, action)

    def why_illegal(self, state: BullseyeState, seat: int, action: BullseyeAction) -> str:
        if not isinstance(action, Stop | ThrowOn):
            return "a move is stop or throw on, each with a bet of 0 or more chips"
        bet = action.bet
        limit = state.options.bet_limit
        if bet < 0:
            return "a bet cannot be negative"
        rnd = state.round
        assert rnd is not None
        if bet > 0 and seat == rnd.lead and not state.options.lead_bets:
            return "the lead does not bet: the lead cannot take the round's pot"
        if bet > limit:
            return f"a bet is at most {limit} chips" if limit else "betting is off in this game"
        if bet > state.banks[seat]:
            return f"you have only {state.banks[seat]} chips in your bank"
        if isinstance(action, Stop) and rnd.thrower == rnd.lead:
            return "the lead cannot stop: the Bull's Eye takes all three throws"
        if isinstance(action, ThrowOn):
            return "you have taken all three throws, so you must stop"
        return super().why_illegal(state, seat, action)  # pragma: no cover - all cases above

    # -- helpers -----------------------------------------------------------------------------

    def max_bet(self, state: BullseyeState, seat: int) -> int:
        """The largest bet ``seat`` may add now: the limit, or its bank if smaller.

        The lead does not bet (0): the lead cannot take the round's pot; but under rules
        version 1 (``lead_bets``) it may.
        """
        rnd = state.round
        if rnd is not None and seat == rnd.lead and not state.options.lead_bets:
            return 0
        return min(state.options.bet_limit, state.banks[seat])

    def result(self, state: BullseyeState) -> Result:
        """The standing: most points wins, equal points share the win."""
        top = max(state.points)
        winners = tuple(i for i, p in enumerate(state.points) if p == top)
        return Result(winners, state.points, len(state.history))

    @staticmethod
    def _may_throw_on(rnd: Round, seat: int) -> bool:
        return len(rnd.counted[seat]) < THROWS

    @staticmethod
    def _may_stop(rnd: Round, seat: int) -> bool:
        return seat != rnd.lead or len(rnd.counted[seat]) == THROWS

    def _lead_throw(
        self, state: BullseyeState, choice: LeadChoice, faces: tuple[int, ...]
    ) -> BullseyeState:
        throws = (*choice.throws, faces)
        if len(throws) < len(choice.contenders):
            return replace(state, lead_choice=LeadChoice(choice.contenders, throws))
        totals = [sum(t) for t in throws]
        top = max(totals)
        tied = tuple(c for c, t in zip(choice.contenders, totals, strict=True) if t == top)
        if len(tied) > 1:
            return replace(state, lead_choice=LeadChoice(tied, ()))
        seats = len(state.points)
        return replace(state, lead_choice=None, round=_new_round(1, tied[0], seats))

    def _end_round(self, state: BullseyeState, rnd: Round) -> BullseyeState:
        seats = len(state.points)
        target = target_of(rnd.counted[rnd.lead])
        totals = tuple(None if s == rnd.lead else total_of(rnd.counted[s]) for s in range(seats))
        scores = tuple(None if t is None else round_score(t, target) for t in totals)
        top = max(s for s in scores if s is not None)
        won = [0] * seats
        carried = state.pot
        if top > 0:
            winners = [i for i, s in enumerate(scores) if s == top]
            share, carried = divmod(state.pot, len(winners))
            for w in winners:
                won[w] = share
        points = tuple(p + (s or 0) for p, s in zip(state.points, scores, strict=True))
        over = self._over(state.options, points, len(state.history) + 1)
        if over and carried and state.options.last_pot_shared:
            # The game ends: the pot still carried goes to the game's winners, split like a
            # round's pot, the odd chips to the first winner left of this (the last) lead.
            top_points = max(points)
            order = throwing_order(rnd.lead, seats)
            game_winners = [s for s in (*order[1:], order[0]) if points[s] == top_points]
            share, odd = divmod(carried, len(game_winners))
            for w in game_winners:
                won[w] += share
            won[game_winners[0]] += odd
            carried = 0
        summary = RoundSummary(
            rnd.number, rnd.lead, target, totals, scores, state.pot, tuple(won), carried
        )
        banks = tuple(b + w for b, w in zip(state.banks, won, strict=True))
        state = replace(
            state,
            points=points,
            banks=banks,
            pot=carried,
            round=None,
            history=(*state.history, summary),
        )
        if over:
            return state
        return replace(state, round=_new_round(rnd.number + 1, (rnd.lead + 1) % seats, seats))

    @staticmethod
    def _over(options: BullseyeOptions, points: tuple[int, ...], rounds_played: int) -> bool:
        """Whether the game ends with ``points`` after ``rounds_played`` rounds."""
        limit = options.rounds_for(len(points))
        if limit is not None and rounds_played >= limit:
            return True
        goal = options.target_points
        return goal is not None and max(points) >= goal


_BANDS = tuple(Band(distance, points) for distance, points in BANDS)


def round_view(rnd: Round) -> RoundView:
    """The round with its derived figures: order, target, totals and posted scores."""
    seats = len(rnd.counted)
    order = throwing_order(rnd.lead, seats)
    lead_throws = rnd.counted[rnd.lead]
    target = target_of(lead_throws)
    done = set(order[: order.index(rnd.thrower)])
    totals = tuple(None if s == rnd.lead else total_of(rnd.counted[s]) for s in range(seats))
    scores = tuple(
        round_score(t, target) if t is not None and s in done else None
        for s, t in enumerate(totals)
    )
    target_set = len(lead_throws) == THROWS
    stop_scores = tuple(
        round_score(t, target)
        if target_set and t is not None and rnd.counted[s] and scores[s] is None
        else None
        for s, t in enumerate(totals)
    )
    taken = len(rnd.counted[rnd.thrower])
    is_lead = rnd.thrower == rnd.lead
    next_dice = dice_for(taken, lead=is_lead) if taken < THROWS else None
    next_counted = None
    if next_dice is not None:
        next_counted = lead_counted(taken) if is_lead else next_dice
    return RoundView(
        number=rnd.number,
        lead=rnd.lead,
        order=order,
        thrower=rnd.thrower,
        dice=rnd.dice,
        rerolling=shared_positions(rnd.dice),
        counted=rnd.counted,
        target=target,
        target_set=target_set,
        totals=totals,
        scores=scores,
        bets=rnd.bets,
        lead_adds=tuple(lead_part(i, dice) for i, dice in enumerate(lead_throws)),
        stop_scores=stop_scores,
        next_dice=next_dice,
        next_counted=next_counted,
    )


GAME = BullsEye()
