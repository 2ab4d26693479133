"""The "Bots" page: every game's bots, what each does and how strong the bot ladder found it."""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from dicehall import games
from dicehall.games import strengths
from dicehall.server.domain.ratings import kinds
from dicehall.server.web.common import visitor
from dicehall.server.web.render import page

router = APIRouter(include_in_schema=False)


@dataclass(frozen=True)
class BotRow:
    """One bot as the page lists it: its note, and its figures where they were measured."""

    name: str
    note: str
    strength: strengths.BotStrength | None


@dataclass(frozen=True)
class GameBots:
    """One game's bots: on each of its ladders (strongest first), or by note alone."""

    game: str
    title: str
    ladders: list[tuple[strengths.KindLadder, str, list[BotRow]]]
    unmeasured: list[BotRow]


def game_bots(name: str) -> GameBots:
    """A game's bots with their notes, grouped by the ladders that measured them."""
    entry = games.get(name)
    notes = dict(entry.ranked_bots())
    ladders = []
    for ladder in strengths.ladders_of(name):
        rows = [BotRow(s.bot, notes[s.bot], s) for s in ladder.bots if s.bot in notes]
        spec = kinds.spec(ladder.kind)
        ladders.append((ladder, entry.title if spec is None else spec.title, rows))
    measured = {row.name for _, _, rows in ladders for row in rows}
    unmeasured = [BotRow(bot, note, None) for bot, note in notes.items() if bot not in measured]
    return GameBots(name, entry.title, ladders, unmeasured)


@router.get("/bots", response_class=HTMLResponse)
def bots_page(request: Request) -> HTMLResponse:
    """Every game's bots, strongest first, with the ratings and win shares behind the order."""
    who = visitor(request)
    return page(
        request,
        "bots.html",
        user=who.user,
        csrf=who.csrf,
        games_bots=[game_bots(name) for name in games.available()],
    )
