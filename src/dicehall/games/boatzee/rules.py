"""Boatzee, Double and Triple Boatzee (and the official Yahtzee rules) on the Game contract."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from itertools import combinations

from dicehall.engine.chance import ChanceRequest, Outcome, Roll
from dicehall.engine.errors import IllegalMove, InvalidOptions
from dicehall.engine.game import Chance, Finished, Game, Result, Standing, ToAct, Turn
from dicehall.engine.options import described
from dicehall.games.boatzee.card import (
    EXTRA_BOATZEE_BONUS,
    JOKERS,
    UPPER_BONUS_THRESHOLD,
    Card,
    Joker,
    Ruleset,
    allowed,
    column_total,
    effects,
    empty_card,
    fill,
    total,
    upper_bonus,
    upper_total,
    why_not_allowed,
)
from dicehall.games.boatzee.scoring import BOXES, Box

DICE = 5
ROLLS_PER_TURN = 3
RULESETS: tuple[Ruleset, ...] = ("boatzee", "yahtzee")
_VARIANTS = {1: "Boatzee", 2: "Double Boatzee", 3: "Triple Boatzee"}


@dataclass(frozen=True, slots=True)
class BoatzeeOptions:
    """``columns``: 1, 2 or 3 (Boatzee, Double, Triple); ``ruleset``: boatzee or yahtzee;
    ``joker``: the yahtzee ruleset's joker rule, forced or free."""

    columns: int = described(
        1,
        "Variant",
        "Each column scores its boxes once more, multiplied by 1, 2 or 3.",
        (
            ("1", "Boatzee (1 column)"),
            ("2", "Double Boatzee (2 columns)"),
            ("3", "Triple Boatzee (3 columns)"),
        ),
    )
    ruleset: Ruleset = described(
        "boatzee",
        "Ruleset",
        "Boatzee's scoring or the yahtzee variant (see the rules).",
        (("boatzee", "Boatzee scoring"), ("yahtzee", "Yahtzee scoring")),
    )
    joker: Joker = described(
        "forced",
        "Joker rule",
        "Yahtzee scoring only: where a further five of a kind may go (see the rules).",
        (
            ("forced", "Forced: the matching upper box first (official)"),
            ("free", "Free choice: any open box (Verhoeff's)"),
        ),
    )

    def __post_init__(self) -> None:
        if isinstance(self.columns, bool) or self.columns not in (1, 2, 3):
            raise InvalidOptions(
                f"option 'columns' must be 1, 2 or 3 (Boatzee, Double, Triple), "
                f"not {self.columns!r}"
            )
        if self.ruleset not in RULESETS:
            raise InvalidOptions(
                f"option 'ruleset' must be boatzee or yahtzee, not {self.ruleset!r}"
            )
        if self.joker not in JOKERS:
            raise InvalidOptions(f"option 'joker' must be forced or free, not {self.joker!r}")
        if self.joker != "forced" and self.ruleset != "yahtzee":
            raise InvalidOptions(
                "option 'joker' applies to the yahtzee ruleset only (Boatzee has no joker rule)"
            )


def variant_title(options: BoatzeeOptions) -> str:
    """The name of the variant being played, e.g. ``Triple Boatzee (yahtzee rules)``."""
    title = _VARIANTS[options.columns]
    if options.ruleset == "boatzee":
        return title
    if options.joker == "free":
        return f"{title} (yahtzee rules, free joker)"
    return f"{title} (yahtzee rules)"


@dataclass(frozen=True, slots=True)
class Reroll:
    """Re-roll the dice at these 0-based positions: at least one, each once, increasing.

    The other dice keep their positions. A re-roll is final the moment it is made.
    """

    positions: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Score:
    """Score the current dice in ``box`` of ``column`` (1-based), ending the turn.

    ``points``, ``upper_bonus`` and ``extra_bonus`` say what the move is worth; ``legal``
    fills them in: the points the box would show (multiplied by its column, joker values
    when the joker rule is in force), the 35 upper bonus this box would complete in its
    column, and the 100 extra-Boatzee bonus it would earn (yahtzee ruleset); their sum is
    how much the seat's total grows. They take no part in equality, so a client may post
    only the box and column; :meth:`Boatzee.act` refuses a Score whose figures are given but
    wrong, and the rules always recompute what the box receives.
    """

    box: Box
    column: int = 1
    points: int = field(default=0, compare=False)
    upper_bonus: int = field(default=0, compare=False)
    extra_bonus: int = field(default=0, compare=False)


BoatzeeAction = Reroll | Score

#: Every legal re-roll, in a fixed order: all non-empty sets of positions.
REROLLS: tuple[Reroll, ...] = tuple(
    Reroll(positions)
    for size in range(1, DICE + 1)
    for positions in combinations(range(DICE), size)
)


@dataclass(frozen=True, slots=True)
class BoatzeeState:
    """The whole game.

    ``rolls`` counts the rolls made or asked for this turn (0 until the first roll); the
    positions in ``rerolling`` are waiting for new faces. ``turns`` counts finished turns.
    """

    options: BoatzeeOptions
    cards: tuple[Card, ...]
    current: int = 0
    dice: tuple[int, ...] = ()
    rolls: int = 0
    rerolling: tuple[int, ...] = ()
    turns: int = 0


@dataclass(frozen=True, slots=True)
class CardSheet:
    """A card's figures as the scoresheet shows them, every one worked out by the rules.

    ``boxes[k - 1][i]``: the points box ``BOXES[i]`` of column k shows, multiplied by k (None
    while open); ``upper``: each column's unmultiplied Ones..Sixes total, which counts
    toward the upper bonus; ``upper_bonus``: each column's upper bonus (35 or 0);
    ``column_totals``: each column's boxes times its multiplier plus its upper bonus;
    ``extra_bonus``: the points of the extra five-of-a-kind bonuses (yahtzee ruleset).
    """

    boxes: tuple[tuple[int | None, ...], ...]
    upper: tuple[int, ...]
    upper_bonus: tuple[int, ...]
    column_totals: tuple[int, ...]
    extra_bonus: int


def card_sheet(card: Card) -> CardSheet:
    """The figures of ``card`` as its scoresheet shows them."""
    columns = range(1, card.columns + 1)
    return CardSheet(
        boxes=tuple(
            tuple(None if v is None else k * v for v in card.boxes[k - 1]) for k in columns
        ),
        upper=tuple(upper_total(card, k) for k in columns),
        upper_bonus=tuple(upper_bonus(card, k) for k in columns),
        column_totals=tuple(column_total(card, k) for k in columns),
        extra_bonus=EXTRA_BOATZEE_BONUS * card.extra_bonuses,
    )


@dataclass(frozen=True, slots=True)
class BoatzeeView:
    """What a seat sees: everything, since Boatzee has no hidden dice.

    ``sheets`` holds every card's derived figures (what the scoresheet shows) in seat order;
    ``upper_bonus_threshold`` is the unmultiplied upper total a column needs for its bonus.
    """

    seat: int | None
    options: BoatzeeOptions
    cards: tuple[Card, ...]
    totals: tuple[int, ...]
    current: int
    dice: tuple[int, ...]
    rerolls_left: int
    rerolling: tuple[int, ...]
    turns: int
    finished: bool
    sheets: tuple[CardSheet, ...]
    upper_bonus_threshold: int


def _turns_in_game(state: BoatzeeState) -> int:
    return len(state.cards) * len(BOXES) * state.options.columns


class Boatzee(Game[BoatzeeState, BoatzeeAction, BoatzeeOptions, BoatzeeView]):
    """Boatzee: five dice, three rolls a turn, one box filled every turn."""

    name = "boatzee"
    title = "Boatzee"
    min_seats = 1
    max_seats = 8
    options_type = BoatzeeOptions
    state_type = BoatzeeState
    view_type = BoatzeeView
    action_type = BoatzeeAction

    def start(self, seats: int, options: BoatzeeOptions) -> BoatzeeState:
        self.check_seats(seats)
        if not isinstance(options, BoatzeeOptions):
            raise InvalidOptions("Boatzee needs BoatzeeOptions")
        return BoatzeeState(options, tuple(empty_card(options.columns) for _ in range(seats)))

    def variant_title(self, options: BoatzeeOptions) -> str:
        """``Triple Boatzee (yahtzee rules)`` and the like."""
        return variant_title(options)

    def standing(self, state: BoatzeeState) -> Standing:
        """Each seat's score so far and the turn being played."""
        return Standing(tuple(total(card) for card in state.cards), state.turns + 1)

    def turn(self, state: BoatzeeState) -> Turn:
        if state.turns >= _turns_in_game(state):
            totals = tuple(total(card) for card in state.cards)
            best = max(totals)
            winners = tuple(i for i, t in enumerate(totals) if t == best)
            return Finished(Result(winners, totals, state.turns))
        if state.rolls == 0:
            return Chance(Roll(DICE))
        if state.rerolling:
            return Chance(Roll(len(state.rerolling)))
        return ToAct(state.current)

    def legal(self, state: BoatzeeState, seat: int) -> Sequence[BoatzeeAction]:
        if (
            seat != state.current
            or state.rolls == 0
            or state.rerolling
            or state.turns >= _turns_in_game(state)
        ):
            return ()
        card = state.cards[seat]
        ruleset = state.options.ruleset
        scores: list[BoatzeeAction] = [
            Score(box, column, *effects(card, state.dice, ruleset, box, column))
            for box, column in allowed(card, state.dice, ruleset, state.options.joker)
        ]
        if state.rolls < ROLLS_PER_TURN:
            scores.extend(REROLLS)
        return scores

    def act(self, state: BoatzeeState, seat: int, action: BoatzeeAction) -> BoatzeeState:
        """Apply ``seat``'s move, or raise IllegalMove and change nothing.

        A Score may leave out its figures (points and bonuses); figures that are given must
        be the ones ``legal`` lists, so no wrong number reaches the game's record.
        """
        if isinstance(action, Score) and _figures(action) != (0, 0, 0):
            for move in self.legal(state, seat):
                if move == action and isinstance(move, Score):
                    _check_figures(action, move)
        return super().act(state, seat, action)

    def why_illegal(self, state: BoatzeeState, seat: int, action: BoatzeeAction) -> str:
        if isinstance(action, Reroll):
            if state.rolls >= ROLLS_PER_TURN:
                return "no re-rolls left: you have rolled three times, so score a box"
            positions = action.positions
            if not isinstance(positions, tuple) or not positions:
                return "choose at least one die to re-roll"
            if (
                any(isinstance(p, bool) or not isinstance(p, int) for p in positions)
                or any(not 0 <= p < DICE for p in positions)
                or list(positions) != sorted(set(positions))
            ):
                return (
                    f"re-roll positions must be 0 to {DICE - 1}, each at most once, "
                    f"in increasing order, not {positions!r}"
                )
        elif isinstance(action, Score):
            options = state.options
            reason = why_not_allowed(
                state.cards[seat],
                state.dice,
                options.ruleset,
                action.box,
                action.column,
                options.joker,
            )
            if reason is not None:
                return reason
        else:
            return f"{action!r} is not a Boatzee move: re-roll some dice or score a box"
        return super().why_illegal(state, seat, action)  # pragma: no cover - all cases above

    def apply(self, state: BoatzeeState, seat: int, action: BoatzeeAction) -> BoatzeeState:
        if isinstance(action, Reroll):
            return replace(state, rolls=state.rolls + 1, rerolling=action.positions)
        options = state.options
        card = fill(
            state.cards[seat], state.dice, options.ruleset, action.box, action.column, options.joker
        )
        cards = (*state.cards[:seat], card, *state.cards[seat + 1 :])
        return replace(
            state,
            cards=cards,
            current=(seat + 1) % len(cards),
            dice=(),
            rolls=0,
            turns=state.turns + 1,
        )

    def apply_outcome(
        self, state: BoatzeeState, request: ChanceRequest, outcome: Outcome
    ) -> BoatzeeState:
        faces = tuple(int(f) for f in outcome)
        if state.rolls == 0:
            return replace(state, dice=faces, rolls=1)
        dice = list(state.dice)
        for position, face in zip(state.rerolling, faces, strict=True):
            dice[position] = face
        return replace(state, dice=tuple(dice), rerolling=())

    def view(self, state: BoatzeeState, seat: int | None) -> BoatzeeView:
        return BoatzeeView(
            seat=seat,
            options=state.options,
            cards=state.cards,
            totals=tuple(total(card) for card in state.cards),
            current=state.current,
            dice=state.dice,
            rerolls_left=ROLLS_PER_TURN - max(state.rolls, 1),
            rerolling=state.rerolling,
            turns=state.turns,
            finished=state.turns >= _turns_in_game(state),
            sheets=tuple(card_sheet(card) for card in state.cards),
            upper_bonus_threshold=UPPER_BONUS_THRESHOLD,
        )


def _figures(score: Score) -> tuple[int, int, int]:
    return score.points, score.upper_bonus, score.extra_bonus


def _check_figures(sent: Score, legal: Score) -> None:
    """Raise IllegalMove unless ``sent`` carries the figures of the legal move ``legal``."""
    for name in ("points", "upper_bonus", "extra_bonus"):
        given, right = getattr(sent, name), getattr(legal, name)
        if given != right:
            raise IllegalMove(
                f"{name.replace('_', ' ')} for this box is {right}, not {given!r}: send the "
                "figures the legal move lists, or only the box and column"
            )


GAME = Boatzee()
