"""The HTML forms without a browser: validation, CSRF, and what is kept when a form fails.

(Longer than most test modules: every form's refusals, one short test each.)
"""

from __future__ import annotations

import html as html_lib
import re

import pytest
from fastapi.testclient import TestClient

from dicehall import games
from dicehall.server.core.models import DiceBatch
from dicehall.server.domain.services import Services
from dicehall.server.web import forms
from dicehall.server.web.markdown import to_html

API = "/api/v1"


def _token(html: str) -> str:
    found = re.search(r'name="csrf_token" value="([^"]*)"', html)
    assert found, "the form has no CSRF field"
    return found.group(1)


def _signup(web: TestClient, user_id: str, password: str = "correct horse 42") -> str:
    token = _token(web.get("/signup").text)
    answer = web.post(
        "/signup", data={"csrf_token": token, "user_id": user_id, "password": password}
    )
    assert answer.status_code == 303, answer.text
    return _token(web.get("/profile").text)


def _error_of(html: str, field: str) -> str:
    found = re.search(rf'<p class="field-error" id="f-{field}-error">(.*?)</p>', html, re.S)
    assert found, f"no error next to {field}"
    return html_lib.unescape(re.sub(r"<[^>]+>", "", found.group(1)))


def test_signup_errors_sit_next_to_their_fields_and_keep_the_input(web: TestClient) -> None:
    token = _token(web.get("/signup").text)
    answer = web.post(
        "/signup",
        data={"csrf_token": token, "user_id": "9lives", "display_name": "Nine", "password": "x"},
    )
    assert answer.status_code == 422
    assert "start with a letter" in _error_of(answer.text, "user_id")
    assert 'value="9lives"' in answer.text and 'value="Nine"' in answer.text
    assert 'aria-describedby="f-user_id-hint f-user_id-error"' in answer.text
    assert "at least 8 characters" in _error_of(answer.text, "password")  # all rules at once
    assert 'value="x"' not in answer.text  # the password is never sent back
    answer = web.post("/signup", data={"csrf_token": token, "user_id": "nina", "password": "short"})
    assert "at least 8 characters" in _error_of(answer.text, "password")


def test_signup_without_the_form_token_changes_nothing(web: TestClient) -> None:
    web.get("/signup")
    answer = web.post(
        "/signup", data={"csrf_token": "forged", "user_id": "mallory", "password": "long enough 1"}
    )
    assert answer.status_code == 422
    assert "expired" in answer.text
    assert web.get("/api/v1/users/mallory").status_code == 404


def test_taken_user_id_and_wrong_login(web: TestClient) -> None:
    _signup(web, "Alice")
    web.cookies.clear()
    token = _token(web.get("/signup").text)
    answer = web.post(
        "/signup", data={"csrf_token": token, "user_id": "alice", "password": "another one 9"}
    )
    assert "taken" in _error_of(answer.text, "user_id")
    token = _token(web.get("/login").text)
    answer = web.post(
        "/login", data={"csrf_token": token, "user_id": "alice", "password": "wrong password"}
    )
    assert answer.status_code == 422
    assert "Wrong user id or password" in _error_of(answer.text, "password")
    assert 'value="alice"' in answer.text
    answer = web.post(
        "/login",
        data={"csrf_token": token, "user_id": "alice", "password": "correct horse 42",
              "next": "//evil.example/"},
    )  # fmt: skip
    assert answer.status_code == 303 and answer.headers["location"] == "/status"


def test_pages_need_a_session_and_member_forms_need_its_token(web: TestClient) -> None:
    for path in ("/status", "/new", "/new/boss", "/profile", "/password"):
        answer = web.get(path)
        assert answer.status_code == 303 and answer.headers["location"].startswith("/login?next=")
    _signup(web, "bob")
    answer = web.post("/profile", data={"csrf_token": "nope", "display_name": "Hacked"})
    assert answer.status_code == 422 and "expired" in answer.text
    assert web.get("/api/v1/users/bob").json()["display_name"] == "bob"
    answer = web.post("/logout", data={"csrf_token": "nope"})
    assert answer.status_code == 403
    assert web.get("/status").status_code == 200


def test_new_game_form_errors(web: TestClient) -> None:
    csrf = _signup(web, "carol")
    answer = web.post(
        "/new/boatzee",
        data={"csrf_token": csrf, "opp1": "user", "user1": "nobody-here", "opt_columns": "4",
              "opt_ruleset": "boatzee"},
    )  # fmt: skip
    assert answer.status_code == 422
    # Every independent problem in one answer: the option, the unknown user, the pace.
    assert "must be 1, 2 or 3" in _error_of(answer.text, "opt_columns")
    assert "no user 'nobody-here'" in _error_of(answer.text, "user1")
    assert 'value="nobody-here"' in answer.text
    answer = web.post(
        "/new/boatzee",
        data={"csrf_token": csrf, "opp1": "user", "user1": "nobody-here", "opt_columns": "2",
              "opt_ruleset": "boatzee", "opt_joker": "free", "opp2": "bot:nobot",
              "pace": "sometimes"},
    )  # fmt: skip
    assert "no user 'nobody-here'" in _error_of(answer.text, "user1")
    assert "Choose a bot" in _error_of(answer.text, "opp2")
    assert "Boatzee has no" in _error_of(answer.text, "opt_ruleset")  # options together
    assert "paces in the list" in _error_of(answer.text, "pace")
    answer = web.post("/new/boss", data={"csrf_token": csrf, "opp1": "none", "opt_horses": "2"})
    assert "needs 1 opponent, not 0" in _error_of(answer.text, "opp1")
    answer = web.post(
        "/new/boss", data={"csrf_token": csrf, "opp1": "bot:random", "opt_horses": "two"}
    )
    assert "whole number" in _error_of(answer.text, "opt_horses")
    answer = web.post(
        "/new/boss", data={"csrf_token": csrf, "opp1": "bot:random", "opt_horses": "1"}
    )
    assert answer.status_code == 303 and answer.headers["location"].startswith("/games/")
    assert web.get(answer.headers["location"]).status_code == 200


def test_a_typed_user_id_with_a_bot_chosen_is_refused_not_ignored(web: TestClient) -> None:
    csrf = _signup(web, "erin")
    _signup_other = web.post  # the invited user need not exist: the ambiguity is refused first
    answer = _signup_other(
        "/new/boss", data={"csrf_token": csrf, "opp1": "bot:heuristic", "user1": "frank"}
    )
    assert answer.status_code == 422
    message = _error_of(answer.text, "user1")
    assert "bot: heuristic" in message and "frank" in message
    answer = web.post("/new/boss", data={"csrf_token": csrf, "opp1": "open", "user1": "frank"})
    assert "an open seat" in _error_of(answer.text, "user1")
    assert web.get("/status").text.count('href="/games/') == 0


def test_bots_are_offered_weakest_first_with_a_line_each(web: TestClient) -> None:
    _signup(web, "gina")
    for name in games.available():
        entry = games.get(name)
        page = web.get(f"/new/{name}").text
        offered = re.findall(r'<option value="bot:([^"]+)"', page.split('name="opp1"')[1])
        offered = offered[: len(entry.bots)]
        assert offered == [bot for bot, _ in entry.ranked_bots()]
        assert offered[0] == "random"
        for bot, note in entry.ranked_bots():
            assert note, f"{name}'s bot {bot} has no description"
            assert note in html_lib.unescape(page)
    boss = games.get("boss").ranked_bots()
    assert [bot for bot, _ in boss] == ["random", "heuristic", "odds", "equilibrium"]


def test_every_bad_option_is_reported_in_the_forms_words(web: TestClient) -> None:
    csrf = _signup(web, "hank")
    answer = web.post(
        "/new/tenthousand",
        data={"csrf_token": csrf, "opp1": "bot:random", "opt_target": "10000",
              "opt_entry_threshold": "0", "opt_ante": "-25", "opt_zero_penalty": "many"},
    )  # fmt: skip
    assert answer.status_code == 422
    ante = _error_of(answer.text, "opt_ante")
    penalty = _error_of(answer.text, "opt_zero_penalty")
    assert "“Ante (cents)” must be 0 to 100000" in ante
    assert "“Zero penalty (cents)” must be a whole number" in penalty
    answer = web.post(
        "/new/bullseye",
        data={"csrf_token": csrf, "opp1": "bot:random", "opp2": "bot:random",
              "opt_rounds": "0", "opt_target_points": "55", "opt_bet_limit": "5000",
              "opt_bank": "100"},
    )  # fmt: skip
    limit = _error_of(answer.text, "opt_bet_limit")
    assert "“Bet limit”" in limit and "bet_limit" not in answer.text.split("<form")[0]
    # Rounds 0 with a target is a valid combination: only the bet limit is wrong.
    assert 'id="f-opt_rounds-error"' not in answer.text
    assert "shown, never charged" in web.get("/new/tenthousand").text


def test_every_game_has_a_new_game_form_and_a_rules_page(web: TestClient) -> None:
    _signup(web, "dave")
    for name in games.available():
        form = web.get(f"/new/{name}")
        assert form.status_code == 200
        assert 'name="opp1"' in form.text
        rules = web.get(f"/rules/{name}")
        assert rules.status_code == 200 and "<h1>" in rules.text
    assert web.get("/rules/chess").status_code == 404
    assert web.get("/games/999").status_code == 404


def test_markdown_escapes_raw_html() -> None:
    html = to_html("# Hi\n\n<script>alert(1)</script> [x](javascript:alert(1)) **b**")
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert 'href="javascript' not in html
    assert "<strong>b</strong>" in html


def test_password_change_errors(web: TestClient) -> None:
    csrf = _signup(web, "erin")
    answer = web.post(
        "/password",
        data={"csrf_token": csrf, "old_password": "not it at all", "new_password": "fresh pass 77",
              "confirm_password": "fresh pass 77"},
    )  # fmt: skip
    assert "not your current password" in _error_of(answer.text, "old_password")
    answer = web.post(
        "/password",
        data={"csrf_token": csrf, "old_password": "correct horse 42",
              "new_password": "fresh pass 77", "confirm_password": "fresh pass 78"},
    )  # fmt: skip
    assert "differ" in _error_of(answer.text, "confirm_password")
    answer = web.post(
        "/password",
        data={"csrf_token": csrf, "old_password": "correct horse 42", "new_password": "erin",
              "confirm_password": "erin"},
    )  # fmt: skip
    assert "at least 8" in _error_of(answer.text, "new_password")
    answer = web.post(
        "/password",
        data={"csrf_token": csrf, "old_password": "correct horse 42",
              "new_password": "fresh pass 77", "confirm_password": "fresh pass 77"},
    )  # fmt: skip
    assert answer.status_code == 200 and "Your password is changed" in answer.text


def test_fairness_page_shows_the_log_head_and_old_revealed_batches(
    web: TestClient, services: Services
) -> None:
    from dicehall.server.domain.dice import fairlog
    from tests.server.legacy_batches import make_legacy

    page = web.get("/fairness")
    assert page.status_code == 200 and "No game has finished yet" in page.text
    with services.read_conn() as conn:
        head = fairlog.head(conn)
    assert head is not None and head["hash"] in page.text
    assert "dicehall verify-game proof.json" in page.text
    assert "dicehall verify-log log.json" in page.text
    assert f"public log record {head['seq']}" in page.text or "public log record 1" in page.text
    make_legacy(services)
    with services.write() as db:
        batch = db.get(DiceBatch, 1)
        assert batch is not None
        batch.revealed, batch.revealed_at = True, batch.created_at
    page = web.get("/fairness")
    assert 'href="/api/v1/fairness/batches/1"' in page.text
    assert "dicehall verify-dice batch.json" in page.text


def test_profile_reports_both_fields_and_waiting_room_join_errors(web: TestClient) -> None:
    csrf = _signup(web, "fern")
    answer = web.post(
        "/profile", data={"csrf_token": csrf, "display_name": "x" * 41, "about": "bell\x07"}
    )
    assert "at most 40" in _error_of(answer.text, "display_name")
    assert "control characters" in _error_of(answer.text, "about")
    answer = web.post("/new/boss", data={"csrf_token": csrf, "opp1": "open", "opt_horses": "2"})
    game = answer.headers["location"].rsplit("/", 1)[1]
    room = web.get("/waiting").text
    assert f"Boss Dice #{game}" in room and "You are seated" in room
    answer = web.post(f"/waiting/{game}/join", data={"csrf_token": csrf})
    assert answer.status_code == 409
    assert f'id="join-{game}-error"' in answer.text and "already have a seat" in answer.text


def test_waiting_room_names_the_house_rules(web: TestClient) -> None:
    from dicehall.server.web.game_pages import house_rules

    csrf = _signup(web, "gwen")
    answer = web.post("/new/boss", data={"csrf_token": csrf, "opp1": "open", "opt_horses": "3"})
    game = answer.headers["location"].rsplit("/", 1)[1]
    room = web.get("/waiting").text
    assert f"Boss Dice #{game}" in room and "horses 3" in room
    assert house_rules("boss", {"type": "boss_options", "horses": 2, "max_pickups": None}) == (
        "standard rules"
    )
    assert house_rules("boatzee", {"columns": 3, "ruleset": "yahtzee"}) == (
        "columns 3, ruleset yahtzee"
    )


def _new_game_id(answer: object) -> str:
    location: str = answer.headers["location"]  # type: ignore[attr-defined]
    return location.rsplit("/", 1)[1]


def test_an_invitation_is_answered_from_the_status_page(web: TestClient) -> None:
    """Naming a user invites them: the game waits for their Accept, or a Decline calls it
    off, and its creator may call it off first."""
    other = TestClient(web.app, follow_redirects=False)
    bob_csrf = _signup(other, "bobby")
    csrf = _signup(web, "alva")
    games_made = [
        _new_game_id(
            web.post(
                "/new/boss",
                data={"csrf_token": csrf, "opp1": "user", "user1": "bobby", "opt_horses": "2"},
            )
        )
        for _ in range(3)
    ]
    accepted, declined, withdrawn = games_made

    mine = web.get("/status").text
    assert "waiting for bobby to accept" in mine
    assert f'action="/games/{withdrawn}/cancel"' in mine
    theirs = other.get("/status").text
    assert "Invitations to you" in theirs and "alva invites you" in theirs
    assert f'action="/games/{accepted}/accept"' in theirs
    assert f'action="/games/{accepted}/cancel"' not in theirs

    # A stale form token changes nothing and says why.
    stale = other.post(f"/games/{accepted}/accept", data={"csrf_token": "nope"})
    assert stale.status_code == 422 and f'id="answer-{accepted}-error"' in stale.text
    # Only the creator may call a game off.
    refused = other.post(f"/games/{withdrawn}/cancel", data={"csrf_token": bob_csrf})
    assert refused.status_code == 403 and "Only the player who created" in refused.text

    answer = other.post(f"/games/{accepted}/accept", data={"csrf_token": bob_csrf})
    assert answer.status_code == 303 and answer.headers["location"] == f"/games/{accepted}"
    answer = other.post(f"/games/{declined}/decline", data={"csrf_token": bob_csrf})
    assert answer.status_code == 303 and answer.headers["location"] == "/status"
    answer = web.post(f"/games/{withdrawn}/cancel", data={"csrf_token": csrf})
    assert answer.status_code == 303
    again = other.post(f"/games/{declined}/accept", data={"csrf_token": bob_csrf})
    assert again.status_code == 409 and "You have no open invitation" in again.text

    statuses = {g["id"]: g["status"] for g in web.get("/api/v1/games").json()}
    assert statuses[int(accepted)] == "active"
    assert statuses[int(declined)] == statuses[int(withdrawn)] == "cancelled"
    assert "Called off" in web.get("/status").text


def test_unknown_addresses_get_the_sites_page_and_the_api_keeps_json(web: TestClient) -> None:
    for path in ("/nonexistent", "/people", "/games"):
        answer = web.get(path)
        assert answer.status_code == 404
        assert answer.headers["content-type"].startswith("text/html")
        assert "Not found" in answer.text and "There is no page at this address." in answer.text
    api = web.get("/api/v1/nothing-here")
    assert api.status_code == 404 and api.json()["code"] == "not_found"
    assert web.get("/static/nothing.js").status_code == 404


def test_every_page_has_a_favicon_and_the_header_names_me_by_my_display_name(
    web: TestClient,
) -> None:
    home = web.get("/").text
    assert '<link rel="icon" href="/static/favicon.svg"' in home
    icon = web.get("/static/favicon.svg")
    assert icon.status_code == 200 and icon.headers["content-type"].startswith("image/svg+xml")
    csrf = _signup(web, "dora")
    saved = web.post("/profile", data={"csrf_token": csrf, "display_name": "Dora D", "about": ""})
    assert saved.status_code in (200, 303)
    header = web.get("/status").text.split("</header>")[0]
    assert "Dora D" in header and "(dora)" in header
    footer = web.get("/status").text.split("<footer")[1]
    assert 'class="separator"' in footer


def _row_of(page: str, game: str) -> str:
    found = re.search(rf'<tr[^>]*>\s*<td[^>]*><a href="/games/{game}">.*?</tr>', page, re.S)
    assert found, f"game {game} is not listed"
    return html_lib.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", found.group(0))))


def test_status_page_has_scores_turns_times_and_results(web: TestClient) -> None:
    csrf = _signup(web, "ivan")
    answer = web.post(
        "/new/boss", data={"csrf_token": csrf, "opp1": "bot:random", "opt_horses": "1"}
    )
    game = _new_game_id(answer)
    status = web.get("/status").text
    row = _row_of(status, game)
    # The hand being played (a hand with no Boss is rolled again, so not always the first).
    assert "your turn" in row and re.search(r"hand \d+", row) and "just now" in row
    assert "you: 0 · random bot: 0" in row
    assert "<title>(1) Game status" in status
    assert web.get(f"{API}/games/waiting-on-me").json() == {"your_turn": 1, "invitations": 0}
    # Play the one-horse game out (random legal moves) and read the result.
    for _ in range(300):
        state = web.get(f"{API}/games/{game}").json()
        if state["status"] == "finished":
            break
        moved = web.post(
            f"{API}/games/{game}/actions",
            json={"action": state["legal"][0], "expected_version": state["version"]},
            headers={"X-CSRF-Token": csrf},
        )
        assert moved.status_code == 200, moved.text
    else:
        pytest.fail("the game did not end")
    winners = state["result"]["winners"]
    row = _row_of(web.get("/status").text, game)
    expected = "you won" if winners == [0] else "you lost (random bot won)"
    assert expected in row
    horses = state["result"]["scores"]
    assert f"you: {horses[0]} · random bot: {horses[1]}" in row
    assert "<title>Game status" in web.get("/status").text
    assert web.get(f"{API}/games/waiting-on-me").json() == {"your_turn": 0, "invitations": 0}


def test_moments_read_as_people_say_them() -> None:
    from datetime import UTC, datetime, timedelta

    from dicehall.server.web.moments import ago, moment

    at = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)
    assert ago(at - timedelta(seconds=30), at) == "just now"
    assert ago(at - timedelta(minutes=1, seconds=5), at) == "1 minute ago"
    assert ago(at - timedelta(hours=5), at) == "5 hours ago"
    assert ago(at - timedelta(days=2, hours=3), at) == "2 days ago"
    shown = moment("2026-11-21T08:30:00+00:00", at)
    assert shown.exact == "Sat 21 Nov 2026, 08:30 UTC" and shown.ago == "2 days ago"


def test_rules_pages_speak_the_sites_words_and_lead_to_a_game(web: TestClient) -> None:
    home = html_lib.unescape(web.get("/").text)
    for name in games.NAMES:  # a test game registered by another test has no options table
        title = games.get(name).game.title
        assert f'<a class="button" href="/new/{name}">Play {title}</a>' in home
        page = html_lib.unescape(web.get(f"/rules/{name}").text)
        assert f'href="/new/{name}"' in page
        assert "-o name=value" not in page and "--option" not in page
        assert "<!-- options -->" not in page
        for spec in forms.option_fields(name):
            assert spec.label in page, f"{name}: the option {spec.label!r} is not explained"
            assert f"option `{spec.name}`" not in page and f"<code>{spec.name}</code>" not in page
    tenthousand = re.sub(r"\s+", " ", html_lib.unescape(web.get("/rules/tenthousand").text))
    assert "option “Entry threshold”" in tenthousand
    assert web.get("/new/boss").status_code == 303  # a visitor is asked to log in first


def test_terminal_rules_keep_the_option_names() -> None:
    for name in games.NAMES:
        text = games.get(name).rules_for("terminal")
        assert "<!-- options -->" not in text and "Set them with `-o name=value`" in text
        for spec in forms.option_fields(name):
            assert f"`{spec.name}`" in text


def test_the_new_game_form_sets_the_pace_vacation_and_privacy(web: TestClient) -> None:
    csrf = _signup(web, "hank")
    page = web.get("/new/boss").text
    assert 'name="pace"' in page and 'value="days-14"' in page
    assert re.search(r'id="f-vacation"[^>]*checked', page), "vacation is allowed by default"
    answer = web.post(
        "/new/boss", data={"csrf_token": csrf, "opp1": "bot:random", "pace": "sometimes"}
    )
    assert answer.status_code == 422
    assert "Choose one of the paces" in _error_of(answer.text, "pace")
    answer = web.post(
        "/new/boss",
        data={"csrf_token": csrf, "opp1": "bot:random", "pace": "days-2", "private": "on"},
    )
    assert answer.status_code == 303, answer.text
    game = web.get("/api/v1" + answer.headers["location"]).json()
    assert game["pace"]["name"] == "days-2" and game["private"] is True
    assert game["vacation"] is False  # the box was left unticked
    default = web.post(
        "/new/boss", data={"csrf_token": csrf, "opp1": "bot:random", "vacation": "on"}
    )
    made = web.get("/api/v1" + default.headers["location"]).json()
    assert made["pace"] is None and made["vacation"] is True and made["private"] is False
