"""The words every part of the notices shares: the kinds of notice, the channels, one
notice as a channel delivers it, and how a delivery fails."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal, get_args

NoticeKind = Literal[
    "your_turn",
    "invitation",
    "game_over",
    "time_low",
    "message",
    "tournament_round",
    "ladder_challenge",
]
#: Every kind, in the order pages list them.
KINDS: tuple[NoticeKind, ...] = get_args(NoticeKind)
#: What each kind is called on pages and in e-mails.
KIND_LABELS: dict[NoticeKind, str] = {
    "your_turn": "Your turn",
    "invitation": "Invitations",
    "game_over": "Game over",
    "time_low": "Time running low",
    "message": "Messages",
    "tournament_round": "Tournament rounds",
    "ladder_challenge": "Ladder challenges",
}

Channel = Literal["email", "push", "webhook"]
CHANNELS: tuple[Channel, ...] = get_args(Channel)

WebhookFormat = Literal["json", "discord", "slack", "ntfy"]
WEBHOOK_FORMATS: tuple[WebhookFormat, ...] = get_args(WebhookFormat)


@dataclass(frozen=True)
class Notice:
    """One notice as a channel delivers it."""

    #: The delivery's id: receivers may use it to drop a repeat (``Idempotency-Key``).
    id: int
    user_pk: int
    kind: NoticeKind
    game_id: int | None
    #: A short headline ("Your turn: Boatzee with bob").
    title: str
    #: What happened ("bob scored 50 in Boatzee; your turn, 2 d 4 h left").
    text: str
    #: The absolute URL a click opens.
    url: str
    created_at: datetime

    @property
    def tag(self) -> str:
        """One tag per game (or per kind), so that a game's notices replace one another."""
        return f"game-{self.game_id}" if self.game_id is not None else f"dicehall-{self.kind}"


class DeliveryFailed(Exception):
    """A channel could not deliver a notice. ``permanent``: trying again cannot help (the
    address is refused); ``gone``: the target no longer exists (a push subscription that
    answered 404 or 410) and is dropped."""

    def __init__(self, message: str, *, permanent: bool = False, gone: bool = False) -> None:
        super().__init__(message)
        self.permanent = permanent or gone
        self.gone = gone
