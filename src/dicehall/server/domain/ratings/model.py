"""The rating model: openskill's Bradley-Terry ("full pairing"), which treats a shared place
as a draw between those who share it, with a performance noise (beta) and a per-game drift
(tau) for each rating kind, chosen by ``bench/ratings_calibrate.py``: beta is the maximum
likelihood fit to leagues of the games' bots, so it measures how much luck each game holds
(Boss Dice 15, the Boatzees about 2; openskill's default is 4.2).

Pure functions, no database: the site, the rebuild and the calibration all rate through
:func:`rate`, so they agree to the last bit.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from openskill.models import BradleyTerryFull

from dicehall.server.domain.ratings import kinds

#: Every rating starts here (openskill's defaults).
MU = 25.0
SIGMA = 25.0 / 3


@dataclass(frozen=True)
class KindConstants:
    """The model's constants for one rating kind."""

    beta: float
    tau: float


#: Version of the constants: a change of constants is a new version, and ``dicehall ratings
#: rebuild`` replays every rated game with the constants of the version in force. Each kind's
#: beta and tau are declared with it on its game's entry
#: (:class:`dicehall.games.rating.RatingKindSpec`); dicehall's own are from ``python
#: bench/ratings_calibrate.py`` (defaults: seed 1, 1000 games per player, 3 players per
#: strength tier; run 2026-11-23, figures in docs/site-ratings.md "Calibration"): beta is the
#: maximum-likelihood fit to leagues of the games' bots, rounded to two figures; tau = beta /
#: 50, openskill's own ratio (bots never change, so the back-test cannot choose tau). A kind
#: nobody calibrated (a plug-in game's) has openskill's default beta, 4.2. Version 1 was
#: openskill's defaults for every kind (beta 25/6, tau 25/300).
CONSTANTS_VERSION = 2


def constants(kind: str) -> KindConstants:
    """The model's constants for rating kind ``kind`` (KeyError for an unknown kind)."""
    found = kinds.spec(kind)
    if found is None:
        raise KeyError(f"{kind!r} is no rating kind")
    return KindConstants(beta=found.beta, tau=found.tau)


#: Inactivity widens sigma again: this much variance a day without a rated game (a settled
#: rating of sigma 2 is back to provisional after about a year and a half away).
INACTIVE_VARIANCE_PER_DAY = 0.01
#: A rating is provisional below this many rated games, or while sigma is above this.
PROVISIONAL_GAMES = 10
PROVISIONAL_SIGMA = 4.0
#: ... or above this share of the kind's beta, when that is higher (see :func:`settled_sigma`).
SETTLED_SHARE = 0.4


@dataclass(frozen=True)
class Skill:
    """A rating: openskill's mu (the estimate) and sigma (its uncertainty)."""

    mu: float = MU
    sigma: float = SIGMA


@cache
def _model(kind: str, drift: bool = True) -> BradleyTerryFull:
    found = constants(kind)
    return BradleyTerryFull(beta=found.beta, tau=found.tau if drift else 0.0)


def rate(
    kind: str, skills: Sequence[Skill], places: Sequence[int], *, drift: bool = True
) -> list[Skill]:
    """Each seat's skill after one game where seat i finished at ``places[i]`` (1 is first;
    equal places are a tie). ``drift=False`` rates players whose strength never changes
    (bots): no per-game drift, so sigma keeps shrinking with every game."""
    if len(skills) != len(places) or len(skills) < 2:
        raise ValueError("a rated game has one place per seat and two seats or more")
    model = _model(kind, drift)
    teams = [[model.rating(mu=s.mu, sigma=s.sigma)] for s in skills]
    rated = model.rate(teams, ranks=[float(p) for p in places])
    return [Skill(team[0].mu, team[0].sigma) for team in rated]


def win_chances(kind: str, skills: Sequence[Skill]) -> list[float]:
    """Each seat's chance to finish first, from the Bradley-Terry probabilities the update
    itself uses: seat i beats seat j with ``logistic((mu_i - mu_j) / c)``, ``c`` = sqrt(2
    beta^2 + sigma_i^2 + sigma_j^2); with more seats, each seat's product of its pairwise
    chances, normalised. (openskill's ``predict_win`` was overconfident with dice: in the
    calibration leagues it gave Boss favourites 75% who won 66%; these gave 67%.)"""
    beta = constants(kind).beta
    strengths = []
    for i, mine in enumerate(skills):
        product = 1.0
        for j, theirs in enumerate(skills):
            if i != j:
                c = math.sqrt(2 * beta**2 + mine.sigma**2 + theirs.sigma**2)
                product /= 1.0 + math.exp(-(mine.mu - theirs.mu) / c)
        strengths.append(product)
    total = sum(strengths)
    return [value / total for value in strengths]


def widened(skill: Skill, idle_days: float) -> Skill:
    """``skill`` after ``idle_days`` without a rated game (sigma grows back, capped)."""
    variance = skill.sigma**2 + INACTIVE_VARIANCE_PER_DAY * max(0.0, idle_days)
    return Skill(skill.mu, min(SIGMA, math.sqrt(variance)))


def shown(skill: Skill) -> int:
    """The rating as people see it: 1500 at the start, 40 points per unit of mu."""
    return round(1500 + 40 * (skill.mu - MU))


def conservative(skill: Skill) -> float:
    """What leaderboards rank by: mu - 2 sigma (the rating the player is very likely above)."""
    return skill.mu - 2 * skill.sigma


def settled_sigma(kind: str | None) -> float:
    """The sigma below which a rating of ``kind`` counts as settled. Sigma settles near a
    third of beta, so a luck-heavy kind (Boss Dice, beta 15) never gets below a fixed 4:
    its bar is ``SETTLED_SHARE * beta`` when that is higher."""
    found = None if kind is None else kinds.spec(kind)
    if found is None:
        return PROVISIONAL_SIGMA
    return max(PROVISIONAL_SIGMA, SETTLED_SHARE * found.beta)


def provisional(skill: Skill, games: int, kind: str | None = None) -> bool:
    """Too few games, or too uncertain still, for the number to mean much ("1540?")."""
    return games < PROVISIONAL_GAMES or skill.sigma > settled_sigma(kind)


def places_of(order: Sequence[Sequence[int]], seats: int) -> list[int]:
    """Places per seat from groups of seats, best group first (a group shares its place:
    competition ranking, 1, 2, 2, 4)."""
    places = [0] * seats
    next_place = 1
    for group in order:
        for seat in group:
            places[seat] = next_place
        next_place += len(group)
    if 0 in places:
        raise ValueError("every seat needs a place")
    return places
