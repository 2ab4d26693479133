"""Reports, the moderators' queue and actions, the audit log, and testimonials.

Anyone signed in may report (``POST /reports``) and keep one testimonial
(``/users/me/testimonial``); the approved testimonials are public. The ``/moderation``
routes answer moderators only (403 ``not_moderator``). See
:mod:`dicehall.server.domain.moderation` for the rules.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, status
from sqlalchemy import Connection

from dicehall.server.api.deps import CurrentUser, ServicesDep
from dicehall.server.api.moderation_schemas import (
    ActionDone,
    AuditPage,
    NewAction,
    NewReport,
    ReportFiled,
    ReportQueue,
    ReportStatus,
    TestimonialDeleted,
    TestimonialOut,
    TestimonialPage,
    TestimonialText,
)
from dicehall.server.api.params import DbId, Digits
from dicehall.server.api.schemas import errors
from dicehall.server.core.clock import now
from dicehall.server.core.ids import DB_ID_MAX
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.moderation import actions, audit, reports, testimonials
from dicehall.server.domain.moderation.standing import require_moderator
from dicehall.server.domain.people.lookup import other_person
from dicehall.server.domain.work import read, run_db, write
from dicehall.server.domain.write_rates import check_write_rate

router = APIRouter(prefix="/api/v1", tags=["moderation"])

#: The most entries one page may hold.
MOST = 100

Before = Annotated[
    int | None,
    Query(ge=1, le=DB_ID_MAX, description="The `next` of the page before: only older ones."),
    Digits,
]
Limit = Annotated[int, Query(ge=1, le=MOST)]


# -- reports -----------------------------------------------------------------------------------


@router.post(
    "/reports",
    status_code=status.HTTP_201_CREATED,
    operation_id="reports-create",
    response_model=ReportFiled,
    responses=errors(400, 401, 403, 404, 409, 422, 429, 503),
)
async def report(body: NewReport, user: CurrentUser, services: ServicesDep) -> dict[str, Any]:
    """Report a user, a profile, a message of mine, a chat line I can read or an approved
    testimonial to the moderators (allowed while muted). 422 `yourself` (my own), 404
    `unknown_user` or `unknown_target` (also what I cannot see), 409 `already_reported`
    (my report of it is still open), 429 `rate_limited`."""
    note = reports.clean_text(body.text, reports.TEXT_MOST, "a report's note", "invalid_text")

    def work() -> dict[str, Any]:
        check_write_rate(services, "report", user.id)
        return write(
            services,
            lambda conn: reports.file_report(
                conn, user.id, body.kind, body.target, body.reason, note, now()
            ),
        )

    return await run_db(services, work)


@router.get(
    "/moderation/reports",
    operation_id="moderation-reports",
    response_model=ReportQueue,
    responses=errors(401, 403, 422),
)
async def queue(
    user: CurrentUser,
    services: ServicesDep,
    status: ReportStatus = "open",
    before: Before = None,
    limit: Limit = reports.PAGE,
) -> dict[str, Any]:
    """The reports in ``status`` (the queue: `open`), newest first, each with what was
    reported as it was then. Moderators only."""

    def work(conn: Connection) -> dict[str, Any]:
        require_moderator(conn, user.id)
        return reports.queue(conn, status, before, limit)

    return await run_db(services, read, services, work)


# -- actions and the audit log -----------------------------------------------------------------


@router.post(
    "/moderation/actions",
    status_code=status.HTTP_201_CREATED,
    operation_id="moderation-act",
    response_model=ActionDone,
    responses=errors(400, 401, 403, 404, 409, 422, 503),
)
async def act(body: NewAction, user: CurrentUser, services: ServicesDep) -> dict[str, Any]:
    """Warn, mute (``minutes``), unmute, hide or unhide content, suspend (``minutes``:
    sessions end and signing in is refused until then), lift a suspension, close an
    account, or dismiss a report; the user is told (a notice with the reason and how to
    appeal) and the audit log records it with me and the reason. Moderators only."""
    order = actions.Order(
        action=body.action,
        reason=body.reason,
        user_id=body.user_id,
        content_kind=body.content_kind,
        content_id=body.content_id,
        minutes=body.minutes,
        report_id=body.report_id,
    )
    done: actions.Acted = await run_db(
        services, write, services, lambda conn: actions.act(conn, user.id, order, now())
    )
    actions.end_access(services, done)
    return done.as_json()


@router.get(
    "/moderation/audit",
    operation_id="moderation-audit",
    response_model=AuditPage,
    responses=errors(401, 403, 404, 422),
)
async def audit_log(
    user: CurrentUser,
    services: ServicesDep,
    user_id: Annotated[
        str | None, Query(max_length=40, description="Only the entries about this user.")
    ] = None,
    before: Before = None,
    limit: Limit = audit.PAGE,
) -> dict[str, Any]:
    """The audit log, newest first: every action, with the moderator and the reason.
    Moderators only."""

    def work(conn: Connection) -> dict[str, Any]:
        require_moderator(conn, user.id)
        about = None
        if user_id is not None:
            about = other_person(conn, -1, user_id, "").pk
        return audit.listing(conn, about, before, limit)

    return await run_db(services, read, services, work)


# -- testimonials ------------------------------------------------------------------------------


@router.get(
    "/testimonials",
    operation_id="testimonials-list",
    response_model=TestimonialPage,
    responses=errors(422),
)
async def approved(
    services: ServicesDep, before: Before = None, limit: Limit = testimonials.PAGE
) -> dict[str, Any]:
    """The approved testimonials, newest first (anyone may read them)."""
    return await run_db(
        services, read, services, lambda conn: testimonials.listing(conn, "approved", before, limit)
    )


@router.get(
    "/moderation/testimonials",
    operation_id="moderation-testimonials",
    response_model=TestimonialPage,
    responses=errors(401, 403, 422),
)
async def waiting(
    user: CurrentUser,
    services: ServicesDep,
    before: Before = None,
    limit: Limit = testimonials.PAGE,
) -> dict[str, Any]:
    """The testimonials waiting for approval, newest first. Moderators only."""

    def work(conn: Connection) -> dict[str, Any]:
        require_moderator(conn, user.id)
        return testimonials.listing(conn, "pending", before, limit)

    return await run_db(services, read, services, work)


@router.post(
    "/moderation/testimonials/{testimonial_id}/approve",
    operation_id="moderation-testimonial-approve",
    response_model=TestimonialOut,
    responses=errors(400, 401, 403, 404, 409, 422, 503),
)
async def approve(testimonial_id: DbId, user: CurrentUser, services: ServicesDep) -> dict[str, Any]:
    """Approve a testimonial (pending, or hidden before): it is public from now on, and the
    audit log says so. Moderators only; 409 `already_approved`."""
    return await run_db(
        services,
        write,
        services,
        lambda conn: testimonials.approve(conn, user.id, testimonial_id, now()).testimonial,
    )


@router.get(
    "/users/me/testimonial",
    operation_id="testimonials-mine",
    response_model=TestimonialOut,
    responses=errors(401, 404),
)
async def mine(user: CurrentUser, services: ServicesDep) -> dict[str, Any]:
    """My testimonial, in whatever status (404 `no_testimonial` when I have none)."""
    found: dict[str, Any] | None = await run_db(
        services, read, services, lambda conn: testimonials.mine(conn, user.id)
    )
    if found is None:
        raise Refused("not_found", "no_testimonial", "you have not written a testimonial")
    return found


@router.put(
    "/users/me/testimonial",
    operation_id="testimonials-save",
    response_model=TestimonialOut,
    responses=errors(400, 401, 403, 422, 429, 503),
)
async def save(body: TestimonialText, user: CurrentUser, services: ServicesDep) -> dict[str, Any]:
    """Write or rewrite my testimonial (one each); it waits for a moderator's approval
    again. 422 `invalid_body`; 403 `muted`; 429 `rate_limited`."""
    text = testimonials.clean_body(body.body)

    def work() -> dict[str, Any]:
        check_write_rate(services, "testimonial", user.id)
        return write(services, lambda conn: testimonials.save(conn, user.id, text, now()))

    return await run_db(services, work)


@router.delete(
    "/users/me/testimonial",
    operation_id="testimonials-delete",
    response_model=TestimonialDeleted,
    responses=errors(401, 403, 503),
)
async def remove(user: CurrentUser, services: ServicesDep) -> dict[str, bool]:
    """Delete my testimonial."""
    gone = await run_db(services, write, services, lambda conn: testimonials.remove(conn, user.id))
    return {"deleted": gone}


__all__ = ["router"]
