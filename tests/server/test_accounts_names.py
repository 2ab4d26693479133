"""Names that impersonate: reserved names and other users by look-alike characters, and
characters that hide or reorder text."""

from __future__ import annotations

import string

import pytest
from fastapi.testclient import TestClient

from dicehall.server.domain import names
from dicehall.server.domain.account_checks import RESERVED_USER_IDS, check_display_name
from dicehall.server.domain.errors import Refused
from tests.server.conftest import MakeUser
from tests.server.test_accounts import API, PASSWORD, browser, error, sign_up


def _sign_up(client: TestClient, user_id: str, **extra: str) -> object:
    return client.post(
        f"{API}/auth/signup", json={"user_id": user_id, "password": PASSWORD, **extra}
    )


def _rename(client: TestClient, headers: dict[str, str], **fields: str) -> object:
    return client.patch(f"{API}/users/me", json=fields, headers=headers)


def test_user_ids_that_look_like_reserved_names(client: TestClient) -> None:
    for user_id in ("Adm1n", "ADMlN", "r00t", "Adrnin", "SUPP0RT", "DiceHaII"):
        message = error(_sign_up(client, user_id), 422, "invalid_user_id")
        assert "looks too much like the reserved name" in message, user_id


def test_user_ids_that_look_like_another_users(client: TestClient, make_user: MakeUser) -> None:
    make_user("alice")
    make_user("mallory")
    for user_id in ("AIice", "a1ice", "ALlCE", "rnallory", "MaIIory"):
        message = error(_sign_up(browser(client), user_id), 422, "invalid_user_id")
        assert "looks too much like the existing user id" in message, user_id
    # Case alone is still "taken", and a user id that merely shares letters is fine.
    error(_sign_up(browser(client), "ALICE"), 409, "user_id_taken")
    assert _sign_up(browser(client), "alicia").status_code == 201  # type: ignore[attr-defined]


def test_display_names_that_look_like_reserved_names(client: TestClient) -> None:
    sign_up(client, "carol")
    csrf = client.get(f"{API}/auth/session").json()["csrf_token"]
    headers = {"X-CSRF-Token": csrf}
    for name in (
        "\u0430dmin",  # Cyrillic a
        "DiceHall",
        "Dice Hall",
        "ＡＤＭＩＮ",  # full width
        "𝐦𝐨𝐝𝐞𝐫𝐚𝐭𝐨𝐫",  # mathematical bold
        "DiceHall Staff",
        "the 0fficial carol",
        "Support",
    ):
        message = error(_rename(client, headers, display_name=name), 422, "invalid_display_name")
        assert "looks too much like the reserved name" in message, name
    for fine in ("Carol", "Ivan Иванов", "Zoë", "張三", "badminton fan", "I support Arsenal"):
        response = _rename(client, headers, display_name=fine)
        assert response.status_code == 200, (fine, response.text)  # type: ignore[attr-defined]


def test_display_names_that_look_like_another_users_id(
    client: TestClient, make_user: MakeUser
) -> None:
    make_user("alice")
    sign_up(client, "mallory")
    headers = {"X-CSRF-Token": client.get(f"{API}/auth/session").json()["csrf_token"]}
    for name in ("\u0430lice", "ALICE", "AIice", "alice", "\u0391L\u0399\u0421\u0395"):
        message = error(_rename(client, headers, display_name=name), 422, "invalid_display_name")
        assert "looks too much like the user id 'alice' of another user" in message, name
    # One's own user id, in any spelling, is fine.
    for own in ("Mallory", "MALLORY", "rnallory"):
        assert _rename(client, headers, display_name=own).status_code == 200  # type: ignore[attr-defined]
    # At sign-up too.
    message = error(
        _sign_up(browser(client), "trent", display_name="\u0430lice"), 422, "invalid_display_name"
    )
    assert "'alice'" in message


@pytest.mark.parametrize(
    "char", ["\u202e", "\u202a", "\u2066", "\u2069", "\u200b", "\u200d", "\u2060", "\ufeff"]
)
def test_hidden_and_reordering_characters_are_refused(client: TestClient, char: str) -> None:
    sign_up(client, "dave")
    headers = {"X-CSRF-Token": client.get(f"{API}/auth/session").json()["csrf_token"]}
    code = f"U+{ord(char):04X}"
    message = error(
        _rename(client, headers, display_name=f"da{char}ve"), 422, "invalid_display_name"
    )
    assert "invisible or text-direction" in message and code in message
    message = error(_rename(client, headers, about=f"I play {char}dice"), 422, "invalid_about")
    assert "invisible or text-direction" in message and code in message
    error(
        _sign_up(browser(client), "erin", display_name=f"er{char}in"), 422, "invalid_display_name"
    )


def test_folding_of_ascii_user_ids_matches_the_sql_folding() -> None:
    # fold_sql only lower-cases and merges; that must equal the full fold for every
    # character a user id may hold.
    for char in string.ascii_letters + string.digits + "_-":
        assert names.fold(char) == names._merge(char.lower()), char
    assert names.fold("rn") == names.fold("m")
    for reserved in RESERVED_USER_IDS:
        with pytest.raises(Refused):
            check_display_name(reserved.upper())
