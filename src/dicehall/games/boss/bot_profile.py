"""The strategy profile of a Boss Dice bot, read off by asking it in every position.

A bot is asked once as the Boss for each public state and each showdown class his hand can
have (one hand of that class stands for all), and once as the opponent in each public state,
through the same views and legal moves the game gives it. The result is exact for a bot
that decides by the class of the Boss's hand and draws no random numbers (``odds``,
``heuristic``, and ``equilibrium``, whose equilibrium is pure); for any other it is one
sample of its play.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations_with_replacement

import numpy as np

from dicehall.engine.bots import Bot
from dicehall.games.boss.hand_game import HandGame, hand_game
from dicehall.games.boss.hands import Dice, boss_keep
from dicehall.games.boss.profiles import Profile
from dicehall.games.boss.rules import GAME, BossState, ComeUp, Keep

ProgressFn = Callable[[int, int], None]


def _first_roll_for(game: HandGame) -> dict[Dice, Dice]:
    """A first roll that makes each set of kept dice."""
    found: dict[Dice, Dice] = {}
    for roll in game.rolls:
        found.setdefault(boss_keep(roll), roll)
    return found


def _hand_for(game: HandGame, kept: Dice) -> dict[int, Dice]:
    """One concealed roll for each showdown class the Boss can reach from ``kept``."""
    found: dict[int, Dice] = {}
    for concealed in combinations_with_replacement(range(1, game.faces + 1), 5 - len(kept)):
        found.setdefault(game.hand_class(kept + concealed), concealed)
    return found


def bot_profile(bot: Bot, progress: ProgressFn | None = None) -> Profile:
    """The profile ``bot`` plays in the real hand (six faces, five dice)."""
    game = hand_game()
    first_roll = _first_roll_for(game)
    hands = {kept: _hand_for(game, kept) for kept in game.kept}
    come_up = np.zeros((game.n_states, len(game.classes)))
    keep = np.zeros((game.n_states, game.width))
    for state in range(game.n_states):
        kept = game.kept[int(game.state_kept[state])]
        roll = game.rolls[int(game.state_roll[state])]
        rolls = (first_roll[kept], roll)
        for cls, concealed in hands[kept].items():
            position = BossState(2, None, (0, 0), "call", rolls, boss=0, concealed=concealed)
            action = bot.choose(GAME.view(position, 0), GAME.legal(position, 0))
            come_up[state, cls] = 1.0 if isinstance(action, ComeUp) else 0.0
        # the opponent's view never holds the concealed dice, so any of them will do
        concealed = next(iter(hands[kept].values()))
        answer = BossState(2, None, (0, 0), "keep", rolls, boss=0, concealed=concealed)
        action = bot.choose(GAME.view(answer, 1), GAME.legal(answer, 1))
        assert isinstance(action, Keep)
        keep[state, game.legal_keeps(state).index(action.dice)] = 1.0
        if progress is not None and (state + 1) % 500 == 0:
            progress(state + 1, game.n_states)
    if progress is not None:
        progress(game.n_states, game.n_states)
    return Profile(come_up, keep)
