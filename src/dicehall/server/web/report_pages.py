"""Reporting from the pages: the "Report" form that profiles, messages, testimonials and
each chat line of a board offer (``templates/_report.html``), and its page.

``GET /report?kind=chat&target=ID&back=/games/5`` is the form on a page of its own (a
board's chat links to it); ``POST /report`` files the report and shows the thanks page, or
the form again with what is wrong. Reports are allowed while muted.
"""

from __future__ import annotations

from urllib.parse import urlencode

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from sqlalchemy import Connection

from dicehall.server.core.clock import now
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.moderation import reports
from dicehall.server.domain.moderation.content import KIND_WORDS
from dicehall.server.domain.work import run_db, write
from dicehall.server.domain.write_rates import check_write_rate
from dicehall.server.web import forms
from dicehall.server.web.common import EXPIRED, Member, member_token_ok, report, see, services_of
from dicehall.server.web.forms import Form
from dicehall.server.web.render import TEMPLATES, page

router = APIRouter(include_in_schema=False)

# Every page's "Report" form lists the reasons (``_report.html`` is imported by many pages).
TEMPLATES.env.globals["report_reasons"] = list(reports.REASON_WORDS.items())

#: Which field a refusal belongs next to (by its code); others go above the form.
FIELDS = {"invalid_reason": "reason", "invalid_text": "text"}


def safe_back(path: str) -> str:
    """``path`` if it is a path on this site, else the home page (never another site)."""
    # Browsers drop tabs and line breaks from a link and read a backslash as "/": a path
    # such as "/<TAB>/evil.example" leads to another site as "//evil.example" does.
    if (
        path.startswith("/")
        and not path.startswith("//")
        and "\\" not in path
        and path.isprintable()
        and len(path) <= 300
    ):
        return path
    return "/"


def _what(kind: str) -> str:
    words = KIND_WORDS.get(kind)
    return f"this {words}" if words else "something"


def _form_page(request: Request, who: Member, form: Form, status_code: int) -> HTMLResponse:
    return page(
        request,
        "report.html",
        user=who.user,
        csrf=who.csrf,
        status_code=status_code,
        form=form,
        what=_what(form.get("kind")),
        back=safe_back(form.get("back")),
        sent=False,
    )


@router.get("/report", response_class=HTMLResponse)
async def report_page(
    request: Request, who: Member, kind: str = "", target: str = "", back: str = "/"
) -> Response:
    """The report form on a page of its own, for ``kind`` ``target``."""
    form = Form({"kind": kind[:20], "target": target[:40], "back": back})
    return _form_page(request, who, form, 200)


@router.get("/report/sent", response_class=HTMLResponse)
async def report_sent(request: Request, who: Member, back: str = "/") -> Response:
    """Thanks for a report, with a link back where it was made."""
    return page(
        request, "report.html", user=who.user, csrf=who.csrf, sent=True, back=safe_back(back)
    )


@router.post("/report", response_class=HTMLResponse)
async def file_report(request: Request, who: Member) -> Response:
    """File the posted report; on to the thanks page, or the form again with what is wrong."""
    form = await forms.read_form(request)
    if not member_token_ok(who, form):
        form.problem = EXPIRED
    else:
        try:
            reports.check_reason(form.get("reason"))
            reports.clean_text(form.get("text"), reports.TEXT_MOST, "a note", "invalid_text")
        except Refused as exc:
            report(form, exc, FIELDS)
    if form.ok:
        services = services_of(request)

        def work() -> None:
            check_write_rate(services, "report", who.user.id)

            def filed(conn: Connection) -> None:
                reports.file_report(
                    conn,
                    who.user.id,
                    form.get("kind"),
                    form.get("target"),
                    form.get("reason"),
                    form.get("text"),
                    now(),
                )

            write(services, filed)

        try:
            await run_db(services, work)
        except Refused as exc:
            report(form, exc, FIELDS)
        else:
            return see("/report/sent?" + urlencode({"back": safe_back(form.get("back"))}))
    return _form_page(request, who, form, 422)
