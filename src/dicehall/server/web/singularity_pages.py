"""Singularity, the site's pulse, for visitors and members: the counts now and the latest
moments worth a look (``domain.singularity``). The page is whole without scripts;
static/js/singularity.js follows the site's pushes and fetches the page again when a game
or a tournament ends (and every minute for the counts), announcing new moments politely."""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from dicehall.server.domain.singularity import feed, pulse
from dicehall.server.web.common import services_of, visitor
from dicehall.server.web.moments import Moment, ago
from dicehall.server.web.render import page

router = APIRouter(include_in_schema=False)

#: Seconds between the page's own refreshes of the counts (pushes bring the moments).
REFRESH_SECONDS = 60

#: How each kind of moment is tagged on the page.
TAGS = {
    "boatzee": "Boatzee",
    "turn": "Big turn",
    "pot": "Big pot",
    "flush": "Yahtzee flush",
    "bullseye": "Bull's Eye",
    "record": "Record",
    "tournament": "Tournament",
}


@dataclass(frozen=True)
class Shown:
    """A moment as the page shows it: who (linked to their profile when a member), what,
    where (a game or a tournament, linked), and when."""

    id: int
    tag: str
    what: str
    name: str
    user_id: str | None
    text: str
    #: "in" before a game's name; nothing before a tournament's.
    joiner: str
    place: str
    href: str
    when: Moment


def shown(moment: feed.Moment) -> Shown:
    """A moment for the page."""
    if moment.game is not None:
        joiner, place, href = "in", f"{moment.title} #{moment.game}", f"/games/{moment.game}"
    else:
        joiner, place, href = "", f"“{moment.title}”", f"/tournaments/{moment.tournament}"
    return Shown(
        moment.id,
        TAGS.get(moment.what, moment.what.replace("_", " ").capitalize()),
        moment.what,
        moment.player.name,
        moment.player.user_id,
        moment.text,
        joiner,
        place,
        href,
        Moment(moment.at.isoformat(), ago(moment.at)),
    )


@router.get("/singularity", response_class=HTMLResponse)
def singularity_page(request: Request) -> HTMLResponse:
    """The site's pulse: the counts now, and the latest moments worth a look."""
    who = visitor(request)
    services = services_of(request)
    with services.read_conn() as conn:
        found = pulse.pulse(conn, services, who.user)
    return page(
        request,
        "singularity.html",
        user=who.user,
        csrf=who.csrf,
        counts=found.counts,
        moments=[shown(m) for m in found.moments],
        refresh=REFRESH_SECONDS,
    )
