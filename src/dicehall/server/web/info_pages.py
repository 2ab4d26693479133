"""The pages anyone may read: home, a game's rules, fairness (profiles: ``profile_pages``)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from dicehall import games
from dicehall.engine.errors import InvalidInput
from dicehall.server.domain.dice import fairness
from dicehall.server.domain.people import here
from dicehall.server.web.common import not_found, services_of, visitor
from dicehall.server.web.markdown import rules_html
from dicehall.server.web.presence_pages import counts_sentence, span_words
from dicehall.server.web.render import page

router = APIRouter(include_in_schema=False)


@router.get("/", response_class=HTMLResponse)
def home(request: Request) -> HTMLResponse:
    """What the site is, the games, how to start, and how many are here (counts only)."""
    who = visitor(request)
    services = services_of(request)
    online, recent = here.counts(services)
    return page(
        request,
        "home.html",
        user=who.user,
        csrf=who.csrf,
        blurbs={name: games.get(name).blurb for name in games.available()},
        here_counts=counts_sentence(
            online, recent, span_words(services.settings.presence_recent_seconds)
        ),
    )


@router.get("/rules/{game}", response_class=HTMLResponse)
def rules(request: Request, game: str) -> HTMLResponse:
    """A game's rules as dicehall implements them."""
    who = visitor(request)
    try:
        entry = games.get(game)
    except InvalidInput:
        return not_found(request, who, f"There is no game called {game!r}.")
    return page(
        request,
        "rules.html",
        user=who.user,
        csrf=who.csrf,
        game=entry.name,
        title=entry.title,
        body=rules_html(entry.name, entry.rules_for("site")),
    )


@router.get("/fairness", response_class=HTMLResponse)
def fairness_page(request: Request) -> HTMLResponse:
    """The public log's head, how to check a game, face counts of finished games with the
    chi-square test, and every batch's commitment."""
    who = visitor(request)
    with services_of(request).sessions() as db:
        report = fairness.fairness_report(db)
    counts = report["finished"]["counts"]
    dice = report["finished"]["dice"]
    return page(
        request,
        "fairness.html",
        user=who.user,
        csrf=who.csrf,
        report=report,
        faces=[(face, counts[str(face)]) for face in range(1, 7)],
        expected=dice / 6 if dice else 0,
        base=str(request.base_url).rstrip("/"),
    )
