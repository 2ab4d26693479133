"""Help: the frequently asked questions, one page per topic (``content/help/*.md``), and a
search over them done on the server (``/help?q=...``), so it works without scripts."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from dicehall.server.web import content, help_search
from dicehall.server.web.common import not_found, visitor
from dicehall.server.web.forms import Form
from dicehall.server.web.render import page

router = APIRouter(include_in_schema=False)


@router.get("/help", response_class=HTMLResponse)
def help_page(request: Request) -> HTMLResponse:
    """Every topic, and with ``?q=`` the topics that hold every word asked, marked."""
    who = visitor(request)
    # Read as sent (up to a little past the limit), so a too long search is named, not cut.
    asked = request.query_params.get("q", "")[: help_search.QUERY_MAX + 1]
    form = Form({"q": asked})
    hits: list[help_search.Hit] | None = None
    if len(asked) > help_search.QUERY_MAX:
        form.error("q", f"A search is at most {help_search.QUERY_MAX} characters long.")
    elif asked.strip():
        if help_search.words_of(asked):
            hits = help_search.search(content.docs("help"), asked)
        else:
            form.error("q", "Search for a word: letters or digits.")
    return page(
        request,
        "help.html",
        user=who.user,
        csrf=who.csrf,
        status_code=200 if form.ok else 422,
        form=form,
        asked=asked.strip(),
        hits=hits,
        topics=content.docs("help"),
        most=help_search.QUERY_MAX,
    )


@router.get("/help/{topic}", response_class=HTMLResponse)
def topic_page(request: Request, topic: str) -> HTMLResponse:
    """One help topic."""
    who = visitor(request)
    doc = content.find("help", topic)
    if doc is None:
        return not_found(request, who, "There is no help topic at this address.")
    return page(
        request,
        "help_topic.html",
        user=who.user,
        csrf=who.csrf,
        doc=doc,
        topics=content.docs("help"),
    )
