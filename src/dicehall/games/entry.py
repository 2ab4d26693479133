"""What a game package declares: one :class:`GameEntry` that every surface reads.

A game package ``dicehall.games.<name>`` (or any installed package) exports ``ENTRY``: the
Game, its title, its bots, the bots that think long, its seat hint, its blurb, its rules
text, and every other per-game hook: its rating kinds, its measure of luck, its
reinforcement-learning encoder, its terminal screen and commands, what its public log hides,
what in a finished game is worth a look.
The CLI, the API, the pages, the boards, the ratings and the RL wrappers read the entry;
every table of games is derived from the installed entries, and nothing registers itself by
being imported. Games are found through the ``dicehall.games`` entry-point group (see
:func:`dicehall.games.available`).

Importing an entry must stay cheap: bots and hints often need solvers (NumPy, SciPy, Numba),
so they (and every other hook that is code) are named here as ``"module:attribute"`` and
imported on first use.
"""

from __future__ import annotations

import dataclasses
import importlib
import random
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Literal

from dicehall.engine.bots import Bot, BotFactory, RandomBot, SlowBot
from dicehall.engine.errors import InvalidInput
from dicehall.engine.game import Game, Result
from dicehall.engine.options import option_text
from dicehall.games.luck import LuckMeasure
from dicehall.games.rating import RatingKindSpec

#: Where a game's rules are shown: the site's pages, or the terminal (`dicehall rules`).
Surface = Literal["site", "terminal"]
#: Where in ``rules.md`` the options table goes, written for each surface.
OPTIONS_MARK = "<!-- options -->"

#: What every game's ``random`` bot does.
RANDOM_NOTE = "Any legal move at random: for learning the rules."

SeatHint = Callable[[Any, Sequence[Any]], dict[str, Any]]
"""A seat's hint, ``(view, legal) -> JSON``, worked out from that seat's view only."""

FastPlay = Callable[[Sequence[str], Any, int], Result | None]
"""``(bots, options, dice seed) -> Result``: the result the engine would reach with these
bots and ``Seeded(dice seed)`` dice, or None for a line-up it does not play."""


def load(reference: str) -> Any:
    """The object a ``"module:attribute"`` reference names (the module imported now)."""
    module_name, _, attribute = reference.partition(":")
    if not module_name or not attribute:
        raise ValueError(f"{reference!r} is not of the form 'module:attribute'")
    return getattr(importlib.import_module(module_name), attribute)


class LazyBots(Mapping[str, BotFactory]):
    """Bot factories by name (``name -> attribute of module``), the module imported when a
    bot is first asked for. An attribute of ``""`` is :class:`RandomBot`."""

    def __init__(self, module: str, names: Mapping[str, str]) -> None:
        self.module = module
        self._names = dict(names)

    def with_random(self) -> LazyBots:
        """These bots and ``random``, every game's uniformly random legal player."""
        return LazyBots(self.module, {"random": "", **self._names})

    def __getitem__(self, name: str) -> BotFactory:
        attribute = self._names[name]
        if not attribute:
            return RandomBot
        factory: BotFactory = getattr(importlib.import_module(self.module), attribute)
        return factory

    def __contains__(self, name: object) -> bool:
        # Mapping's own test looks the bot up, which would import its module.
        return name in self._names

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)


@dataclass(frozen=True)
class GameEntry:
    """A game with what surrounds it: bots by name, hints, blurb, the rules as implemented."""

    name: str
    game: Game[Any, Any, Any, Any]
    bots: Mapping[str, BotFactory]
    #: The rules in Markdown; None: the package's ``rules.md``.
    rules_text: str | None = None
    #: Bots whose decisions can take long (solver tables, simulations), by name.
    slow_bots: Mapping[str, SlowBot] = field(default_factory=dict)
    #: One sentence for the game's card on the home page.
    blurb: str = ""
    #: ``"module:function"`` of the seat hint (a :data:`SeatHint`), or None for no hints.
    hint: str | None = None
    #: ``"module:function"`` of the narrator (a ``dicehall.games.narration.Narrator``) that
    #: tells each event in sentences; None: a generic one.
    narration: str | None = None
    #: What the result's scores count, singular: "point", "horse", "chip".
    score_unit: str = "point"
    #: One line about each bot, weakest first (the order players choose from).
    bot_notes: Mapping[str, str] = field(default_factory=dict)
    #: The bot that plays a person's seat after a timeout or a resignation (the site's
    #: autopilot in games of three or more seats).
    autopilot: str = "heuristic"
    #: ``"module:function"`` that makes the rules' own tables ready (read from the data
    #: directory or built), run by the site in the background at start-up so that no move
    #: waits for them; None: the rules need none.
    warm: str | None = None
    #: ``"module:function"``, ``(report or None) -> None``: from now on, this process's
    #: table builds for the game's slow bots tell ``report(fraction done)`` how they go
    #: (None: stop), so a warm-up's estimate follows the build; None: no progress to tell.
    progress: str | None = None
    #: ``"module:function"`` of a :data:`FastPlay` that plays some bot line-ups of a whole
    #: game faster than the engine, with the same result; ``dicehall sim`` uses it when it
    #: answers. None: the engine plays every game.
    fast_play: str | None = None
    #: The game's name as people read it ("Bull's Eye"); empty: the Game's own ``title``.
    title: str = ""
    #: The rating kinds its games count for, in the site's order (see
    #: :class:`~dicehall.games.rating.RatingKindSpec`). None: one kind named as the game,
    #: titled by :attr:`title`, with the default constants and no ladder; empty: never rated.
    rating_kinds: Sequence[RatingKindSpec] | None = None
    #: ``"module:function"``, ``options -> kind name | None``, that chooses the rating kind
    #: of a game from its options; None: the first kind whose ``options`` they match.
    rating_kind_of: str | None = None
    #: ``"module:attribute"`` of its :class:`~dicehall.games.luck.LuckMeasure`; None: no
    #: luck report (the game's dice are not a player's own rolls).
    luck: str | None = None
    #: ``"module:function"``, ``(seats, options) -> dicehall.rl.encoding.Encoding``: the
    #: actions' numbers and the observation vector for reinforcement learning; None: the game
    #: has no RL wrappers.
    encoder: str | None = None
    #: The items its bags hold (``Draw`` chance requests), in the order OpenSpiel numbers
    #: them after the six faces; empty: the game only rolls dice.
    alphabet: tuple[str, ...] = ()
    #: ``"module:class"`` of its terminal screen (a ``dicehall.cli.screens.base.Screen``);
    #: None: the generic screen, which lists the view and the legal actions.
    screen: str | None = None
    #: The module of its own commands (``score``, ``odds``, ``hint``, ``solve``): it has
    #: ``register(groups)``, and may have ``prepare()`` (run before play and simulations);
    #: None: the game has ``play``, ``sim`` and ``rules`` only.
    commands: str | None = None
    #: ``"module:function"``, ``(options, seats, events, seat) -> indices``: the chance
    #: outcomes a seat (None: a spectator) may not see yet; None: everything is seen.
    hidden_from: str | None = None
    #: ``"module:function"``, ``(options, seats, events) -> indices``: the outcomes never
    #: shown to the table by the end (kept out of the public log); None: none.
    hidden_outcomes: str | None = None
    #: Whether the game draws dice from a bag (Hold'em): the site's decks for it then hold
    #: committed bag shuffles as well as dice keys.
    bag: bool = False
    #: ``"module:function"``, ``played -> highlights``: what was worth a look in a finished
    #: game (see :mod:`dicehall.games.highlights`); None: the game has no highlights.
    highlights: str | None = None
    #: The version of its rules that new games are played under (each game remembers its
    #: own; see :meth:`rulings`).
    rules_version: int = 1
    #: For each older rules version, the options that bring back that version's rulings
    #: (``{1: {"lead_bets": True}}``): an old game is played and replayed with them.
    old_rulings: Mapping[int, Mapping[str, Any]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.title:
            object.__setattr__(self, "title", self.game.title)

    def rulings(self, version: int) -> Mapping[str, Any]:
        """The options a game of rules ``version`` is played with on top of its own (none
        for the current version); an unknown version raises ``ValueError``."""
        if version == self.rules_version:
            return {}
        if version not in self.old_rulings:
            known = ", ".join(str(v) for v in sorted({*self.old_rulings, self.rules_version}))
            raise ValueError(f"{self.title} has no rules version {version} (versions: {known})")
        return self.old_rulings[version]

    def autopilot_bot(self) -> str:
        """The autopilot's name: :attr:`autopilot` when the game has that bot, else random."""
        return self.autopilot if self.autopilot in self.bots else "random"

    def ranked_bots(self) -> list[tuple[str, str]]:
        """Every bot with its line, weakest first: ``random``, then in :attr:`bot_notes`'
        order, then bots without a line (by name)."""
        notes = {"random": RANDOM_NOTE, **self.bot_notes}
        ranked = [name for name in notes if name in self.bots]
        ranked += sorted(name for name in self.bots if name not in notes)
        return [(name, notes.get(name, "")) for name in ranked]

    def rules_for(self, surface: Surface) -> str:
        """The rules as one surface shows them: the options table (``<!-- options -->``)
        written for it, and, on the site, options named by their labels on the form."""
        fields = {f.name: f for f in dataclasses.fields(self.game.options_type)}
        text = self.rules.replace(OPTIONS_MARK, self._options_markdown(surface))
        if surface == "site":

            def labelled(found: re.Match[str]) -> str:
                field_ = fields.get(found.group(1))
                if field_ is None:
                    return found.group(0)
                value = found.group(2)
                label = f"“{option_text(field_).label}”"
                return label if value is None else f"{label} {value}"

            # `name` and `name=value`, as the terminal writes them, become the form's words.
            text = re.sub(r"`(\w+)(?:=([^`\s]*))?`", labelled, text)
        return text

    def _options_markdown(self, surface: Surface) -> str:
        defaults = self.game.options({})
        rows = []
        for field_ in dataclasses.fields(self.game.options_type):
            text = option_text(field_)
            default = _shown_default(getattr(defaults, field_.name))
            name = text.label if surface == "site" else f"`{field_.name}`"
            rows.append(f"| {name} | {default} | {text.help} |")
        head = "| option | default | meaning |\n|---|---|---|"
        if surface == "site":
            head = "| Option on the new-game form | Default | Meaning |\n|---|---|---|"
        table = "\n".join([head, *rows])
        if surface == "terminal":
            table += "\n\nSet them with `-o name=value`"
            example = next(
                (
                    f.name
                    for f in dataclasses.fields(self.game.options_type)
                    if not isinstance(getattr(defaults, f.name), bool | None)
                ),
                None,
            )
            if example is not None:
                value = getattr(defaults, example)
                table += f", e.g. `dicehall play {self.name} -o {example}={value}`"
            table += "."
        return table

    @property
    def rules(self) -> str:
        """The rules as dicehall implements them, in Markdown."""
        if self.rules_text is not None:
            return self.rules_text
        return resources.files(f"dicehall.games.{self.name}").joinpath("rules.md").read_text()

    def bot(self, name: str, rng: random.Random) -> Bot:
        """A bot by name; unknown names raise with the list of known ones."""
        factory = self.bots.get(name)
        if factory is None:
            known = ", ".join(sorted(self.bots))
            raise InvalidInput(f"{self.title} has no bot {name!r} (bots: {known})")
        return factory(rng)

    def seat_hint(self) -> SeatHint | None:
        """The seat hint function (imported now), or None when the game has none."""
        if self.hint is None:
            return None
        function: SeatHint = load(self.hint)
        return function

    def rated_kinds(self) -> tuple[RatingKindSpec, ...]:
        """The rating kinds its games count for (see :attr:`rating_kinds`)."""
        if self.rating_kinds is None:
            return (RatingKindSpec(self.name, self.title),)
        return tuple(self.rating_kinds)

    def rating_kind(self, options: Any) -> str | None:
        """The rating kind a game with ``options`` (an options object, or a mapping the
        game parses) counts for; None: such games are never rated."""
        if isinstance(options, Mapping):
            options = self.game.options(options)
        kinds = self.rated_kinds()
        if self.rating_kind_of is None:
            return next((kind.name for kind in kinds if kind.selects(options)), None)
        chosen: str | None = load(self.rating_kind_of)(options)
        if chosen is not None and chosen not in {kind.name for kind in kinds}:
            raise ValueError(
                f"{self.rating_kind_of} chose {chosen!r}, no rating kind of {self.name}"
            )
        return chosen

    def luck_measure(self) -> LuckMeasure | None:
        """Its measure of luck (imported now), or None when it has none."""
        if self.luck is None:
            return None
        measure: LuckMeasure = load(self.luck)
        return measure


def _shown_default(value: object) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)
