"""Become a member: what an account gives, that all of it is free, and the limits that apply,
each read from the code or the site's settings that enforce it (never written twice)."""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from dicehall.server.core.config import Settings
from dicehall.server.domain import account_checks, vacation
from dicehall.server.domain.automatch import tickets
from dicehall.server.domain.games import quotas
from dicehall.server.domain.people import invites, message_checks, relations
from dicehall.server.domain.ratings import ladders
from dicehall.server.domain.reliability import limits_of
from dicehall.server.domain.tournaments import create as tournament_create
from dicehall.server.domain.tournaments import entry as tournament_entry
from dicehall.server.web.common import services_of, visitor
from dicehall.server.web.render import page

router = APIRouter(include_in_schema=False)


@dataclass(frozen=True)
class Limit:
    """One limit as the page states it: what it bounds, and the bound in words."""

    what: str
    most: str


def _days(seconds: float) -> str:
    days = round(seconds / vacation.DAY)
    return f"{days} day{'s' if days != 1 else ''}"


def limits(settings: Settings) -> list[tuple[str, list[Limit]]]:
    """The limits a member meets, by subject, as this site enforces them now."""
    games = limits_of(settings)
    young = round(message_checks.YOUNG_FOR.total_seconds() / vacation.DAY)
    return [
        (
            "Games",
            [
                Limit("Games in progress at once", str(games.active)),
                Limit("Games waiting for players that you created or sit in", str(games.open)),
                Limit("New games you create in a minute", str(quotas.CREATES_PER_MINUTE)),
                Limit("Games you join in a minute", str(quotas.JOINS_PER_MINUTE)),
                Limit(
                    "Unanswered invitations from you to one player",
                    str(quotas.PENDING_INVITES_TO_ONE_USER),
                ),
                Limit("Auto-Match requests waiting at once", str(tickets.MOST_WAITING)),
                Limit(
                    "Your own open challenges on each ladder",
                    f"{ladders.MOST_OPEN}, within {ladders.REACH} places of you",
                ),
                Limit("Tournaments you play in at once", str(tournament_entry.MOST_JOINED)),
                Limit(
                    "Tournaments you created that have not started",
                    str(tournament_create.MOST_OPEN_CREATED),
                ),
            ],
        ),
        (
            "Invitations and messages",
            [
                Limit(
                    "Invite links (Tell a friend!) you make in a day",
                    f"{invites.PER_DAY}, each good for {invites.LIFETIME.days} days",
                ),
                Limit(
                    "New conversations you start in a day",
                    f"{message_checks.NEW_THREADS_YOUNG} in your account's first {young} days, "
                    f"then {message_checks.NEW_THREADS}",
                ),
                Limit("Characters in a message", str(message_checks.BODY_MOST)),
                Limit("Buddies, and people on your ignore list", f"{relations.MOST} of each"),
            ],
        ),
        (
            "Time",
            [
                Limit(
                    "Vacation",
                    f"{_days(vacation.SIGN_UP_ALLOWANCE)} when you sign up, "
                    f"{_days(vacation.MONTHLY_ALLOWANCE)} more every "
                    f"{_days(vacation.MONTH)}, at most {_days(vacation.MOST_ALLOWANCE)}",
                ),
                Limit("Staying signed in on a device", _days(settings.session_days * vacation.DAY)),
                Limit("API tokens for your programs", str(account_checks.TOKENS_PER_USER)),
            ],
        ),
    ]


@router.get("/member", response_class=HTMLResponse)
def member_page(request: Request) -> HTMLResponse:
    """Become a member: what an account gives, free, and its limits."""
    who = visitor(request)
    return page(
        request,
        "member.html",
        user=who.user,
        csrf=who.csrf,
        limits=limits(services_of(request).settings),
    )
