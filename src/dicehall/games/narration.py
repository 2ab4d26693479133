"""Telling a game as sentences: the lines a game's narrator writes, and the words they share.

Each game says what happened in one place, its ``narration`` module (named by the entry's
``narration``): a :data:`Narrator` turns one event into :class:`Line` objects, reading only
the watcher's views before and after it and the event as the watcher may see it (a chance
outcome the watcher may not see arrives as :class:`Unseen`). The site's move list and "since
your last move" are built from these lines; the terminal shares the words below.

The player at the keyboard (or the page's own seat) is named ``You``; the verbs after that
name agree with it ("You roll", "alice rolls"). Phrases are written in the third person
("rolls 3 dice", "calls 10 and raises 10") and :func:`agree` turns them round for ``You``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from dicehall.engine.events import Acted, Resolved

_NUMBER_WORDS = ("no", "one", "two", "three", "four", "five", "six")

#: The name of the single human at the keyboard (or the page's own seat).
YOU = "You"


@dataclass(frozen=True, slots=True)
class Line:
    """One sentence of a game's story: about ``seat`` (None: the table), showing ``dice``
    (faces, or a game's notation such as ``"6r"``) exactly as the sentence names them."""

    text: str
    seat: int | None = None
    dice: tuple[int | str, ...] = ()


@dataclass(frozen=True, slots=True)
class Unseen:
    """A chance outcome the watcher may not see (yet): only how many dice or draws."""

    count: int


SeenEvent = Acted | Resolved | Unseen
"""An event as one watcher may see it."""

Narrator = Callable[[Any, SeenEvent, Any, Sequence[str]], list[Line]]
"""``(view before, event as seen, view after, names) -> lines``, from one watcher's views."""


# -- words ---------------------------------------------------------------------------------------

_BASE_FORMS = {"is": "are", "has": "have", "was": "were", "does": "do", "goes": "go"}
_PLURALS = {"die": "dice"}
_SIBILANT_ENDINGS = ("sses", "shes", "ches", "xes", "zes", "oes")


def is_you(name: str) -> bool:
    """True for the player at the keyboard."""
    return name == YOU


def base_form(verb: str) -> str:
    """A third-person verb as it follows ``You``: rolls -> roll, is -> are, goes -> go."""
    if verb in _BASE_FORMS:
        return _BASE_FORMS[verb]
    if verb.endswith(_SIBILANT_ENDINGS):
        return verb[:-2]
    return verb.removesuffix("s")


def agree(name: str, phrase: str) -> str:
    """``phrase`` (third person) agreeing with ``name``: its first word and every word after
    "and" are the verbs ("calls 10 and raises 10" -> "call 10 and raise 10" after You)."""
    if not is_you(name):
        return phrase
    words = phrase.split(" ")
    for i, word in enumerate(words):
        if i == 0 or words[i - 1] == "and":
            words[i] = base_form(word)
    return " ".join(words)


def does(name: str, phrase: str) -> str:
    """``name`` and ``phrase`` in agreement: "alice rolls", "You roll"."""
    return f"{name} {agree(name, phrase)}"


def whose(name: str) -> str:
    """The possessive: "Your", "alice's"."""
    return "Your" if is_you(name) else f"{name}'s"


def together(names: Iterable[str]) -> str:
    """Several names as one subject: "alice and bob"."""
    return " and ".join(names)


def noun(count: int, singular: str) -> str:
    """``singular`` or its plural, for ``count`` things: die/dice, chip/chips."""
    if count == 1:
        return singular
    return _PLURALS.get(singular, singular + "s")


def number_word(count: int) -> str:
    """A small count in words ("no", "one" ... "six"), larger ones in figures."""
    return _NUMBER_WORDS[count] if 0 <= count < len(_NUMBER_WORDS) else str(count)


def faces_counted(count: int, face: int) -> str:
    """So many dice of one face in words: "no 4", "one 4", "two 4s"."""
    return f"{number_word(count)} {face}" + ("s" if count > 1 else "")


def counted(count: int, singular: str) -> str:
    """A number and its noun in agreement: "1 die", "2 dice", "0 chips"."""
    return f"{count} {noun(count, singular)}"


def faces(dice: Sequence[int], sep: str = ",") -> str:
    """Dice faces as plain text: "1,5,5" (or with another separator)."""
    return sep.join(str(d) for d in dice)


def listing(items: Sequence[str]) -> str:
    """Items as prose: "a", "a and b", "a, b and c"."""
    if len(items) <= 2:
        return " and ".join(items)
    return f"{', '.join(items[:-1])} and {items[-1]}"


# -- the end of a game, in one format for every game --------------------------------------------


def final_lines(
    winners: Sequence[int], scores: Sequence[int], names: Sequence[str], unit: str
) -> list[Line]:
    """The last words of every game: each seat's final score in the game's ``unit``
    ("point", "horse", "chip"), then who won or shared the win."""
    standing = ", ".join(
        f"{name} {score:,} {noun(abs(score), unit)}"
        for name, score in zip(names, scores, strict=True)
    )
    won = [names[w] for w in winners]
    if len(won) == 1:
        verdict = f"{won[0]} won."
    elif len(won) == len(names):
        verdict = "A draw: everyone shared the win."
    else:
        verdict = f"{listing(won)} shared the win."
    # Names keep their own case ("odds bot wins."): a user id is not a word to capitalise.
    return [Line(f"Final: {standing}."), Line(verdict)]


def generic_narrate(before: Any, event: SeenEvent, after: Any, names: Sequence[str]) -> list[Line]:
    """The narrator of a game without one: who took which action, which dice came up."""
    del before, after
    if isinstance(event, Acted):
        name = names[event.seat] if 0 <= event.seat < len(names) else f"seat {event.seat + 1}"
        return [Line(does(name, f"plays {type(event.action).__name__}") + ".", event.seat)]
    if isinstance(event, Unseen):
        return [Line(f"{counted(event.count, 'die')} rolled out of sight.")]
    shown: tuple[int | str, ...] = tuple(event.outcome)
    return [Line(f"The dice: {' '.join(map(str, shown))}.", None, shown)]
