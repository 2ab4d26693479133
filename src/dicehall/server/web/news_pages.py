"""News and New Releases: posts shipped as Markdown (``content/news/``, ``content/releases/``),
each with its page, listed newest first, and an Atom feed of each (``/news.atom``,
``/releases.atom``) that every page links in its head."""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from dicehall.server.web import atom, content
from dicehall.server.web.common import not_found, services_of, visitor
from dicehall.server.web.render import page

router = APIRouter(include_in_schema=False)


@dataclass(frozen=True)
class Stream:
    """One kind of post: its folder, its address and its words."""

    folder: content.Folder
    path: str
    title: str
    lead: str


NEWS = Stream("news", "/news", "News", "What is new on dicehall, newest first.")
RELEASES = Stream(
    "releases",
    "/releases",
    "New Releases",
    "What each release of the site brought, newest first.",
)


def _list(request: Request, stream: Stream) -> HTMLResponse:
    who = visitor(request)
    return page(
        request,
        "posts.html",
        user=who.user,
        csrf=who.csrf,
        stream=stream,
        posts=content.docs(stream.folder),
    )


def _post(request: Request, stream: Stream, slug: str) -> HTMLResponse:
    who = visitor(request)
    doc = content.find(stream.folder, slug)
    if doc is None:
        return not_found(request, who, f"There is no post at this address in {stream.title}.")
    return page(request, "post.html", user=who.user, csrf=who.csrf, stream=stream, doc=doc)


def _feed(request: Request, stream: Stream) -> Response:
    body = atom.feed(
        services_of(request).settings.site_url,
        stream.path,
        f"dicehall: {stream.title}",
        content.docs(stream.folder),
    )
    return Response(body, media_type=atom.MEDIA_TYPE)


@router.get("/news", response_class=HTMLResponse)
def news(request: Request) -> HTMLResponse:
    """The news, newest first."""
    return _list(request, NEWS)


@router.get("/news.atom")
def news_feed(request: Request) -> Response:
    """The news as an Atom feed."""
    return _feed(request, NEWS)


@router.get("/news/{slug}", response_class=HTMLResponse)
def news_post(request: Request, slug: str) -> HTMLResponse:
    """One news post."""
    return _post(request, NEWS, slug)


@router.get("/releases", response_class=HTMLResponse)
def releases(request: Request) -> HTMLResponse:
    """The release notes, newest first."""
    return _list(request, RELEASES)


@router.get("/releases.atom")
def releases_feed(request: Request) -> Response:
    """The release notes as an Atom feed."""
    return _feed(request, RELEASES)


@router.get("/releases/{slug}", response_class=HTMLResponse)
def release_post(request: Request, slug: str) -> HTMLResponse:
    """One release note."""
    return _post(request, RELEASES, slug)
