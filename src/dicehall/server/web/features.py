"""The features the Features and tips page shows, each with a text, a tip and a screenshot.

The screenshots are ``static/features/NAME.jpg``, made in Chromium at phone width by
``tests/web/test_feature_screenshots.py`` (``make screenshots``), which reads this table; the
same test checks, on every run, that each feature has its picture and the page shows it.
"""

from __future__ import annotations

from dataclasses import dataclass

#: The size of every screenshot, in CSS pixels (a phone held upright).
SHOT_WIDTH = 390
SHOT_HEIGHT = 800


@dataclass(frozen=True)
class Feature:
    """One feature: its picture's name, its words, where it lives, and what to photograph."""

    name: str
    title: str
    text: str
    tip: str
    #: Where the reader finds it.
    link: str
    #: The page photographed, as a signed-in member ({game}: a Boatzee game against a bot).
    shot: str

    @property
    def image(self) -> str:
        """The picture's address."""
        return f"/static/features/{self.name}.jpg"


FEATURES: tuple[Feature, ...] = (
    Feature(
        "board",
        "Game boards",
        "Each game has its own board: the dice, what every choice would score, what happened "
        "since your last move and a move list of the whole game. It updates live when the "
        "others move.",
        "Every board plays from the keyboard; the shortcuts are listed under “Keys” below it.",
        "/new",
        "/games/{game}",
    ),
    Feature(
        "status",
        "Game status",
        "All your games on one page: those waiting on you first, the least time left first, "
        "then the ones waiting on others, with every score and the time left.",
        "The page's title starts with the number of games waiting on you, so a tab in the "
        "background shows it.",
        "/status",
        "/status",
    ),
    Feature(
        "new-game",
        "New game",
        "Pick a game, its house rules and the time per move, and who plays: bots, users you "
        "invite, or open seats for anyone.",
        "Leave a seat open and the game waits in the Waiting Room until someone takes it.",
        "/new",
        "/new/boatzee",
    ),
    Feature(
        "automatch",
        "Auto-Match",
        "One click asks for a game; the site seats you with players at the closest ratings, "
        "filling open seats in the waiting room first.",
        "Allow bots after a wait, and you never wait longer than you chose.",
        "/automatch",
        "/automatch",
    ),
    Feature(
        "ladders",
        "Ladders",
        "A ladder for each two-player game: challenge anyone within reach, and a win from "
        "below takes the loser's place.",
        "Going away? Ladder vacation pauses the clock that drops idle players.",
        "/ladders",
        "/ladders",
    ),
    Feature(
        "tournaments",
        "Tournaments",
        "Cups, Swiss tournaments and knockouts with live standings; a daily cup and a weekly "
        "Swiss for every game, or create your own.",
        "A buddies-only tournament is a private league among friends.",
        "/tournaments",
        "/tournaments",
    ),
    Feature(
        "ratings",
        "Ratings and leaderboards",
        "A rating for every game, charted on your profile, and leaderboards of the settled, "
        "active players.",
        "In Edit ratings you choose which ratings your profile shows.",
        "/ratings",
        "/ratings",
    ),
    Feature(
        "here",
        "Who is here?",
        "Who is online now and who was here lately, with what each is doing, your buddies first.",
        "Rather not be seen? Hide yourself in your settings, under Privacy.",
        "/here",
        "/here",
    ),
    Feature(
        "fair-dice",
        "Fair dice you can check",
        "Every die is pre-rolled, committed in a public log before it is used, and served in "
        "order; the faces of every finished game are counted against fair dice.",
        "A finished board's “Verify these dice” gives you the game's proof: check it with "
        "dicehall verify-game.",
        "/fairness",
        "/fairness",
    ),
    Feature(
        "graphics",
        "Your boards, your way",
        "Light, dark and high-contrast themes, dice as pips, numerals or large pips, board "
        "sizes, sounds and one-click moves; a change applies at once on every open page.",
        "The preview shows your dice as you change them.",
        "/settings#graphics",
        "/settings#graphics",
    ),
    Feature(
        "notices",
        "Notifications",
        "The bell counts what needs you; e-mail, web push and webhooks reach you away from "
        "the site.",
        "A daily digest is the default: one mail a day, at the hour you choose.",
        "/settings#notices",
        "/settings#notices",
    ),
)
