"""What the moderation and testimonial routes take and answer (see
:mod:`dicehall.server.domain.moderation`)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt

from dicehall.server.api.params import BodyId
from dicehall.server.api.rules import FORMATS, Rule, stripped_text
from dicehall.server.api.schemas import _Answer, _moment
from dicehall.server.domain.moderation import actions, reports, testimonials

ReportKind = Literal["user", "profile", "message", "chat", "testimonial"]
ReportReason = Literal["spam", "abuse", "cheating", "inappropriate", "other"]
ReportStatus = Literal["open", "resolved", "dismissed"]
ActionName = Literal[
    "warn", "mute", "unmute", "hide", "unhide", "suspend", "lift", "close", "dismiss"
]
ContentKind = Literal["profile", "message", "chat", "testimonial"]
TestimonialStatus = Literal["pending", "approved", "hidden"]
#: What ``reports.clean_text`` refuses besides control characters: format characters; a CR
#: LF is kept as one line break.
_NOTE: Any = {"never": FORMATS, "crlf": True}


# -- what is sent ------------------------------------------------------------------------------


class NewReport(BaseModel):
    """A report: what, which one, why, and an optional note for the moderators."""

    model_config = ConfigDict(extra="forbid")

    kind: ReportKind = Field(
        description="`user` (their behaviour), `profile` (its name or about text), "
        "`message`, `chat` (a game's chat line) or `testimonial`."
    )
    target: str | StrictInt = Field(
        description="A user id for `user` and `profile`; else the message's, chat line's "
        "or testimonial's id."
    )
    reason: ReportReason
    text: Annotated[str, Rule(pattern=stripped_text(reports.TEXT_MOST, **_NOTE))] = Field(
        default="",
        max_length=4 * reports.TEXT_MOST,
        description=f"A note for the moderators (at most {reports.TEXT_MOST} characters).",
    )


class NewAction(BaseModel):
    """A moderator's action: which, on whom or what, for how long, and why."""

    model_config = ConfigDict(extra="forbid")

    action: ActionName
    reason: Annotated[str, Rule(pattern=stripped_text(actions.REASON_MOST, least=1, **_NOTE))] = (
        Field(
            max_length=4 * actions.REASON_MOST,
            description=f"Why (1 to {actions.REASON_MOST} characters): the user and the audit "
            "log read it.",
        )
    )
    user_id: str | None = Field(
        default=None,
        max_length=40,
        description="The user acted on (and for `hide` of a `profile`, whose profile).",
    )
    content_kind: ContentKind | None = Field(
        default=None, description="For `hide` and `unhide`: what kind of content."
    )
    content_id: BodyId | None = Field(
        default=None,
        description="For `hide` and `unhide`: the message's, chat line's or testimonial's id.",
    )
    minutes: StrictInt | None = Field(
        default=None,
        ge=1,
        le=actions.MOST_MINUTES,
        description="For `mute` and `suspend`: how long, from now.",
    )
    report_id: BodyId | None = Field(
        default=None,
        description="The report acted on (resolved by the action; required for `dismiss`): "
        "it supplies the user or content left out.",
    )


class TestimonialText(BaseModel):
    """My testimonial's text."""

    model_config = ConfigDict(extra="forbid")

    body: Annotated[str, Rule(pattern=stripped_text(testimonials.BODY_MOST, least=1, **_NOTE))] = (
        Field(
            max_length=4 * testimonials.BODY_MOST,
            description=f"1 to {testimonials.BODY_MOST} characters once trimmed.",
        )
    )


# -- what is answered --------------------------------------------------------------------------


class ReportFiled(_Answer):
    """A report as stored."""

    id: int
    kind: ReportKind
    reason: ReportReason
    status: ReportStatus
    created_at: str = _moment()


class QueuedReport(_Answer):
    """A report as the moderators' queue shows it."""

    id: int
    kind: ReportKind
    target: int = Field(description="The user's, message's, chat line's or testimonial's id.")
    user_id: str = Field(description="Who is reported, or wrote what is.")
    display_name: str
    reporter: str = Field(description="Who reported it.")
    reason: ReportReason
    text: str = Field(description="The reporter's note.")
    content: str = Field(description="What was reported, as it was then.")
    status: ReportStatus
    created_at: str = _moment()
    handled_by: str | None
    handled_at: str | None
    muted_until: str | None = Field(description="The user's mute now, if any.")
    suspended_until: str | None = Field(description="The user's suspension now, if any.")
    closed: bool


class ReportQueue(_Answer):
    """A page of reports, newest first."""

    reports: list[QueuedReport]
    next: int | None = Field(description="Send it as `before` for the next (older) page.")


class ActionDone(_Answer):
    """An action carried out, as the audit log numbers it."""

    id: int = Field(description="Its entry in the audit log.")
    action: ActionName
    user_id: str = Field(description="Whom it concerned.")
    until: str | None = Field(description="The mute's or suspension's end.")


class AuditEntry(_Answer):
    """One entry of the audit log."""

    id: int
    moderator: str | None = Field(
        description="Who acted (null: the site's administrator, from the command line)."
    )
    user_id: str | None = Field(description="Whom it concerned.")
    action: str = Field(
        description="warn, mute, unmute, hide, unhide, suspend, lift, close, dismiss, "
        "approve, grant or revoke."
    )
    reason: str
    until: str | None
    content_kind: str | None
    content_id: int | None
    content: str | None = Field(description="The content acted on, as it was then.")
    report: int | None = Field(description="The report acted on, if any.")
    created_at: str = _moment()


class AuditPage(_Answer):
    """A page of the audit log, newest first."""

    entries: list[AuditEntry]
    next: int | None = Field(description="Send it as `before` for the next (older) page.")


class TestimonialOut(_Answer):
    """A testimonial."""

    id: int
    user_id: str
    display_name: str
    body: str = Field(description="Plain text: show it escaped.")
    status: TestimonialStatus = Field(
        description="`pending` (waiting for a moderator), `approved` (public) or `hidden`."
    )
    created_at: str = _moment()
    updated_at: str = _moment()


class TestimonialPage(_Answer):
    """A page of testimonials, newest first."""

    testimonials: list[TestimonialOut]
    next: int | None = Field(description="Send it as `before` for the next (older) page.")


class TestimonialDeleted(_Answer):
    """Whether a testimonial was deleted."""

    deleted: bool = Field(description="False when I had none.")
