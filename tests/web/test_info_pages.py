"""The Info pages without a browser: Help and its search, the Game Rules index, News and New
Releases with their Atom feeds, Features and tips, Become a member with this site's limits,
Who is here? for visitors, and the content files every one of them reads."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from xml.etree import ElementTree

import pytest
from fastapi.testclient import TestClient

from dicehall import games
from dicehall.server.app import create_app
from dicehall.server.domain.games import quotas
from dicehall.server.domain.people import invites
from dicehall.server.domain.services import build_services
from dicehall.server.web import content
from dicehall.server.web.content import ContentError, parse
from tests.server.conftest import site_settings
from tests.sqlite_template import migrated_sqlite
from tests.web.test_pages_forms import _signup

ATOM = "{http://www.w3.org/2005/Atom}"
SITE_URL = "https://dice.example.org/hall"
#: The help topics the seed's site answers, by the address of their pages.
TOPICS = (
    "how-to-start",
    "clocks-and-vacation",
    "ratings",
    "ladders",
    "tournaments",
    "ignore-and-buddies",
    "fair-dice",
    "terminal",
    "notifications",
)


@pytest.fixture
def tuned(tmp_path: Path) -> Iterator[TestClient]:
    """A site whose settings differ from the defaults where these pages print them."""
    services = build_services(
        site_settings(
            migrated_sqlite(tmp_path / "info.sqlite3"),
            site_url=SITE_URL + "/",
            max_active_games=37,
            max_open_games=4,
            session_days=9,
        )
    )
    try:
        with TestClient(create_app(services=services), follow_redirects=False) as client:
            yield client
    finally:
        services.engine.dispose()


def _text(html: str) -> str:
    """The page's words, tags and repeated spaces gone."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


# -- help --------------------------------------------------------------------------------------


def test_the_help_search_finds_and_marks_the_words_on_the_server(web: TestClient) -> None:
    found = web.get("/help", params={"q": "Boatzee dice GENERATED"})
    assert found.status_code == 200
    results = found.text.split('id="results"', 1)[1]
    first = re.search(r'<h3><a href="(/help/[^"]+)">', results)
    assert first and first.group(1) == "/help/fair-dice"
    assert "<mark>Boatzee</mark> <mark>dice</mark> <mark>generated</mark>" in results
    assert "1 topic with “Boatzee dice GENERATED”" in results  # every word must appear
    assert "<title>“Boatzee dice GENERATED” · Help · dicehall</title>" in found.text

    several = web.get("/help?q=vacation").text.split('id="results"', 1)[1]
    hits = re.findall(r'<h3><a href="/help/([^"]+)">', several)
    assert hits[0] == "clocks-and-vacation"  # the word in its title comes first
    assert {"ladders", "tournaments"} <= set(hits)

    none = web.get("/help?q=zeppelin").text
    assert "0 topics with “zeppelin”" in none and "No topic holds every word" in none


def test_a_search_the_help_cannot_run_is_named_next_to_the_field(web: TestClient) -> None:
    too_long = web.get("/help", params={"q": "dice " * 30})
    assert too_long.status_code == 422
    assert "A search is at most 100 characters long." in too_long.text
    assert 'aria-invalid="true"' in too_long.text and 'id="results"' not in too_long.text
    no_words = web.get("/help", params={"q": "?!"})
    assert no_words.status_code == 422 and "Search for a word" in no_words.text
    # Markup typed into the search is shown as text, in the field and in the heading.
    typed = web.get("/help", params={"q": "<b>dice</b>"}).text
    assert "<b>dice</b>" not in typed and "&lt;b&gt;dice&lt;/b&gt;" in typed


def test_every_help_topic_has_its_page_and_a_missing_one_is_a_404(web: TestClient) -> None:
    index = web.get("/help").text
    for topic in TOPICS:
        assert f'href="/help/{topic}"' in index
        answer = web.get(f"/help/{topic}")
        assert answer.status_code == 200, topic
        assert f"<h1>{content.find('help', topic).title}</h1>" in answer.text  # type: ignore[union-attr]
    dice = _text(web.get("/help/fair-dice").text)
    for fact in ("How are the Boatzee dice generated?", "Your seed", "never reused", "Merkle root"):
        assert fact in dice
    assert "dicehall verify-game" in dice
    assert "pip install dicehall" in web.get("/help/terminal").text
    missing = web.get("/help/no-such-topic")
    assert missing.status_code == 404 and "There is no help topic at this address." in missing.text


def test_every_page_links_help_and_the_feeds(web: TestClient) -> None:
    home = web.get("/").text
    assert '<a href="/help">Help!</a>' in home
    for feed in ("/news.atom", "/releases.atom"):
        assert 'rel="alternate" type="application/atom+xml"' in home and f'href="{feed}"' in home


# -- game rules --------------------------------------------------------------------------------


def test_the_rules_index_links_every_game_and_names_double_and_triple(web: TestClient) -> None:
    index = web.get("/rules")
    assert index.status_code == 200
    for name in games.available():
        assert f'href="/rules/{name}"' in index.text
        assert web.get(f"/rules/{name}").status_code == 200
    words = _text(index.text)
    assert "Boatzee, Double Boatzee and Triple Boatzee" in words
    assert "“Variant: Triple Boatzee (3 columns)”" in words
    assert 'href="/help/fair-dice"' in index.text


# -- news and releases -------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/news", "/releases"])
def test_the_feeds_are_atom_with_every_post_and_absolute_links(
    tuned: TestClient, path: str
) -> None:
    folder = "news" if path == "/news" else "releases"
    posts = content.docs(folder)
    assert len(posts) >= 2
    answer = tuned.get(f"{path}.atom")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("application/atom+xml")
    feed = ElementTree.fromstring(answer.content)
    assert feed.tag == f"{ATOM}feed"
    assert feed.findtext(f"{ATOM}id") == f"{SITE_URL}{path}"
    assert feed.findtext(f"{ATOM}title")
    assert feed.find(f"{ATOM}author/{ATOM}name") is not None
    newest = max(p.published for p in posts if p.published is not None)
    assert feed.findtext(f"{ATOM}updated") == newest.isoformat()
    links = {link.get("rel"): link.get("href") for link in feed.findall(f"{ATOM}link")}
    assert links == {"self": f"{SITE_URL}{path}.atom", "alternate": f"{SITE_URL}{path}"}
    entries = feed.findall(f"{ATOM}entry")
    assert [e.findtext(f"{ATOM}title") for e in entries] == [p.title for p in posts]
    for entry, post in zip(entries, posts, strict=True):
        address = f"{SITE_URL}{path}/{post.slug}"
        assert entry.findtext(f"{ATOM}id") == address
        assert entry.find(f"{ATOM}link").get("href") == address  # type: ignore[union-attr]
        assert entry.findtext(f"{ATOM}updated") == post.published.isoformat()  # type: ignore[union-attr]
        body = entry.find(f"{ATOM}content")
        assert body is not None and body.get("type") == "html" and body.text == str(post.html)
    # The HTML list: newest first, each post's page, and a bad address is the 404 page.
    listed = tuned.get(path).text
    assert re.findall(rf'<h2><a href="{path}/([^"]+)">', listed) == [p.slug for p in posts]
    page = tuned.get(f"{path}/{posts[0].slug}")
    assert page.status_code == 200 and posts[0].title.replace("'", "&#39;") in page.text
    for bad in (f"{path}/no-such-post", f"{path}/..%2Fhelp%2Fratings", f"{path}/Ratings"):
        assert tuned.get(bad).status_code == 404, bad


def test_the_releases_sum_up_the_site_and_the_news_tells_of_notices(web: TestClient) -> None:
    summary = _text(web.get("/releases/what-the-site-can-do").text)
    assert "dicehall verify-game" in summary and "Auto-Match" in summary
    notices = _text(web.get("/news/notices-wherever-you-are").text)
    assert "E-mail" in notices and "Web push" in notices and "Webhooks" in notices


# -- features, member --------------------------------------------------------------------------


def test_the_member_page_prints_this_sites_limits(tuned: TestClient, web: TestClient) -> None:
    def row(html: str, what: str) -> str:
        found = re.search(rf'<th scope="row">{re.escape(what)}</th><td>([^<]*)</td>', html)
        assert found, what
        return found.group(1)

    tuned_page = tuned.get("/member").text
    assert row(tuned_page, "Games in progress at once") == "37"
    assert row(tuned_page, "Games waiting for players that you created or sit in") == "4"
    assert row(tuned_page, "Staying signed in on a device") == "9 days"
    default_page = web.get("/member").text
    assert row(default_page, "Games in progress at once") == "100"
    assert row(default_page, "New games you create in a minute") == str(quotas.CREATES_PER_MINUTE)
    assert row(default_page, "Invite links (Tell a friend!) you make in a day") == (
        f"{invites.PER_DAY}, each good for {invites.LIFETIME.days} days"
    )
    assert "free" in default_page and 'href="/signup">Create new userid' in default_page


# -- who is here, for visitors -----------------------------------------------------------------


def test_visitors_see_who_is_here_but_never_who_hides(web: TestClient) -> None:
    _signup(web, "sly")
    web.cookies.clear()
    csrf = _signup(web, "shy")
    hidden = web.patch(
        "/api/v1/users/me/settings", json={"show_presence": False}, headers={"X-CSRF-Token": csrf}
    )
    assert hidden.status_code == 200, hidden.text
    assert web.get("/status").status_code == 200  # shy is about, hidden
    web.cookies.clear()

    seen = web.get("/here")
    assert seen.status_code == 200
    assert 'data-user="sly"' in seen.text and 'href="/users/sly"' in seen.text
    assert "shy" not in seen.text
    assert "1 player here now, 1 in the last 15 minutes." in seen.text
    assert "Members who choose to hide are not listed." in seen.text
    assert 'class="tag buddy"' not in seen.text


# -- the content files -------------------------------------------------------------------------


def test_every_content_file_loads_in_order() -> None:
    topics = content.docs("help")
    assert [t.slug for t in topics] == list(TOPICS)
    for folder in ("news", "releases"):
        posts = content.docs(folder)
        dates = [p.published for p in posts]
        assert all(d is not None for d in dates)
        assert dates == sorted(dates, reverse=True)  # type: ignore[type-var]
        assert all(p.summary for p in posts)


@pytest.mark.parametrize(
    ("name", "text", "problem"),
    [
        ("Bad Name.md", "---\ntitle: t\norder: 1\n---\nx", "the name must be a slug"),
        ("topic.txt", "---\ntitle: t\norder: 1\n---\nx", "the name must be a slug"),
        ("topic.md", "title: t\norder: 1\n", "front matter between --- lines"),
        ("topic.md", "---\ntitle: t\norder: 1\n", "front matter between --- lines"),
        ("topic.md", "---\ntitle: t\n---\nx", "exactly order, title"),
        ("topic.md", "---\ntitle: t\norder: 1\nsummary: s\n---\nx", "exactly order, title"),
        ("topic.md", "---\ntitle t\norder: 1\n---\nx", "is not 'key: value'"),
        ("topic.md", "---\ntitle: t\norder: first\n---\nx", "order must be a whole number"),
    ],
)
def test_a_help_file_the_site_cannot_use_is_named_with_its_fault(
    name: str, text: str, problem: str
) -> None:
    with pytest.raises(ContentError, match=re.escape(problem)):
        parse(name, text, "help")


def test_a_post_needs_an_iso_date() -> None:
    good = parse("p.md", "---\ntitle: T\ndate: 2026-12-08\nsummary: S\n---\nBody", "news")
    assert good.published is not None and good.published.isoformat() == "2026-12-08T00:00:00+00:00"
    with pytest.raises(ContentError, match="is not an ISO date"):
        parse("p.md", "---\ntitle: T\ndate: 8 December\nsummary: S\n---\nBody", "news")
