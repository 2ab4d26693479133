"""The ``deliveries`` job: sends what the outbox queued, each delivery at most once per
channel, with several processes on several machines sending at once.

A process *claims* one due delivery at a time in a short write transaction (``FOR UPDATE
SKIP LOCKED`` on PostgreSQL; SQLite's writers take turns): the claim holds it for
:data:`LEASE` and counts an attempt. It then sends outside any transaction and writes the
outcome: ``sent``; ``skipped`` (the game was open in the player's tab: they saw it);
``pending`` again later (a failure that may pass: backoff with jitter, up to
:data:`ATTEMPTS` tries); or ``failed`` (one that cannot pass, or tries spent). A process
killed mid-send leaves its claim to run out; another process then sends it again, so a
receiver may see a repeat only when the kill fell between its send and the outcome's commit:
every channel carries the delivery's id (the e-mail's Message-ID, the webhook's
``Idempotency-Key``, the push payload's ``id``) to tell such a repeat. A send that outlasts
its claim is taken over by another sender; only the holder of a claim writes the outcome.

A digest e-mail gathers every notice of a user that waits for their daily hour into one mail.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal, cast

from sqlalchemy import Connection, Row, Table, select, text, update

from dicehall.server.core.clock import aware, now
from dicehall.server.core.models import Delivery, SeatRow, User
from dicehall.server.domain.jobs import Job
from dicehall.server.domain.notices import account_mail, emails, links, viewing
from dicehall.server.domain.notices.kinds import KINDS, DeliveryFailed, Notice, NoticeKind
from dicehall.server.domain.notices.outbox import JOB
from dicehall.server.domain.notices.push_delivery import deliver_to_user
from dicehall.server.domain.notices.push_subscriptions import of_user
from dicehall.server.domain.notices.webhook_store import get as webhook_of
from dicehall.server.domain.notices.webhook_store import post_and_record
from dicehall.server.domain.notices.zones import local
from dicehall.server.domain.people import settings as user_settings
from dicehall.server.domain.services import Services
from dicehall.server.domain.site_secrets import site_secret
from dicehall.server.infra.mail import MailError, mailer_for

log = logging.getLogger(__name__)

DELIVERIES = cast(Table, Delivery.__table__)
USERS = cast(Table, User.__table__)
SEATS = cast(Table, SeatRow.__table__)
#: Seats whose players left their game (nothing more is sent them about it).
LEFT = ("resigned", "timed_out")

NAME = JOB
#: How long a claim holds a delivery: longer than one send may take.
LEASE = timedelta(seconds=30)
#: The most tries of one delivery.
ATTEMPTS = 8
#: The first retry's wait; each later one doubles, with jitter, up to :data:`LONGEST_WAIT`.
FIRST_WAIT = 15.0
LONGEST_WAIT = 3600.0
#: Deliveries sent at once by one process, and the most one run sends.
SENDERS = 4
MOST_PER_RUN = 400
#: Notices about a game: not sent while its player has it open.
GAME_KINDS: frozenset[str] = frozenset({"your_turn", "time_low", "game_over"})


def job(period: float) -> Job:
    """The job, looking for due deliveries every ``period`` seconds when nothing wakes it."""
    return Job(NAME, period, run)


def run(services: Services, at: datetime) -> int:
    """Send what is due; how many deliveries were settled (sent, skipped or failed)."""
    del at  # each claim reads the clock afresh: sends take time

    def drain(_: int) -> int:
        done = 0
        for _ in range(MOST_PER_RUN // SENDERS):
            claimed = _claim(services)
            if claimed is None:
                break
            if isinstance(claimed, Claimed):
                _settle(services, claimed)
                done += 1
            # else: another sender was claiming that digest; look again.
        return done

    with ThreadPoolExecutor(SENDERS, thread_name_prefix="dicehall-deliveries") as pool:
        return sum(pool.map(drain, range(SENDERS)))


@dataclass(frozen=True)
class Claimed:
    """Deliveries one claim holds: one, or a user's whole digest."""

    rows: list[Row[Any]]
    digest: bool
    #: The end of the claim: the outcome is written only while the rows still hold it.
    until: datetime


def lease(settings_timeout: float) -> timedelta:
    """How long a claim holds: :data:`LEASE`, or longer when the outgoing timeout is long
    enough that one send could outlast it."""
    return max(LEASE, timedelta(seconds=2 * settings_timeout + 10))


#: What :func:`_claim` answers when the delivery it found is another sender's to claim.
BUSY: Literal["busy"] = "busy"
#: The first key of the PostgreSQL advisory lock that makes one sender claim a user's digest.
_DIGEST_LOCK = 35_001


def _digest_is_mine(conn: Connection, user_pk: int) -> bool:
    """Whether this transaction may claim ``user_pk``'s digest: on PostgreSQL, two senders
    could each find one of its rows and claim half of it (two mails); a lock per user held
    until the claim commits lets one through. SQLite's writers take turns anyway."""
    if conn.dialect.name != "postgresql":
        return True
    got = conn.execute(
        text("SELECT pg_try_advisory_xact_lock(:key, :user)"),
        {"key": _DIGEST_LOCK, "user": user_pk},
    ).scalar()
    return bool(got)


def _claim(services: Services) -> Claimed | Literal["busy"] | None:
    with services.write_conn() as conn:
        moment = now()
        free = (DELIVERIES.c.claimed_until.is_(None)) | (DELIVERIES.c.claimed_until < moment)
        found = conn.execute(
            select(DELIVERIES.c.id, DELIVERIES.c.status, DELIVERIES.c.user_pk)
            .where(
                DELIVERIES.c.status.in_(("pending", "digest")),
                DELIVERIES.c.due_at <= moment,
                free,
            )
            .order_by(DELIVERIES.c.due_at)
            .limit(1)
            .with_for_update(skip_locked=True)
        ).one_or_none()
        if found is None:
            return None
        digest = found.status == "digest"
        ids = [found.id]
        if digest and not _digest_is_mine(conn, int(found.user_pk)):
            return BUSY
        if digest:
            # The user's whole digest. Another sender may hold one of its rows for a moment
            # (it found it, then saw the user's lock taken and let go): wait for it rather
            # than skip it, or it would make a second mail. That sender waits on nothing.
            ids = list(
                conn.execute(
                    select(DELIVERIES.c.id)
                    .where(
                        DELIVERIES.c.user_pk == found.user_pk,
                        DELIVERIES.c.status == "digest",
                        DELIVERIES.c.due_at <= moment,
                        free,
                    )
                    .order_by(DELIVERIES.c.id)
                    .with_for_update()
                ).scalars()
            )
        until = moment + lease(services.settings.outbound_timeout)
        rows = conn.execute(
            update(DELIVERIES)
            .where(DELIVERIES.c.id.in_(ids), free)
            .values(claimed_until=until, attempts=DELIVERIES.c.attempts + 1)
            .returning(*DELIVERIES.c)
        ).all()
        return Claimed(sorted(rows, key=lambda r: r.id), digest, until) if rows else None


@dataclass(frozen=True)
class Outcome:
    """How a delivery went: ``sent``, ``skipped``, ``later`` (at ``due``) or ``failed``."""

    status: str
    error: str | None = None
    due: datetime | None = None


def _settle(services: Services, claimed: Claimed) -> None:
    try:
        outcome = _send(services, claimed)
    except DeliveryFailed as exc:
        outcome = _failure(claimed.rows[0], exc)
    except Exception as exc:  # a fault of ours: kept and retried, never lost silently
        log.exception("delivery %s failed", claimed.rows[0].id)
        outcome = _failure(claimed.rows[0], DeliveryFailed(f"internal error: {exc}"))
    moment = now()
    values: dict[str, Any] = {"claimed_until": None, "last_error": outcome.error}
    if outcome.status == "later":
        values |= {"due_at": outcome.due}
        if outcome.error is None:
            # Waiting for a quiet moment is not a try.
            values |= {"attempts": DELIVERIES.c.attempts - 1}
    elif outcome.status in ("sent", "skipped"):
        values |= {"status": outcome.status, "sent_at": moment}
    else:
        values |= {"status": "failed"}
    with services.write_conn() as conn:
        settled = conn.execute(
            update(DELIVERIES)
            .where(
                DELIVERIES.c.id.in_([row.id for row in claimed.rows]),
                DELIVERIES.c.claimed_until == claimed.until,
            )
            .values(**values)
        ).rowcount
    if settled < len(claimed.rows) and not claimed.digest:
        # The send outlasted the claim and another sender took it over: its outcome counts.
        log.warning("delivery %s outlasted its claim", claimed.rows[0].id)


def _failure(row: Row[Any], exc: DeliveryFailed) -> Outcome:
    message = str(exc)[:300]
    if exc.permanent or row.attempts >= ATTEMPTS:
        return Outcome("failed", message)
    wait = min(LONGEST_WAIT, FIRST_WAIT * 2 ** (row.attempts - 1))
    return Outcome("later", message, now() + timedelta(seconds=wait * random.uniform(0.5, 1.5)))


def _send(services: Services, claimed: Claimed) -> Outcome:
    row = claimed.rows[0]
    if row.kind in (account_mail.VERIFY, account_mail.RESET):
        _account_mail(services, row)
        return Outcome("sent")
    if claimed.digest:
        _digest(services, claimed.rows)
        return Outcome("sent")
    if row.game_id is not None:
        waited = _game_outcome(services, row)
        if waited is not None:
            return waited
    notice = _notice(services, row)
    sender: Callable[[Services, Notice], None] = {
        "email": _email,
        "push": _push,
        "webhook": _webhook,
    }[row.channel]
    sender(services, notice)
    return Outcome("sent")


def _has_left(conn: Connection, user_pk: int, game_id: int) -> bool:
    status = conn.execute(
        select(SEATS.c.status).where(SEATS.c.game_id == game_id, SEATS.c.user_pk == user_pk)
    ).scalar()
    return status in LEFT


def _game_outcome(services: Services, row: Row[Any]) -> Outcome | None:
    """For a notice about a game: skipped when its player left the game or has it open in
    a tab now; an e-mail waits until the game has been closed for ``email_quiet_seconds``;
    None: send it now."""
    moment = now()
    with services.read_conn() as conn:
        if _has_left(conn, row.user_pk, row.game_id):
            return Outcome("skipped", "the player has left the game")
        if row.kind not in GAME_KINDS:
            return None
        tab = viewing.seen(conn, row.user_pk, row.game_id, moment)
    if tab.open:
        return Outcome("skipped", "the game was open in the player's tab")
    quiet = timedelta(seconds=services.settings.email_quiet_seconds)
    if row.channel == "email" and tab.last is not None and moment - tab.last < quiet:
        return Outcome("later", None, tab.last + quiet)
    return None


def _notice(services: Services, row: Row[Any]) -> Notice:
    kind: NoticeKind = row.kind if row.kind in KINDS else "your_turn"
    return Notice(
        id=int(row.id),
        user_pk=int(row.user_pk),
        kind=kind,
        game_id=row.game_id,
        title=row.title,
        text=row.text,
        url=services.settings.site_url.rstrip("/") + row.path,
        created_at=aware(row.created_at),
    )


def _address(services: Services, user_pk: int) -> tuple[str, str, str]:
    """The user's verified address, id and time zone (refused for good when none)."""
    with services.read_conn() as conn:
        found = conn.execute(
            select(
                USERS.c.email, USERS.c.email_verified_at, USERS.c.user_id, USERS.c.settings
            ).where(USERS.c.id == user_pk)
        ).one_or_none()
    if found is None or not found.email or found.email_verified_at is None:
        raise DeliveryFailed("the account has no verified e-mail address", permanent=True)
    return str(found.email), str(found.user_id), user_settings.parse(found.settings).time_zone


def _links(services: Services, user_pk: int, kinds: list[NoticeKind]) -> tuple[str, str]:
    site = services.settings.site_url.rstrip("/")
    token = links.unsubscribe_token(site_secret(services), user_pk, kinds)
    return f"{site}/unsubscribe/{token}", f"{site}/settings#notices"


def _mail(services: Services, message: Any) -> None:
    try:
        mailer_for(services.settings).send(message)
    except MailError as exc:
        raise DeliveryFailed(str(exc), permanent=exc.permanent) from None


def _email(services: Services, notice: Notice) -> None:
    to, _, _ = _address(services, notice.user_pk)
    unsubscribe, settings_url = _links(services, notice.user_pk, [notice.kind])
    sender = services.settings.mail_from
    _mail(services, emails.notice_mail(notice, to, sender, unsubscribe, settings_url))


def _digest(services: Services, rows: list[Row[Any]]) -> None:
    to, _, zone_name = _address(services, rows[0].user_pk)
    with services.read_conn() as conn:
        left = [
            r.id for r in rows if r.game_id is not None and _has_left(conn, r.user_pk, r.game_id)
        ]
    if left:
        # Nothing more about a game its player left: those lines are dropped from the mail.
        with services.write_conn() as conn:
            conn.execute(
                update(DELIVERIES)
                .where(DELIVERIES.c.id.in_(left))
                .values(
                    status="skipped",
                    claimed_until=None,
                    sent_at=now(),
                    last_error="the player has left the game",
                )
            )
        rows = [r for r in rows if r.id not in left]
        if not rows:
            return
    notices = [_notice(services, row) for row in rows]
    # One line per game: its latest notice.
    latest: dict[object, Notice] = {}
    for notice in notices:
        latest[notice.game_id if notice.game_id is not None else ("id", notice.id)] = notice
    # The digest's one click turns off every kind it holds.
    kinds = [kind for kind in KINDS if any(n.kind == kind for n in notices)]
    unsubscribe, settings_url = _links(services, rows[0].user_pk, kinds)
    day = local(now(), zone_name).strftime("%A %-d %B")
    message = emails.digest_mail(
        list(latest.values()),
        to,
        services.settings.mail_from,
        day,
        unsubscribe,
        settings_url,
    )
    _mail(services, message)


def _account_mail(services: Services, row: Row[Any]) -> None:
    site = services.settings.site_url.rstrip("/")
    secret = site_secret(services)
    sender = services.settings.mail_from
    with services.read_conn() as conn:
        user = conn.execute(
            select(USERS.c.user_id, USERS.c.email, USERS.c.password_hash).where(
                USERS.c.id == row.user_pk
            )
        ).one_or_none()
    if user is None or user.email != row.title:
        raise DeliveryFailed("the account's address changed before this mail went", permanent=True)
    if row.kind == account_mail.VERIFY:
        token = links.verify_token(secret, row.user_pk, row.title)
        hours = int(links.VERIFY_LIFETIME.total_seconds() // 3600)
        message = emails.verification_mail(
            row.title, sender, user.user_id, f"{site}/verify-email/{token}", hours
        )
    else:
        token = links.reset_token(secret, row.user_pk, user.password_hash)
        minutes = int(links.RESET_LIFETIME.total_seconds() // 60)
        message = emails.reset_mail(
            row.title, sender, user.user_id, f"{site}/reset-password/{token}", minutes
        )
    _mail(services, message)


def _push(services: Services, notice: Notice) -> None:
    report = deliver_to_user(services, notice)
    if report.sent:
        return
    if not report.errors:
        raise DeliveryFailed("no browser subscribed to push", permanent=True)
    with services.read_conn() as conn:
        left = of_user(conn, notice.user_pk)
    # Every subscription that failed has ended (and was dropped): nothing to try again.
    message = "; ".join(error for _, _, error in report.errors)[:300]
    raise DeliveryFailed(message, permanent=not left)


def _webhook(services: Services, notice: Notice) -> None:
    with services.read_conn() as conn:
        hook = webhook_of(conn, notice.user_pk)
    if hook is None:
        raise DeliveryFailed("no webhook is set", permanent=True)
    failed = post_and_record(services, hook, notice)
    if failed is not None:
        raise failed
