"""Search user profiles and the profile page: in Chromium, search finds a user, opens the
profile, Buddy saves the note, which only its writer sees; HTML in a display name, an about
text and a note stays text. Without a browser: the search form's errors and fuzzy note, the
relation forms' refusals, and the profile's head-to-head and current games."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient
from playwright.sync_api import Browser, BrowserContext, Page, expect

from dicehall.server.domain.services import Services
from tests.live import LiveServer
from tests.web.conftest import accept_game_api, create_game_api, shoot
from tests.web.test_pages_forms import _error_of, _signup

API = "/api/v1"
#: What would run if any of these texts were rendered as HTML.
BOB_NAME = "<img src=x onerror=window.__pwned=1> Bob"
BOB_ABOUT = "<script>window.__pwned=2</script><b>bold?</b>"
NOTE = "<img src=x onerror=window.__pwned=3> owes me a rematch"


def signup(context: BrowserContext, user_id: str, display_name: str) -> str:
    answer = context.request.post(
        f"{API}/auth/signup",
        data={"user_id": user_id, "password": "correct horse 42", "display_name": display_name},
    )
    assert answer.ok, answer.text()
    csrf: str = answer.json()["csrf_token"]
    return csrf


def nothing_ran(page: Page) -> None:
    assert page.evaluate("window.__pwned === undefined")


def fits(page: Page) -> None:
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def test_search_open_a_profile_press_buddy_and_the_note_stays_private(
    page: Page, browser: Browser, site: LiveServer
) -> None:
    others = browser.new_context(base_url=site.base, bypass_csp=True)
    try:
        bob_csrf = signup(others, "bobby", BOB_NAME)
        edited = others.request.patch(
            f"{API}/users/me", data={"about": BOB_ABOUT}, headers={"X-CSRF-Token": bob_csrf}
        )
        assert edited.ok, edited.text()
        annie_csrf = signup(page.context, "annie", "Annie Hall")
        # One game in progress and one Annie won (Bobby resigned) against Bobby.
        playing = create_game_api(page.context, annie_csrf, "tenthousand", ["me", "bobby"])
        accept_game_api(others, bob_csrf, playing)
        won = create_game_api(page.context, annie_csrf, "tenthousand", ["me", "bobby"])
        accept_game_api(others, bob_csrf, won)
        version = others.request.get(f"{API}/games/{won}").json()["version"]
        resigned = others.request.post(
            f"{API}/games/{won}/resign",
            data={"expected_version": version},
            headers={"X-CSRF-Token": bob_csrf},
        )
        assert resigned.ok, resigned.text()
        for n in range(3):
            passing = browser.new_context(base_url=site.base)
            signup(passing, f"bobcat{n}", f"Bob Cat {n}")
            passing.close()

        # Search from the keyboard: type, Enter.
        page.goto("/users")
        page.get_by_label("Name").fill("BOB")
        page.keyboard.press("Enter")
        expect(page).to_have_url(re.compile(r"/users\?q=BOB"))
        results = page.get_by_role("list", name="Users found")
        expect(results.get_by_role("listitem")).to_have_count(4)
        expect(results.get_by_role("link", name=BOB_NAME)).to_be_visible()
        nothing_ran(page)
        shoot(page, "page-users-search")
        page.set_viewport_size({"width": 390, "height": 844})
        fits(page)
        shoot(page, "page-users-search-phone")
        page.set_viewport_size({"width": 1100, "height": 900})

        # A name with a typo: no name starts with it, the closest are offered.
        page.goto("/users?q=bobyb")
        expect(page.locator("#fuzzy-note")).to_have_text(
            "No name starts with “bobyb”, did you mean:"
        )
        expect(page.get_by_role("link", name=BOB_NAME)).to_be_visible()

        page.get_by_role("link", name=BOB_NAME).click()
        expect(page.get_by_role("heading", level=1)).to_have_text(BOB_NAME)
        expect(page.locator("p.about")).to_have_text(BOB_ABOUT)
        expect(page.get_by_role("link", name="New game", exact=True)).to_have_attribute(
            "href", "/new?opponent=bobby"
        )
        expect(page.get_by_role("link", name="Message", exact=True)).to_have_attribute(
            "href", "/messages/new?to=bobby"
        )
        expect(page.locator("ul.current-games")).to_contain_text(f"Ten Thousand #{playing}")
        expect(page.locator("#head-to-head")).to_contain_text("1 won, 0 lost, 0 drawn")
        expect(page.locator("#relation-now")).to_contain_text("You have not named them")
        page.get_by_label("Private note").fill(NOTE)
        page.get_by_role("button", name="Buddy").click()
        expect(page).to_have_url(re.compile(r"/users/bobby\?saved=buddy#relation$"))
        expect(page.locator("#relation-saved")).to_have_text("bobby is your buddy now.")
        expect(page.locator("#relation-now")).to_contain_text("They are your buddy")
        expect(page.locator("#relation-note")).to_have_text(NOTE)
        expect(page.get_by_label("Private note")).to_have_value(NOTE)
        nothing_ran(page)
        shoot(page, "page-user-profile")
        page.set_viewport_size({"width": 390, "height": 844})
        fits(page)
        shoot(page, "page-user-profile-phone")

        # Search marks my buddy.
        page.goto("/users?q=bobby")
        expect(page.locator("ul.people li").first).to_contain_text("your buddy")

        # Nobody else sees the note: not Bob on his own profile, not a visitor.
        theirs = others.new_page()
        theirs.goto("/users/bobby")
        expect(theirs.get_by_role("heading", level=1)).to_have_text(BOB_NAME)
        assert "owes me a rematch" not in theirs.content()
        expect(theirs.get_by_role("button", name="Buddy")).to_have_count(0)  # my own profile
        theirs.goto("/users/annie")
        assert "owes me a rematch" not in theirs.content()
        expect(theirs.locator("#relation-now")).to_contain_text("You have not named them")
        visitor = browser.new_context(base_url=site.base)
        try:
            seen = visitor.new_page()
            seen.goto("/users/bobby")
            assert "owes me a rematch" not in seen.content()
            expect(seen.get_by_role("button", name="Buddy")).to_have_count(0)
        finally:
            visitor.close()

        # Remove forgets the buddy and the note.
        page.goto("/users/bobby")
        page.get_by_role("button", name="Remove from my buddies").click()
        expect(page.locator("#relation-saved")).to_have_text("bobby is no longer on your lists.")
        expect(page.locator("#relation-note")).to_have_count(0)
        nothing_ran(page)
    finally:
        others.close()


# -- without a browser -----------------------------------------------------------------------------


def test_the_search_form_says_what_is_wrong_and_pages(web: TestClient) -> None:
    assert web.get("/users").status_code == 200
    answer = web.get("/users", params={"q": "x" * 41})
    assert answer.status_code == 422
    assert "1 to 40 characters" in _error_of(answer.text, "q")
    assert web.get("/users", params={"q": "   "}).status_code == 200  # nothing asked yet
    for n in range(3):
        web.cookies.clear()  # signed out, to sign the next one up
        _signup(web, f"pager{n}")
    first = web.get("/users", params={"q": "PAGE"})
    results = first.text.split('<ul class="people"')[1].split("</ul>")[0]
    listed = re.findall(r'<a href="/users/(\w+)">', results)
    # In the order of the folded names: "pager1" is "pagerl", "pager0" is "pagero".
    assert listed == ["pager2", "pager1", "pager0"] and 'rel="next"' not in first.text
    answer = web.get("/users", params={"q": "page", "cursor": "junk"})
    assert answer.status_code == 422 and "cursor" in answer.text
    none = web.get("/users", params={"q": "zzzz"})
    assert "none is close to it" in none.text


def test_the_relation_forms_refuse_clearly(web: TestClient, services: Services) -> None:
    _signup(web, "target")
    web.cookies.clear()
    csrf = _signup(web, "writer")
    assert (
        web.post("/users/target/relation", data={"csrf_token": csrf, "kind": "buddy"}).status_code
        == 303
    )
    too_long = web.post(
        "/users/target/relation", data={"csrf_token": csrf, "kind": "ignore", "note": "n" * 201}
    )
    assert too_long.status_code == 422
    assert "at most 200 characters" in _error_of(too_long.text, "note")
    assert 'value="ignore"' in too_long.text and "n" * 201 in too_long.text  # kept
    forged = web.post("/users/target/relation", data={"csrf_token": "forged", "kind": "ignore"})
    assert forged.status_code == 422 and "expired" in forged.text
    assert (
        web.post("/users/nobody/relation", data={"csrf_token": csrf, "kind": "buddy"}).status_code
        == 404
    )
    myself = web.post("/users/writer/relation", data={"csrf_token": csrf, "kind": "buddy"})
    assert myself.status_code == 422 and "yourself" in myself.text
    odd = web.post("/users/target/relation", data={"csrf_token": csrf, "kind": "friend"})
    assert odd.status_code == 422 and "Choose Buddy, Ignore or Save note" in odd.text
    # The note alone, kept with what was said: still a buddy.
    saved = web.post(
        "/users/target/relation", data={"csrf_token": csrf, "kind": "note", "note": "kind"}
    )
    assert saved.status_code == 303 and saved.headers["location"].endswith("?saved=note#relation")
    profile = web.get("/users/target").text
    assert "They are your <strong>buddy</strong>" in profile and ">kind</span>" in profile
    gone = web.post("/users/target/relation/remove", data={"csrf_token": csrf})
    assert gone.status_code == 303
    alone = web.post("/users/target/relation", data={"csrf_token": csrf, "kind": "note"})
    assert alone.status_code == 422 and "a note goes with one of them" in alone.text
    web.cookies.clear()
    visitor = web.post("/users/target/relation", data={"kind": "buddy"})
    assert visitor.status_code == 303 and visitor.headers["location"].startswith("/login")
