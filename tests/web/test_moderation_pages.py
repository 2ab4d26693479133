"""The moderation and testimonial pages without a browser: the Report forms of a profile
and a message work without scripts, the moderators' pages answer moderators only, a queue
form acts and the audit page shows it, and the testimonials page's form."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from dicehall.server.domain.services import Services
from tests.server.test_moderation import make_moderator
from tests.web.test_pages_forms import _signup, _token


def _browser(web: TestClient) -> TestClient:
    return TestClient(web.app, follow_redirects=False)


def test_a_report_from_a_profile_reaches_the_queue_and_a_form_acts_on_it(
    web: TestClient, services: Services
) -> None:
    bob = _browser(web)
    _signup(bob, "bob")
    mia = _browser(web)
    mia_csrf = _signup(mia, "mia")
    csrf = _signup(web, "alice")
    profile = web.get("/users/bob").text
    assert 'action="/report"' in profile and 'name="kind"' in profile
    assert "Their profile (name or about text)" in profile
    # A bad reason is shown next to its field; nothing is filed.
    wrong = web.post(
        "/report",
        data={"csrf_token": csrf, "kind": "user", "target": "bob", "reason": "meh", "back": "/"},
    )
    assert wrong.status_code == 422 and 'id="f-reason-error"' in wrong.text
    sent = web.post(
        "/report",
        data={
            "csrf_token": csrf,
            "kind": "profile",
            "target": "bob",
            "reason": "inappropriate",
            "text": "rude name",
            "back": "//evil.example/",
        },
    )
    assert sent.status_code == 303
    thanks = web.get(sent.headers["location"]).text
    # The way back never leaves the site.
    assert "Report sent" in thanks and 'href="/"' in thanks and "evil" not in thanks
    again = web.post(
        "/report",
        data={"csrf_token": csrf, "kind": "profile", "target": "bob", "reason": "spam"},
    )
    assert again.status_code == 422 and "reported this profile already" in again.text
    # Only moderators see the queue, and only they get the header's link.
    assert web.get("/moderation").status_code == 403
    assert web.get("/moderation/audit").status_code == 403
    assert 'href="/moderation"' not in web.get("/users").text
    make_moderator(services, "mia")
    queue = mia.get("/moderation")
    assert queue.status_code == 200 and "rude name" in queue.text
    assert 'href="/moderation"' in queue.text
    report_id = re.search(r'name="report_id" value="(\d+)"', queue.text)
    assert report_id
    acted = mia.post(
        "/moderation/act",
        data={
            "csrf_token": mia_csrf,
            "report_id": report_id.group(1),
            "action": "mute",
            "minutes": "60",
            "reason": "a rude name",
            "back": "/moderation",
        },
    )
    assert acted.status_code == 303, acted.text
    done = mia.get(acted.headers["location"]).text
    assert "Done: Muted bob until" in done and "No open report." in done
    log = mia.get("/moderation/audit").text
    assert 'data-action="mute"' in log and "a rude name" in log
    user = mia.get("/moderation/users/bob").text
    assert "muted</strong> until" in user and "End the mute" in user
    # A refused action says why on the page it came from.
    refused = mia.post(
        "/moderation/act",
        data={
            "csrf_token": mia_csrf,
            "user_id": "bob",
            "action": "lift",
            "reason": "oops",
            "back": "/moderation/users/bob",
        },
    )
    assert refused.status_code == 422 and "Bob is not suspended." in refused.text


def test_a_message_can_be_reported_and_hidden_messages_say_so(
    web: TestClient, services: Services
) -> None:
    bob = _browser(web)
    bob_csrf = _signup(bob, "bob")
    csrf = _signup(web, "alice")
    wrote = bob.post("/messages/alice", data={"csrf_token": bob_csrf, "body": "nasty"})
    assert wrote.status_code == 303
    thread = web.get("/messages/bob").text
    message_id = re.search(
        r'name="kind" value="message">\s*<input type="hidden" name="target" value="(\d+)"', thread
    )
    assert message_id, thread
    # bob's own page offers no report of his own message.
    assert 'value="message"' not in bob.get("/messages/alice").text
    sent = web.post(
        "/report",
        data={"csrf_token": csrf, "kind": "message", "target": message_id.group(1),
              "reason": "abuse", "back": "/messages/bob"},
    )  # fmt: skip
    assert sent.status_code == 303
    mia = _browser(web)
    mia_csrf = _signup(mia, "mia")
    make_moderator(services, "mia")
    queue = mia.get("/moderation").text
    assert "Hide this message" in queue and "nasty" in queue
    report_id = re.search(r'name="report_id" value="(\d+)"', queue)
    assert report_id
    hidden = mia.post(
        "/moderation/act",
        data={"csrf_token": mia_csrf, "report_id": report_id.group(1), "action": "hide",
              "reason": "insult", "back": "/moderation"},
    )  # fmt: skip
    assert hidden.status_code == 303
    thread = web.get("/messages/bob").text
    assert "(hidden by a moderator)" in thread and "nasty" not in thread
    assert 'value="message"' not in thread  # nothing left to report


def test_the_testimonials_page_writes_one_each(web: TestClient, services: Services) -> None:
    assert "No testimonial yet." in web.get("/testimonials").text
    csrf = _signup(web, "alice")
    empty = web.post("/testimonials", data={"csrf_token": csrf, "body": "  "})
    assert empty.status_code == 422 and 'id="f-body-error"' in empty.text
    saved = web.post("/testimonials", data={"csrf_token": csrf, "body": "Lovely dice"})
    assert saved.status_code == 303
    page = web.get("/testimonials").text
    assert "Awaiting approval" in page and "Lovely dice" in page and "No testimonial yet." in page
    mia = _browser(web)
    mia_csrf = _signup(mia, "mia")
    make_moderator(services, "mia")
    queue = mia.get("/moderation").text
    testimonial = re.search(r"/moderation/testimonials/(\d+)/approve", queue)
    assert testimonial
    approved = mia.post(testimonial.group(0), data={"csrf_token": mia_csrf})
    assert approved.status_code == 303
    page = web.get("/testimonials").text
    assert "Approved" in page and 'class="testimonial-body">Lovely dice' in page
    assert "Report<span" not in page  # one's own testimonial has no report button
    assert "Report<span" in mia.get("/testimonials").text
    gone = web.post("/testimonials/delete", data={"csrf_token": _token(page)})
    assert gone.status_code == 303
    assert "No testimonial yet." in web.get("/testimonials").text


def test_the_way_back_from_a_report_never_leaves_the_site(web: TestClient) -> None:
    _signup(web, "alice")
    # Browsers drop tabs and line breaks from a link and read a backslash as a slash, so
    # each of these would lead to evil.example.
    for back in ("/\t/evil.example/", "/\n/evil.example/", "/\t\\evil.example/", "/\\evil"):
        form = web.get("/report", params={"kind": "user", "target": "bob", "back": back}).text
        assert "evil" not in form, back
        thanks = web.get("/report/sent", params={"back": back}).text
        assert 'href="/"' in thanks and "evil" not in thanks, back
    kept = web.get("/report/sent", params={"back": "/games/5?tab=chat"}).text
    assert 'href="/games/5?tab=chat"' in kept
