"""The JSON API's answers as pydantic models: the OpenAPI schema's response schemas.

(Longer than most modules on purpose: it is the API's whole contract in one place, read
beside the OpenAPI schema; the models are declarations only, and many nest in one another.)

Each route declares its model with ``response_model=``; the handlers build plain dicts,
which FastAPI checks against the model before answering (the two hot answers, a game and a
move, are typed in the domain and serialised once by :mod:`dicehall.server.api.answers`).
The models describe the answers exactly as they are (they are contracts): every key is
required, no other key is allowed and no value is coerced (``strict``), so a handler that
grows, loses or retypes a key fails loudly (a 500, caught by the tests) instead of being
trimmed to fit. What is game-specific (a game's options, view, legal actions, events, hint)
is free JSON inside otherwise precise models.

Every error answer is an :class:`ErrorBody`; :func:`errors` documents the ones a route can
give, and replaces FastAPI's own 422 (``HTTPValidationError``), which this API never sends.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.json_schema import SkipJsonSchema


def _moment() -> Any:
    """A timestamp field: text in RFC 3339 (ISO 8601 with the UTC offset)."""
    return Field(
        description="When, in ISO 8601 with its UTC offset.",
        json_schema_extra={"format": "date-time", "examples": ["2026-11-21T14:01:27.658510+00:00"]},
    )


def _no_default(schema: dict[str, Any]) -> None:
    # An optional key of an error body is absent, not null: do not advertise a default.
    schema.pop("default", None)


class _Answer(BaseModel):
    """An answer's JSON object: exactly these keys, none missing, no other, none coerced."""

    model_config = ConfigDict(extra="forbid", strict=True)


# -- errors ------------------------------------------------------------------------------------


class ErrorBody(BaseModel):
    """Every error answer: a sentence for people and a short code for programs.

    Some codes add keys: ``version`` (409 ``stale`` and ``finished``: the game's current
    version) and ``retry_after`` (429 and 503: seconds to wait, also in ``Retry-After``).
    """

    model_config = ConfigDict(
        extra="allow",
        json_schema_extra={"examples": [{"error": "there is no game 12", "code": "not_found"}]},
    )

    error: str = Field(description="What went wrong, as a sentence.")
    code: str = Field(description="A short, stable code, e.g. `not_found` or `stale`.")
    version: int | SkipJsonSchema[None] = Field(
        default=None,
        description="The game's current version (409 `stale` and `finished`).",
        json_schema_extra=_no_default,
    )
    retry_after: int | SkipJsonSchema[None] = Field(
        default=None,
        description="Seconds to wait before trying again (some 429 and 503 answers).",
        json_schema_extra=_no_default,
    )


_RETRY_AFTER = {
    "Retry-After": {
        "description": "Seconds to wait before trying again (when the body has `retry_after`).",
        "schema": {"type": "integer"},
    }
}

#: What each error status means in this API, and the codes it comes with.
_ERRORS: dict[int, str] = {
    400: "The body could not be read (`http_error`: not UTF-8 text), or not allowed this way "
    "(`not_a_session`: log out ends a browser session, not an API token).",
    401: "Not signed in, or the session or token has ended "
    "(`unauthenticated`, `session_expired`, `wrong_login`, `not_a_session`).",
    403: "Not yours to do, or a cookie-signed write without its CSRF token "
    "(`csrf`, `not_your_game`, `not_yours`, `wrong_password`, `not_a_player`), or only a "
    "browser session may do it (`not_a_session`), or the other person is out of reach "
    "(`not_accepted`: the same words for their settings, an ignore or a closed account).",
    404: "There is no such thing, or it is not yours or not public yet "
    "(`not_found`, `no_such_user`, `no_such_token`, `no_hints`, `not_revealed`).",
    409: "The state does not allow it (`stale` and `finished` with the current `version`, "
    "`not_started`, `not_open`, `seat_taken`, `already_seated`, `not_invited`, `started`, "
    "`in_progress`, `not_active`, `conflict`, `user_id_taken`, `too_many_tokens`, "
    "`password_changed`).",
    422: "The request is invalid (`invalid_request` for its shape; `illegal_move`, "
    "`invalid_input`, `invalid_options`, `unknown_game`, `unknown_user`, `invalid_seats`, "
    "`key_reused`, `invalid_user_id`, `invalid_password`, `yourself`, `invalid_body`, "
    "`invalid_settings`, ... for its content).",
    429: "Too many attempts or over a quota (`rate_limited`, `too_many_games`, "
    "`too_many_joins`, `too_many_open_games`, `too_many_invites`, `too_many_threads`, "
    "`too_fast`, `too_many_relations`).",
    503: "Busy for a moment: try again after `Retry-After` seconds "
    "(`busy`, `no_dice`, `hints_busy`).",
}


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The ``responses=`` of a route: an :class:`ErrorBody` for each of ``statuses``.

    Listing 422 (every route with parameters or a body can answer it) also keeps FastAPI
    from documenting its own ``HTTPValidationError`` there.
    """
    out: dict[int | str, dict[str, Any]] = {}
    for status in statuses:
        entry: dict[str, Any] = {"model": ErrorBody, "description": _ERRORS[status]}
        if status in (429, 503):
            entry["headers"] = _RETRY_AFTER
        out[status] = entry
    return out


# -- accounts ----------------------------------------------------------------------------------


class UserProfile(_Answer):
    """A user's public profile."""

    user_id: str = Field(description="The user id as chosen at sign-up (any case finds it).")
    display_name: str
    about: str
    created_at: str = _moment()


class MyProfile(UserProfile):
    """My own profile: what anyone sees, and my e-mail address."""

    email: str | None = Field(description="My e-mail address (null: none).")
    email_verified: bool = Field(
        description="Whether I opened the link mailed to it (only a verified address is "
        "mailed notices and password resets)."
    )


class SignedIn(_Answer):
    """A browser session began: its user and the CSRF token its writes must send."""

    user: UserProfile
    csrf_token: str = Field(description="Send it in `X-CSRF-Token` with every write.")


class SignedOut(_Answer):
    """The browser session ended and its cookie was cleared."""

    signed_out: Literal[True]
    message: str


class PasswordChanged(_Answer):
    """The password changed; the user's other browser sessions ended, and their API tokens
    unless kept."""

    user: UserProfile
    ended_sessions: int = Field(description="How many browser sessions were signed out.")
    ended_tokens: int = Field(description="How many API tokens ended (0 with `keep_tokens`).")
    message: str


class ApiToken(_Answer):
    """An API token as its owner sees it in a list: never the secret."""

    id: int
    name: str
    created_at: str = _moment()


class NewApiToken(_Answer):
    """A new API token, with its secret: shown in this answer only."""

    id: int
    name: str
    created_at: str = _moment()
    token: str = Field(description="Send it as `Authorization: Bearer TOKEN`.")


class TokenRevoked(_Answer):
    """An API token was revoked."""

    revoked: int = Field(description="The revoked token's id.")
    message: str


# -- games -------------------------------------------------------------------------------------

GameStatus = Literal["waiting", "active", "finished", "cancelled", "aborted"]
SeatStatus = Literal["playing", "resigned", "timed_out", "autopilot"]


class Seat(_Answer):
    """Who sits in a seat: a user, a bot, or nobody yet (``open``)."""

    seat: int = Field(description="The seat's number, from 0.")
    user: str | None = Field(description="The seated (or invited) user's id.")
    bot: str | None = Field(description="The seated bot's name.")
    open: bool = Field(description="Nobody has taken this seat yet.")
    invited: bool = Field(description="The creator named this user, who has not accepted yet.")
    name: str = Field(
        description='What to call the seat: the user id, "equity bot" (numbered when one '
        'bot sits twice: "equity bot 1", "equity bot 2") or "open seat".'
    )
    status: SeatStatus = Field(
        description="`playing`; `resigned`; `timed_out` (lost a 2-seat game on time); "
        "`autopilot` (ran out of time in a game of 3+ seats: the game's autopilot bot plays "
        "it until its owner takes it back)."
    )
    moved: bool = Field(
        description="The seated user has made a move in this game (a game may be aborted "
        "while some person at it has not)."
    )
    away_until: str | None = Field(
        description="The end of the seated user's announced absence (ISO 8601): a deadline "
        "of theirs that runs out before it moves to it. Null when they are not away."
    )


class PaceOut(_Answer):
    """A game's pace: each seat's time bank (seconds)."""

    name: str = Field(description="The preset (`live`, `brisk`, `daily`, ...) or `custom`.")
    initial: int = Field(description="Each seat's bank at the start.")
    increment: int = Field(description="Added when the seat's turn passes on.")
    cap: int = Field(description="The most a bank may hold.")


class SeatClock(_Answer):
    """One seat's time."""

    seat: int
    remaining: float = Field(description="Seconds left in the seat's bank.")
    deadline: str | None = Field(
        description="When the running bank runs out (ISO 8601); null when it does not run.",
        json_schema_extra={"format": "date-time"},
    )
    running: bool = Field(description="The seat is to act and its bank is running.")
    saved_by: Literal["vacation", "away"] | None = Field(
        description="The running seat's bank ran out this turn and its deadline was moved: "
        "by `vacation` (a floating hour of the allowance) or by the player's announced "
        "absence (`away`). Null otherwise."
    )


class ClockOut(_Answer):
    """Every seat's time bank."""

    seats: list[SeatClock]


class BotTurn(_Answer):
    """The game waits on a bot or on dice, not on a person."""

    seat: int | None = Field(description="The bot's seat; null when the game waits on dice.")
    bot: str | None = Field(description="The bot's name; null when the game waits on dice.")
    slow: bool = Field(description="The bot thinks long (it runs in the bot driver).")
    warming_up: bool = Field(description="The slow bot is still building its tables.")
    eta_s: int | None = Field(description="About how many seconds the warm-up has left.")


class GameResult(BaseModel):
    """How a finished game ended (a game may add keys of its own)."""

    model_config = ConfigDict(extra="allow", strict=True)

    type: str = Field(description="`result`.")
    winners: list[int] = Field(description="The winning seats.")
    scores: list[int] = Field(description="The game's own measure per seat.")
    turns: int = Field(description="The game's own count of turns, hands or rounds.")


class SeatRating(_Answer):
    """One seat's rating in a rated game (every figure null when not known or hidden)."""

    seat: int
    rating: int | None = Field(
        description="Before the game is rated: the rating now; once rated: the rating after "
        "the game (1500 + 40 per unit of mu)."
    )
    provisional: bool | None = Field(description='Too few games to mean much yet ("1540?").')
    change: int | None = Field(description="What this game did to the rating; null until rated.")
    chance: float | None = Field(
        description="The ratings' chance (0 to 1) that this seat finishes first, from the "
        "ratings before the game; null while a seat is open or hidden."
    )


class GameRatings(_Answer):
    """The seats' ratings of a rated game."""

    seats: list[SeatRating]
    hidden: bool = Field(
        description="My own rating and the chances are left off: I asked not to see my "
        "rating in a game I play until it is over (setting `hide_rating_while_playing`)."
    )


class Game(_Answer):
    """A game as the caller's seat sees it (a spectator's view for anyone else)."""

    id: int
    game: str = Field(description="The kind of game, e.g. `tenthousand`.")
    title: str = Field(description='Its name as its options make it, e.g. "Triple Boatzee".')
    status: GameStatus
    version: int = Field(description="Send it back as `expected_version` with a move.")
    options: dict[str, Any] = Field(description="The game's options (game-specific).")
    seats: list[Seat]
    my_seat: int | None = Field(description="The caller's seat; null for a spectator.")
    to_act: int | None = Field(description="The seat whose turn it is.")
    your_turn: bool
    view: dict[str, Any] | None = Field(
        description="What the caller's seat may know (game-specific); null until it starts."
    )
    legal: list[dict[str, Any]] = Field(
        description="The caller's legal actions now (game-specific); empty when not my turn."
    )
    result: GameResult | None = Field(description="How the game ended; null until it does.")
    bot_turn: BotTurn | None = Field(description="Set when the game waits on a bot or dice.")
    pace: PaceOut | None = Field(description="The game's pace; null: no clock.")
    clock: ClockOut | None = Field(description="Every seat's time; null: no clock.")
    ranking: list[int] | None = Field(
        description="A finished game's seats, best first: those that finished under their "
        "own control by the result, then those that resigned or timed out (later leavers "
        "first). Null until it is over."
    )
    private: bool = Field(description="Only the players and invited users may watch.")
    vacation: bool = Field(
        description="A seat's vacation allowance may save it from a timeout (never at a pace "
        "under a day, whatever the game was created with)."
    )
    rating_kind: str | None = Field(
        description="The rating a rated game counts for (`boatzee-double`, ...); null: unrated."
    )
    ladder: bool = Field(description="A ladder challenge's game.")
    ratings: GameRatings | None = Field(
        description="Each seat's rating, its change and its chance to finish first; null "
        "for an unrated game (and one aborted or called off)."
    )


class GameMove(Game):
    """A game after my move (or its replay)."""

    replayed: bool = Field(
        description="True when this answers a retry with an Idempotency-Key already applied."
    )


class StandingOut(_Answer):
    """Where a started game stands (public: every seat sees it)."""

    scores: list[int] = Field(description="Each seat's score so far, in the game's measure.")
    number: int = Field(description="The turn, hand or round being played, from 1.")
    noun: str = Field(description='What the game calls it: "turn", "hand" or "round".')


class GameSummary(_Answer):
    """A game in a list: mine, or the waiting room's."""

    id: int
    game: str
    title: str = Field(description='Its name as its options make it, e.g. "Triple Boatzee".')
    status: GameStatus
    version: int
    to_act: int | None
    your_turn: bool
    invitation: bool = Field(description="I was invited to this game and have not answered.")
    creator: str | None = Field(description="The user id of the player who created it.")
    seats: list[Seat]
    options: dict[str, Any] = Field(description="The game's options (game-specific).")
    updated_at: str = _moment()
    standing: StandingOut | None = Field(
        description="A started game's scores so far and the turn being played."
    )
    winners: list[int] | None = Field(
        description="A finished game's winning seats (more than one: a shared win)."
    )
    pace: str | None = Field(description="The pace's name; null: no clock.")
    deadline: str | None = Field(
        description="When the seat to act runs out of time (ISO 8601); null: no clock runs.",
        json_schema_extra={"format": "date-time"},
    )
    chat_unread: int = Field(
        description="Players' chat lines of this game I have not read (0 where I do not sit)."
    )
    ladder: bool = Field(description="A ladder game (see `/ladders`).")


class WaitingOnMe(_Answer):
    """How many of my games wait on me (for a badge or a page title)."""

    your_turn: int = Field(description="Started games where it is my turn.")
    invitations: int = Field(description="Invitations I have not answered.")


class BotStrength(_Answer):
    """A bot's place on one rating kind's bot ladder (games between the bots)."""

    kind: str = Field(description="The rating kind, e.g. `boatzee-double`.")
    place: int = Field(
        description="1 for the strongest bot of the kind: the largest share of the wins."
    )
    rating: int = Field(description="Rated as the site rates players (1500 to start).")
    rating_low: int = Field(description="The rating's 95% interval, low end.")
    rating_high: int
    games: int = Field(description="Ladder games it played.")
    win_share: float = Field(description="Share of the wins it took (winners split one).")
    win_share_low: float
    win_share_high: float
    even_share: float = Field(description="Its share if every bot were as strong.")


class GameKind(_Answer):
    """A game the site offers."""

    game: str = Field(description="Its name in `POST /games`, e.g. `tenthousand`.")
    title: str
    min_seats: int
    max_seats: int
    options: dict[str, Any] = Field(description="The default options (game-specific).")
    bots: list[str] = Field(
        description="The bots that can take a seat (`bot:NAME`), weakest first."
    )
    bot_notes: dict[str, str] = Field(description="One line about each bot, by name.")
    bot_strengths: dict[str, dict[str, BotStrength]] = Field(
        description="The bot ladder's figures (`bench/bot_ladder.py`) by rating kind, then "
        "by bot; empty where the game's bots were not measured."
    )


class GameLog(_Answer):
    """A finished game's public log, for replay and audit."""

    game: str
    id: int
    seats: int = Field(description="How many seats the game had.")
    rules: int = Field(
        description="The version of the game's rules it was played under (its options carry "
        "that version's rulings; see docs/site.md, Rules versions)."
    )
    options: dict[str, Any]
    events: list[dict[str, Any]] = Field(
        description="Every event, in order, with its `dice_set`; outcomes never shown are "
        '`{"hidden": true, "count": n}` (game-specific).'
    )
    result: GameResult | None


class StoryLine(_Answer):
    """One sentence of a game's story."""

    text: str
    seat: int | None = Field(description="The seat it is about; null for the table.")
    dice: list[int | str] = Field(
        description="The dice the sentence names, as the game notates them (`6r` in Hold'em)."
    )


class StoryEvent(_Answer):
    """One event of the log as the caller's seat may know it, with its sentences."""

    index: int = Field(description="Its place in the game's event log, from 0.")
    seat: int | None = Field(description="The seat that acted; null for dice.")
    event: dict[str, Any] = Field(
        description="The event (game-specific); an outcome the caller may not see (yet) is "
        '`{"hidden": true, "count": n}`.'
    )
    lines: list[StoryLine]


class GameOutcome(_Answer):
    """How a finished game ended, for the caller."""

    verdict: Literal["won", "lost", "draw"] | None = Field(
        description="The caller's result; null for a spectator."
    )
    headline: str = Field(description='"You won!", "You lost: ... won.", "A draw: ...".')
    lines: list[StoryLine] = Field(description="The final scores and who won, one format.")


class GameEvents(_Answer):
    """A game's events as the caller's seat may know them now, told in sentences."""

    id: int
    game: str
    version: int
    my_seat: int | None
    since: int = Field(description="The first event index asked for.")
    total: int = Field(description="How many events the game has so far.")
    last_own: int | None = Field(
        description="The index of the caller's last move: what follows happened since."
    )
    events: list[StoryEvent]
    outcome: GameOutcome | None = Field(description="Set once the game is over.")


class ReplayFrame(_Answer):
    """One event of a replay: as a spectator sees it once the game is over, with the
    position and the scores after it."""

    index: int = Field(description="Its place in the game's event log, from 0.")
    seat: int | None = Field(description="The seat that acted; null for dice.")
    event: dict[str, Any] = Field(
        description="The event (game-specific); dice never shown to the table are "
        '`{"hidden": true, "count": n}`.'
    )
    lines: list[StoryLine] = Field(description="The event told in sentences, with its dice.")
    view: dict[str, Any] = Field(
        description="A spectator's view of the position after the event (game-specific)."
    )
    standing: StandingOut | None = Field(
        description="Each seat's score after the event; null for a game that does not say."
    )


class Replay(_Answer):
    """A game that is over (finished or aborted), one frame per event, for its replay."""

    id: int
    game: str = Field(description="The kind of game, e.g. `tenthousand`.")
    seats: list[Seat]
    frames: list[ReplayFrame] = Field(description="One frame per event of the log, in order.")
    result: GameResult | None = Field(description="How the game ended; null when aborted.")
    ranking: list[int] | None = Field(
        description="The site's ranking, seats best first (resigned and timed-out seats "
        "last); null when aborted."
    )


class Hint(_Answer):
    """Odds and the best choice for the caller's own seat."""

    game: str
    version: int = Field(description="The game version the hint is for.")
    hint: dict[str, Any] = Field(description="The hint (game-specific).")


# -- fairness ----------------------------------------------------------------------------------


class BatchCommitment(_Answer):
    """A dice batch's commitment, published before any of its dice is rolled."""

    id: int
    commitment: str = Field(description="SHA-256 of the salt and the sets, in hexadecimal.")
    size: int = Field(description="How many dice sets the batch holds.")
    first_set: int
    created_at: str = _moment()
    revealed: bool
    revealed_at: str | None = _moment()
    scheme: int = Field(
        description="2: a Merkle root over salted leaves, logged in the public log (every batch "
        "since the fair-dice migration); 1: SHA-256 over one salt and every set (older)."
    )
    root: str | None = Field(description="Scheme 2: the Merkle root (hex); null for scheme 1.")
    log_seq: int | None = Field(
        description="Scheme 2: the batch's record in `GET /api/v1/fairness/log`; else null."
    )


class FinishedDice(_Answer):
    """Face counts and Pearson's chi-square over every shown die of every finished game."""

    games: int = Field(description="How many finished games the dice come from.")
    dice: int = Field(description="How many dice (withheld sets, never shown, not counted).")
    counts: dict[str, int] = Field(description='How often each face came up: `"1"` to `"6"`.')
    chi_square: float | None = Field(description="Null with no dice.")
    p_value: float | None = Field(description="Null with no dice.")


class LogRecordOut(_Answer):
    """One record of the public log of commitments (docs/site.md, "Fair dice")."""

    seq: int = Field(description="Its place in the log, from 1.")
    kind: Literal["dice", "bags"] = Field(
        description='`"dice"` (a batch of dice sets) or `"bags"` (of shuffles).'
    )
    batch: int = Field(description="The batch's number among batches of its kind.")
    first: int = Field(description="The global number of the batch's first set or shuffle.")
    size: int = Field(description="How many sets or shuffles the batch holds.")
    root: str = Field(description="The Merkle root over the batch's leaves (hex).")
    prev: str = Field(description="The hash of the record before (64 zeros for the first).")
    created_at: str = _moment()
    hash: str = Field(description="SHA-256 of this record's canonical JSON (without `hash`).")


class DeckRecord(_Answer):
    """A deck committed ahead of use: the roots of its dice keys and bag shuffles."""

    seq: int = Field(description="Its place in the log, from 1.")
    kind: Literal["deck"]
    deck: int = Field(description="The deck's number.")
    keys: int = Field(description="How many dice keys it holds.")
    root: str = Field(description="The Merkle root over its key leaves (hex).")
    shuffles: int = Field(description="How many bag shuffles it holds (0: none).")
    shuffles_root: str | None = Field(
        description="The Merkle root over its shuffle leaves (hex); null without shuffles."
    )
    prev: str = Field(description="The previous record's hash (hex).")
    created_at: str = Field(description="When it was committed (ISO 8601).")
    hash: str = Field(description="SHA-256 of this record's canonical JSON (hex).")


class BindingRecord(_Answer):
    """A deck bound to a game, before any seat's seed was known."""

    seq: int = Field(description="Its place in the log, from 1.")
    kind: Literal["game"]
    game: int = Field(description="The game's id.")
    deck: int = Field(description="The deck bound to it.")
    first_key: int = Field(description="The game's first key the deck covers (0 at the start).")
    first_shuffle: int = Field(description="The game's first shuffle the deck covers.")
    prev: str = Field(description="The previous record's hash (hex).")
    created_at: str = Field(description="When it was bound (ISO 8601).")
    hash: str = Field(description="SHA-256 of this record's canonical JSON (hex).")


#: Any record of the public log.
AnyLogRecord = LogRecordOut | DeckRecord | BindingRecord


class FairnessLog(_Answer):
    """A page of the public log, oldest first; check it with `dicehall verify-log`."""

    records: list[AnyLogRecord]
    head: AnyLogRecord | None = Field(description="The newest record; null before the first.")
    total: int = Field(description="How many records the log holds.")
    next: int | None = Field(description="The `from` of the next page; null on the last.")


class RevealedDice(_Answer):
    """Face counts and Pearson's chi-square over the revealed, shown dice only."""

    batches: int = Field(description="How many batches are revealed.")
    dice: int = Field(description="How many dice they hold (withheld sets not counted).")
    counts: dict[str, int] = Field(description='How often each face came up: `"1"` to `"6"`.')
    chi_square: float | None = Field(description="Null with no dice.")
    p_value: float | None = Field(description="Null with no dice.")


class FairnessReport(_Answer):
    """Every batch's commitment, the public log's head, and statistics over the dice of
    finished games (and, for old scheme-1 batches, over revealed batches)."""

    batches: list[BatchCommitment]
    revealed: RevealedDice
    finished: FinishedDice
    log_head: AnyLogRecord | None = Field(description="The public log's newest record.")
    log_records: int = Field(description="How many records the public log holds.")


class RevealedBatch(_Answer):
    """A revealed batch, in the shape `dicehall verify-dice` checks."""

    batch: int
    commitment: str
    salt: str
    first_set: int
    sets: list[str | None] = Field(
        description="Each set's six faces, in order; null for a withheld set."
    )
    served_to: list[int | None] = Field(description="The game each set went to, if any.")
    withheld: list[int] = Field(description="The places of the withheld sets.")
    unseen: list[int] = Field(
        description="The places of sets the table never saw (a folded pocket), shown once "
        "their games are over: the old scheme's one hash covers every set, so it cannot be "
        "checked without them."
    )


# -- vacation and notifications ----------------------------------------------------------------


class VacationState(_Answer):
    """My vacation: the allowance left, and the windows that move my deadlines now."""

    allowance_seconds: float = Field(
        description="Seconds of vacation left (7 days at sign-up, +2 days a month, at most 30)."
    )
    away_until: str | None = Field(
        description="The end of my announced absence (ISO 8601); null when none is running."
    )
    vacation_until: str | None = Field(
        description="The end of the floating hour last spent to save a seat (ISO 8601); null "
        "when it has passed."
    )


class NotificationOut(_Answer):
    """Something I should know about one of my games."""

    id: int
    kind: str = Field(
        description="`your_turn`, `time_low` (a reminder I set: a share of the turn's time "
        "used, or a time left), `vacation` (vacation moved a deadline), `timed_out`, "
        "`game_over`, `invitation`, `invite_accepted`, `invite_declined`, `automatch`, "
        "`tournament` or `ladder`: the latest notice of the line."
    )
    game: int | None = Field(description="The game it is about, if any.")
    text: str = Field(description="What to tell the user, as a sentence (the latest notice).")
    created_at: str = _moment()
    read: bool
    events: int = Field(
        description="How many notices this line sums up: a game has one unread line, which "
        "each new notice about it replaces (with a new id, at the top)."
    )


class NotificationList(_Answer):
    """A page of my notifications, newest first."""

    notifications: list[NotificationOut]
    unread: int = Field(description="How many of all my notifications are unread.")
    next: int | None = Field(
        description="Send it as `before` for the next (older) page; null on the last page."
    )


class NotificationsMarked(_Answer):
    """How many of my notifications were marked read."""

    marked: int = Field(description="How many unread notifications are read now.")


# -- history and reliability -------------------------------------------------------------------


class Reliability(_Answer):
    """How reliable a player is: games finished, timeouts, time taken per turn."""

    games_finished: int = Field(description="Finished games the player had a seat in.")
    timeouts: int = Field(description="How many times a seat of theirs ran out of time.")
    median_turn_seconds: float | None = Field(
        description="The median seconds they took over a turn (their last 200 turns at "
        "most); null before their first timed turn."
    )
    median_turn: str | None = Field(
        description='The same in words, e.g. "2 h 5 min"; null before their first timed turn.'
    )


class PublicProfile(UserProfile):
    """A user's public profile, with their reliability."""

    reliability: Reliability


class HistoryGame(GameSummary):
    """A game in a player's history: its summary, and how it ended for that player."""

    result: Literal["win", "loss", "draw"] | None = Field(
        description="The history's player's result: `win` (the only winner), `draw` (a "
        "shared win) or `loss`; null for a game in progress."
    )
    ended_at: str | None = Field(
        description="When the game ended (ISO 8601); null for a game in progress.",
        json_schema_extra={"format": "date-time"},
    )


class GameHistory(_Answer):
    """A page of a player's games, newest first."""

    games: list[HistoryGame]
    next: str | None = Field(
        description="Send it as `cursor` (with the same filters) for the next page; null on "
        "the last page."
    )


class WinLossDraw(_Answer):
    """How many games a player won, lost, and shared the win of."""

    win: int
    loss: int
    draw: int


class PlayerRecord(_Answer):
    """A player's wins, losses and draws in finished games, per game."""

    games: dict[str, WinLossDraw] = Field(
        description="By game name (e.g. `tenthousand`); games never finished are left out."
    )


# -- spectators --------------------------------------------------------------------------------


class Watchers(_Answer):
    """Who may watch a game besides its players, and how many watch it now."""

    watchers: list[str] = Field(
        description="The user ids the players invited to watch (what lets them watch a "
        "private game)."
    )
    watching: int = Field(
        description="Spectators' sockets following the game now, on every server process "
        "(the players' own boards are not counted)."
    )
