"""Boss Dice told in sentences where a Boss keeps all five dice (a full house, five of a
kind): the roll under the cup holds no dice, and the story says so rather than naming none."""

from __future__ import annotations

from dicehall.engine.events import Resolved
from dicehall.games.boss.narration import narrate
from dicehall.games.boss.rules import GAME, BossState
from dicehall.games.narration import Unseen

NAMES = ("alice", "bob")


def test_a_boss_who_keeps_all_five_rolls_nothing_under_the_cup() -> None:
    rolls = ((6, 6, 6, 2, 2), (3, 3, 1, 2, 4))
    before = BossState(2, None, (0, 0), "boss_roll", rolls, boss=0)
    after = GAME.resolve(before, ())
    assert after.phase == "call" and len(after.boss_kept) == 5
    for seat, event in ((0, Resolved(())), (1, Unseen(0)), (None, Unseen(0))):
        lines = narrate(GAME.view(before, seat), event, GAME.view(after, seat), NAMES)
        assert [line.text for line in lines] == [
            "alice rolls nothing under the cup: all five dice are kept."
        ], seat
