"""The equity bot: it bets, raises, calls and folds on its share of the pot."""

from __future__ import annotations

import random

from dicehall import games
from dicehall.games.holdem.bots import EquityBot
from dicehall.games.holdem.model import Bet, Call, Check, Fold, Raise
from dicehall.games.holdem.rules import GAME
from tests.games.holdem.scripted import ScriptedHand


def river(bot_pocket: str, board: str) -> ScriptedHand:
    """Two seats checked down to the river; the bot sits at seat 0 and acts second."""
    hand = ScriptedHand(2, max_flop_rerolls=0)
    hand.pockets(s1="3y,3w", s0=bot_pocket)
    for dice in (board[:8], board[9:11], board[12:14]):
        hand.act(1, Check())
        hand.act(0, Check())
        hand.dice(dice)
    assert hand.state.street == "river"
    return hand


def decide(hand: ScriptedHand) -> object:
    bot = EquityBot(random.Random(1))
    return bot.choose(GAME.view(hand.state, 0), GAME.legal(hand.state, 0))


def test_the_nuts_bets_and_raises_the_most() -> None:
    hand = river("6r,1r", "2r,3r,4r,6k,5w")  # a flush nobody else can make
    hand.act(1, Check())
    assert decide(hand) == Bet(20)
    hand = river("6r,1r", "2r,3r,4r,6k,5w")
    hand.act(1, Bet(10))
    assert decide(hand) == Raise(20)


def test_a_hopeless_hand_folds_to_a_bet_and_checks_otherwise() -> None:
    hand = river("1k,2w", "6r,6k,6w,5y,4r")  # the board plays; it can only tie
    hand.act(1, Check())
    assert decide(hand) == Check()
    hand = river("1k,2w", "6r,6k,6w,5y,4r")
    hand.act(1, Bet(20))
    assert decide(hand) == Fold()


def test_a_fair_hand_calls_when_the_pot_pays_for_it() -> None:
    hand = river("1k,1w", "6r,6k,6w,6y,5r")  # a share of about 0.35 against 10 into 30
    hand.act(1, Bet(10))
    assert decide(hand) == Call()


def test_the_registry_offers_random_equity_and_cfr() -> None:
    entry = games.get("holdem")
    assert sorted(entry.bots) == ["cfr", "equity", "random"]
    assert isinstance(entry.bot("equity", random.Random(0)), EquityBot)
    assert "Yahtzee flush" in entry.rules
