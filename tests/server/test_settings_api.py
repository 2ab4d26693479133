"""My settings over the API: the defaults, changing one or several,
every kind of wrong change refused as a whole (nothing stored), damaged stored settings read
as the defaults, and a change pushed to my open pages (and nobody else's)."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import select, update

from dicehall.server.core.models import User
from dicehall.server.domain.notices.kinds import KINDS
from dicehall.server.domain.ratings import kinds
from dicehall.server.domain.services import Services
from tests.server.conftest import Headers, MakeUser
from tests.server.pig_entry import register_pig

# A plug-in game's rating kind is shown by default like the five's.
register_pig()

URL = "/api/v1/users/me/settings"

DEFAULTS = {
    "dice_style": "pips",
    "theme": "light",
    "board_size": "medium",
    "hints_open": False,
    "sounds": False,
    "messages_from": "everyone",
    "challenges_from": "everyone",
    "show_presence": True,
    "confirm_moves": True,
    "ratings_shown": [
        "tenthousand", "boatzee", "boatzee-double", "boatzee-triple", "boss", "holdem", "bullseye",
        "pig",
    ],
    "hide_rating_while_playing": False,
    "time_zone": "UTC",
    "email_mode": "digest",
    "digest_hour": 8,
    "email_kinds": list(KINDS),
    "push_kinds": list(KINDS),
    "webhook_kinds": list(KINDS),
    "reminders": ["80%", "1h"],
}  # fmt: skip


def mine(client: TestClient, headers: Headers) -> Any:
    answer = client.get(URL, headers=headers)
    assert answer.status_code == 200, answer.text
    return answer.json()


def change(client: TestClient, headers: Headers, body: Any) -> Any:
    return client.patch(URL, json=body, headers=headers)


def stored(services: Services, user_id: str) -> str:
    with services.read_conn() as conn:
        text = conn.execute(select(User.settings).where(User.user_id == user_id)).scalar_one()
    return str(text)


def test_defaults_then_changing_one_then_several_settings(
    client: TestClient, make_user: MakeUser
) -> None:
    me, other = make_user("several"), make_user("other")
    assert mine(client, me) == DEFAULTS
    answer = change(client, me, {"theme": "dark"})
    assert answer.status_code == 200, answer.text
    assert answer.json() == {**DEFAULTS, "theme": "dark"}
    assert mine(client, me) == {**DEFAULTS, "theme": "dark"}
    wanted = {
        "dice_style": "numerals",
        "board_size": "large",
        "hints_open": True,
        "confirm_moves": False,
        "messages_from": "buddies",
        "challenges_from": "nobody",
        "show_presence": False,
    }
    answer = change(client, me, wanted)
    assert answer.status_code == 200, answer.text
    # A second change starts from the first.
    assert answer.json() == {**DEFAULTS, "theme": "dark", **wanted}
    answer = change(client, me, {"theme": "high-contrast", "sounds": True})
    assert answer.json() == {**DEFAULTS, **wanted, "theme": "high-contrast", "sounds": True}
    assert mine(client, me) == answer.json()
    # Someone else's settings are their own.
    assert mine(client, other) == DEFAULTS


#: Wrong changes, each with the setting its refusal names.
WRONG: list[tuple[Any, str]] = [
    ({"colour": "dark"}, "colour"),
    ({"theme": "dark", "volume": 3}, "volume"),
    ({"hints_open": "true"}, "hints_open"),
    ({"sounds": 1}, "sounds"),
    ({"confirm_moves": None}, "confirm_moves"),
    ({"theme": "sepia"}, "theme"),
    ({"dice_style": "pips", "board_size": "huge"}, "board_size"),
    ({"messages_from": "friends"}, "messages_from"),
    ({"board_size": 2}, "board_size"),
    ({"ratings_shown": ["boss", "chess"]}, "ratings_shown"),
    ({"ratings_shown": "boss"}, "ratings_shown"),
    ({"ratings_shown": [1]}, "ratings_shown"),
    ({"ratings_shown": ["boss"] * (2 * len(kinds.names()) + 1)}, "ratings_shown"),
    ({"hide_rating_while_playing": "yes"}, "hide_rating_while_playing"),
    ({"time_zone": "Mars/Olympus_Mons"}, "time_zone"),
    ({"time_zone": "europe/paris"}, "time_zone"),
    ({"email_mode": "hourly"}, "email_mode"),
    ({"digest_hour": 24}, "digest_hour"),
    ({"digest_hour": "8"}, "digest_hour"),
    ({"email_kinds": ["your_turn", "gossip"]}, "email_kinds"),
    ({"push_kinds": "your_turn"}, "push_kinds"),
    ({"reminders": ["80 %"]}, "reminders"),
    ({"reminders": ["0h"]}, "reminders"),
]


def test_a_wrong_change_is_refused_and_nothing_is_stored(
    client: TestClient, make_user: MakeUser, services: Services
) -> None:
    me = make_user("wrong")
    assert change(client, me, {"theme": "dark"}).status_code == 200
    before = stored(services, "wrong")
    for body, name in WRONG:
        answer = change(client, me, body)
        assert answer.status_code == 422, (body, answer.text)
        assert answer.json()["code"] == "invalid_settings", body
        assert name in answer.json()["error"], body
        # Not even the valid part of the change is kept.
        assert stored(services, "wrong") == before, body
    assert mine(client, me) == {**DEFAULTS, "theme": "dark"}


def test_an_empty_change_changes_nothing_and_a_non_object_is_refused(
    client: TestClient, make_user: MakeUser, services: Services
) -> None:
    me = make_user("empty")
    assert change(client, me, {"dice_style": "large"}).status_code == 200
    before = stored(services, "empty")
    answer = change(client, me, {})
    assert answer.status_code == 200, answer.text
    assert answer.json() == {**DEFAULTS, "dice_style": "large"}
    assert stored(services, "empty") == before
    # A body that is no object at all is refused for its shape.
    for body in (["theme", "dark"], "dark", 3):
        answer = change(client, me, body)
        assert answer.status_code == 422, answer.text
        assert answer.json()["code"] == "invalid_request"
    assert stored(services, "empty") == before


def test_the_ratings_a_profile_shows_are_kept_once_each_in_the_sites_order(
    client: TestClient, make_user: MakeUser
) -> None:
    me = make_user("shower")
    answer = change(client, me, {"ratings_shown": ["bullseye", "boss", "bullseye"]})
    assert answer.status_code == 200, answer.text
    assert answer.json()["ratings_shown"] == ["boss", "bullseye"]
    # A plug-in game's kind is one like the others (after the five's).
    answer = change(client, me, {"ratings_shown": ["pig", "boatzee-triple"]})
    assert answer.status_code == 200, answer.text
    assert answer.json()["ratings_shown"] == ["boatzee-triple", "pig"]
    answer = change(client, me, {"ratings_shown": [], "hide_rating_while_playing": True})
    assert answer.status_code == 200, answer.text
    assert mine(client, me) == {**DEFAULTS, "ratings_shown": [], "hide_rating_while_playing": True}


#: Damaged stored settings and how they read: what is still valid is kept; what is not (or
#: no longer known) reads as its default.
DAMAGED: list[tuple[str, dict[str, Any]]] = [
    ("not json at all", DEFAULTS),
    ("[1, 2]", DEFAULTS),
    ("", DEFAULTS),
    ('{"ratings_shown": ["boss", "chess"]}', DEFAULTS),
    ('{"theme": "dark", "dice_style": "hexagons", "sounds": "yes", "old": 1}',
     {**DEFAULTS, "theme": "dark"}),
]  # fmt: skip


def test_damaged_stored_settings_read_as_the_defaults(
    client: TestClient, make_user: MakeUser, services: Services
) -> None:
    me = make_user("damaged")
    for text, expected in DAMAGED:
        with services.write_conn() as conn:
            conn.execute(update(User).where(User.user_id == "damaged").values(settings=text))
        assert mine(client, me) == expected, text
        # A change repairs what it stores.
        answer = change(client, me, {"board_size": "small"})
        assert answer.status_code == 200, answer.text
        assert answer.json() == {**expected, "board_size": "small"}
        assert mine(client, me) == {**expected, "board_size": "small"}
        assert "hexagons" not in stored(services, "damaged")


def test_a_change_is_pushed_to_my_open_pages_only_and_visitors_have_none(
    client: TestClient, make_user: MakeUser
) -> None:
    me, other = make_user("pushed"), make_user("bystander")
    with (
        client.websocket_connect("/api/v1/ws", headers=me) as socket,
        client.websocket_connect("/api/v1/ws", headers=other) as theirs,
    ):
        assert socket.receive_json() == {"type": "hello"}
        assert theirs.receive_json() == {"type": "hello"}
        answer = change(client, me, {"dice_style": "numerals", "confirm_moves": False})
        assert answer.status_code == 200, answer.text
        pushed = socket.receive_json()
        assert pushed == {"type": "settings", "settings": answer.json()}
        # A refused change pushes nothing: the next message is the next good change's.
        assert change(client, me, {"theme": "mauve"}).status_code == 422
        assert change(client, me, {"theme": "dark"}).status_code == 200
        assert socket.receive_json()["settings"]["theme"] == "dark"
        # The bystander heard nothing of it: their next message is their own change's.
        assert change(client, other, {"sounds": True}).status_code == 200
        assert theirs.receive_json() == {
            "type": "settings",
            "settings": {**DEFAULTS, "sounds": True},
        }
    # Visitors have no settings.
    assert client.get(URL).status_code == 401
    assert client.patch(URL, json={"theme": "dark"}).status_code == 401
