"""The Info pages: the Game Rules index (each game's page is ``info_pages``'s ``/rules/GAME``)
and Features and tips (the table in :mod:`~dicehall.server.web.features`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from dicehall import games
from dicehall.engine.options import option_text
from dicehall.server.web.common import visitor
from dicehall.server.web.features import FEATURES, SHOT_HEIGHT, SHOT_WIDTH
from dicehall.server.web.render import page

router = APIRouter(include_in_schema=False)


@dataclass(frozen=True)
class Variant:
    """A game played with some options that has a name of its own (Double Boatzee)."""

    title: str
    #: How the new-game form chooses it ("Variant: Double Boatzee (2 columns)").
    chosen_by: str


@dataclass(frozen=True)
class GameRules:
    """A game as the rules index lists it."""

    name: str
    title: str
    blurb: str
    variants: tuple[Variant, ...]


def _chosen_by(options_type: type[Any], options: Mapping[str, Any]) -> str:
    fields = {f.name: f for f in dataclasses.fields(options_type)}
    words = []
    for key, value in options.items():
        text = option_text(fields[key])
        shown = dict(text.choices).get(str(value), str(value))
        words.append(f"{text.label}: {shown}")
    return "; ".join(words)


def rules_index() -> list[GameRules]:
    """Every game, with the variants its rating kinds name (a game with one kind has none)."""
    listed = []
    for name in games.available():
        entry = games.get(name)
        kinds = entry.rating_kinds or ()
        if len(kinds) < 2:
            kinds = ()
        variants = tuple(
            Variant(kind.title, _chosen_by(entry.game.options_type, kind.options)) for kind in kinds
        )
        listed.append(GameRules(name, entry.title, entry.blurb, variants))
    return listed


@router.get("/rules", response_class=HTMLResponse)
def rules_page(request: Request) -> HTMLResponse:
    """Game Rules: every game, its variants, and how the dice are made."""
    who = visitor(request)
    return page(request, "rules_index.html", user=who.user, csrf=who.csrf, rules=rules_index())


@router.get("/features", response_class=HTMLResponse)
def features_page(request: Request) -> HTMLResponse:
    """Features and tips, each with a screenshot taken at phone width."""
    who = visitor(request)
    return page(
        request,
        "features.html",
        user=who.user,
        csrf=who.csrf,
        features=FEATURES,
        shot_width=SHOT_WIDTH,
        shot_height=SHOT_HEIGHT,
    )
