"""User search on SQLite and PostgreSQL: a case- and accent-insensitive prefix of the user id
or display name (any word of it on), through one index range (checked with EXPLAIN on both
databases); pages that show every user once; the fuzzy fallback; the online filter; terms
that follow a display-name change; the backfill at start; and 422 for bad input."""

from __future__ import annotations

import random
import re
import string
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Connection, Select, insert, select, text

from dicehall.server.core.clock import now
from dicehall.server.core.models import User
from dicehall.server.domain.people import search
from dicehall.server.domain.services import Services, build_services
from tests.server.conftest import Headers, MakeUser, site_settings

API = "/api/v1"


def signup(client: TestClient, user_id: str, display_name: str) -> None:
    answer = client.post(
        f"{API}/auth/signup",
        json={"user_id": user_id, "password": "correct horse 42", "display_name": display_name},
    )
    assert answer.status_code == 201, answer.text


def rename(client: TestClient, headers: Headers, display_name: str) -> None:
    answer = client.patch(f"{API}/users/me", json={"display_name": display_name}, headers=headers)
    assert answer.status_code == 200, answer.text


def found(client: TestClient, q: str, **params: Any) -> Any:
    answer = client.get(f"{API}/users", params={"q": q, **params})
    assert answer.status_code == 200, answer.text
    return answer.json()


def ids(client: TestClient, q: str, **params: Any) -> list[str]:
    return [u["user_id"] for u in found(client, q, **params)["users"]]


def pk_of(services: Services, user_id: str) -> int:
    with services.read_conn() as conn:
        return int(conn.execute(select(User.id).where(User.key == user_id.lower())).scalar_one())


def error(answer: Any, code: str) -> None:
    assert answer.status_code == 422, answer.text
    assert answer.json()["code"] == code, answer.json()


# -- matching ------------------------------------------------------------------------------------


@pytest.mark.both_databases
def test_a_prefix_of_the_user_id_or_any_word_of_the_name_in_any_case_and_accents(
    client: TestClient,
) -> None:
    signup(client, "ann", "Ann Annie Lee")
    signup(client, "zoe", "Zoë Ångström")
    signup(client, "bernard", "Bernard")
    signup(client, "lee_99", "Leeloo")
    signup(client, "Emile", "Émile Zola")

    assert ids(client, "ANN") == ["ann"]  # three terms start with "ann": listed once
    assert ids(client, "lee") == ["ann", "lee_99"]  # a word of the name, a user id's start
    assert ids(client, "Lee ") == ["ann", "lee_99"]  # surrounding spaces do not count
    assert ids(client, "99") == ["lee_99"]  # a word of the user id
    assert ids(client, "annie l") == ["ann"]  # from a word on, across the space
    for q in ("zoe", "ZOË", "zoë", "ångs", "ANGSTROM", "angström"):
        assert ids(client, q) == ["zoe"], q
    assert ids(client, "émi") == ids(client, "EMI") == ["Emile"]
    assert ids(client, "zola") == ["Emile"]
    # "rn" and "m" look alike and are stored as one: a query ending in "r" finds both.
    assert ids(client, "Ber") == ids(client, "BERN") == ["bernard"]
    answer = found(client, "ann")
    assert answer == {
        "users": [
            {"user_id": "ann", "display_name": "Ann Annie Lee", "relation": None, "online": False}
        ],
        "next": None,
        "fuzzy": False,
    }
    # Nothing starts with the middle of a word.
    assert "zoe" not in ids(client, "ngst")


@pytest.mark.both_databases
def test_pages_show_every_user_once_in_name_order(client: TestClient, make_user: MakeUser) -> None:
    names = [f"pg{n:02d}" for n in range(12)]
    for name in names:
        # Both the user id and the display name start with "pg": two terms each match.
        rename(client, make_user(name), f"Pg {name[2:]} Player")
    whole = found(client, "pg", limit=50)
    assert sorted(u["user_id"] for u in whole["users"]) == names and whole["next"] is None
    seen: list[str] = []
    cursor = None
    sizes = []
    for _ in range(10):
        page = found(client, "pg", limit=5, **({"cursor": cursor} if cursor else {}))
        sizes.append(len(page["users"]))
        seen += [u["user_id"] for u in page["users"]]
        cursor = page["next"]
        if cursor is None:
            break
    assert sizes == [5, 5, 2]
    assert seen == [u["user_id"] for u in whole["users"]]  # same order, no repeats, none lost
    assert len(set(seen)) == len(seen) == 12
    # Each is listed at their first matching term, the display name's ("pg oo player" sorts
    # before "pgoo": look-alike digits are folded into letters).
    assert seen == sorted(names, key=lambda n: search.searchable(f"Pg {n[2:]} Player"))


@pytest.mark.both_databases
def test_the_fuzzy_fallback_when_no_name_starts_with_the_query(client: TestClient) -> None:
    signup(client, "john_smith", "John Smith")
    signup(client, "joan", "Joan Ray")
    signup(client, "zed", "Zed")
    answer = found(client, "jonh")
    assert answer["fuzzy"] is True and answer["next"] is None
    assert [u["user_id"] for u in answer["users"]][:1] == ["john_smith"]
    assert ids(client, "smiht") == ["john_smith"]
    assert ids(client, "zde") == ["zed"]
    nothing = found(client, "qqqq")
    assert nothing == {"users": [], "next": None, "fuzzy": True}
    # A prefix that matches is never fuzzy, even when it finds one user only.
    assert found(client, "joa")["fuzzy"] is False


@pytest.mark.both_databases
def test_bad_queries_are_422(client: TestClient) -> None:
    error(client.get(f"{API}/users"), "invalid_request")
    error(client.get(f"{API}/users", params={"q": ""}), "invalid_request")
    error(client.get(f"{API}/users", params={"q": "x" * 41}), "invalid_request")
    error(client.get(f"{API}/users", params={"q": "   "}), "invalid_query")
    error(client.get(f"{API}/users", params={"q": "ab", "cursor": "junk"}), "invalid_cursor")
    error(client.get(f"{API}/users", params={"q": "ab", "limit": 0}), "invalid_request")
    error(client.get(f"{API}/users", params={"q": "ab", "limit": 51}), "invalid_request")
    assert found(client, "x" * 40)["users"] == []
    # Punctuation alone names no word: nothing, and nothing to be close to.
    assert found(client, "!!") == {"users": [], "next": None, "fuzzy": False}


@pytest.mark.both_databases
def test_online_filter_and_flag_follow_presence_and_ignores(
    client: TestClient, make_user: MakeUser, services: Services
) -> None:
    headers = {name: make_user(name) for name in ("onhere", "onaway", "onignorer")}
    with services.write_conn() as conn:
        for name in headers:
            search.put_terms(conn, pk_of(services, name), name, name)
    services.presence.forget(pk_of(services, "onaway"))
    services.presence.forget(pk_of(services, "onhere"))
    services.presence.touch(pk_of(services, "onhere"), None, now())
    services.presence.touch(pk_of(services, "onignorer"), None, now())
    assert ids(client, "on", online="true") == ["onhere", "onignorer"]
    assert ids(client, "on", online="false") == ["onaway"]
    flags = {u["user_id"]: u["online"] for u in found(client, "on")["users"]}
    assert flags == {"onaway": False, "onhere": True, "onignorer": True}
    # Across an ignore nobody is shown online to the other (as on Who is here).
    answer = client.put(
        f"{API}/relations/onaway", json={"kind": "ignore"}, headers=headers["onignorer"]
    )
    assert answer.status_code == 200, answer.text
    as_ignored = client.get(
        f"{API}/users", params={"q": "on", "online": "true"}, headers=headers["onaway"]
    )
    # (Asking makes onaway present too.)
    assert [u["user_id"] for u in as_ignored.json()["users"]] == ["onaway", "onhere"]
    flags = {
        u["user_id"]: u["online"]
        for u in client.get(f"{API}/users", params={"q": "on"}, headers=headers["onaway"]).json()[
            "users"
        ]
    }
    assert flags == {"onaway": True, "onhere": True, "onignorer": False}
    mine = client.get(f"{API}/users", params={"q": "onaw"}, headers=headers["onignorer"])
    assert mine.json()["users"][0]["relation"] == "ignore"


@pytest.mark.both_databases
def test_the_online_filter_pages_past_many_users_it_skips(services: Services) -> None:
    with services.write_conn() as conn:
        pks = [
            int(
                conn.execute(
                    insert(search.USERS)
                    .values(
                        user_id=f"many{n:03d}",
                        key=f"many{n:03d}",
                        password_hash="x",
                        display_name=f"many{n:03d}",
                        about="",
                        created_at=now(),
                    )
                    .returning(search.USERS.c.id)
                ).scalar_one()
            )
            for n in range(120)
        ]
        assert search.ensure_terms(conn) == 120
    here = {pks[7], pks[99], pks[118]}

    def online_of(asked: Any) -> set[int]:
        return set(asked) & here

    shown: list[str] = []
    cursor = None
    with services.read_conn() as conn:
        for _ in range(10):
            page = search.search(
                conn, None, "MANY", online=True, cursor=cursor, limit=2, online_of=online_of
            )
            shown += [u.user_id for u in page.users]
            assert all(u.online for u in page.users)
            cursor = page.next
            if cursor is None:
                break
    # In the order of their folded names ("many118" is "manyll8", before "manyo99").
    assert shown == sorted(["many007", "many099", "many118"], key=search.searchable)
    assert shown == ["many118", "many099", "many007"]


# -- keeping the terms -----------------------------------------------------------------------------


@pytest.mark.both_databases
def test_terms_follow_a_display_name_change(client: TestClient, make_user: MakeUser) -> None:
    me = make_user("shifty")
    rename(client, me, "Old Timer")
    assert ids(client, "timer") == ["shifty"]
    rename(client, me, "New Kid")
    assert ids(client, "kid") == ["shifty"] and ids(client, "new k") == ["shifty"]
    assert "shifty" not in ids(client, "timer") and "shifty" not in ids(client, "old")
    assert ids(client, "shif") == ["shifty"]  # the user id stays


@pytest.mark.both_databases
def test_the_backfill_at_start_gives_terms_to_users_without(
    client: TestClient, make_user: MakeUser, services: Services, db_url: str
) -> None:
    make_user("legacy")  # straight into the table, as an account from before search
    assert "legacy" not in ids(client, "legacy")
    again = build_services(site_settings(db_url))
    again.engine.dispose()
    assert ids(client, "legacy") == ["legacy"]
    with services.write_conn() as conn:
        assert search.ensure_terms(conn) == 0  # nothing missing: nothing done


def test_terms_are_folded_capped_and_cover_every_word() -> None:
    assert search.terms_of("Big_Al", "Ann  Lee") == {"blg al", "al", "ann lee", "lee"}
    long_name = "w" * 30 + " " + "v" * 30 + " " + "u" * 30
    terms = search.terms_of("x", long_name)
    assert max(len(t) for t in terms) == search.TERM_MAX
    assert "u" * 30 in terms
    assert search.searchable("ZOË  Ångström!") == "zoe angstrom"
    assert search.prefixes_of("Ber") == ["bem", "ber"]


# -- the index -------------------------------------------------------------------------------------


def _plan(conn: Connection, query: Select[Any]) -> str:
    compiled = query.compile(dialect=conn.dialect)
    if conn.dialect.name == "sqlite":
        positions = compiled.positiontup or []
        rows = conn.exec_driver_sql(
            "EXPLAIN QUERY PLAN " + str(compiled),
            tuple(compiled.params[name] for name in positions),
        )
        return "\n".join(str(row[-1]) for row in rows)
    rows = conn.exec_driver_sql("EXPLAIN " + str(compiled), compiled.params)
    return "\n".join(str(row[0]) for row in rows)


def _one_index_range(plan: str, dialect: str) -> bool:
    """Whether a plan reads the search terms as a range of the primary key's index: never a
    scan of the table or of the whole index (PostgreSQL may sort the few rows of a small
    range after a bitmap scan of it)."""
    if dialect == "sqlite":
        wanted = "USING COVERING INDEX sqlite_autoindex_user_search_1 (term>? AND term<?)"
        return (
            f"SEARCH user_search {wanted}" in plan
            and "SCAN" not in plan
            and "TEMP B-TREE" not in plan
        )
    ranged = re.search(r"Index Cond: \(+(\(term\)::text|term) >= '[a-z]+'::text\) AND", plan)
    return "on user_search_pkey" in plan and ranged is not None and "Seq Scan" not in plan


@pytest.mark.both_databases
def test_explain_shows_the_prefix_is_one_index_range(services: Services) -> None:
    rng = random.Random(17)
    with services.write_conn() as conn:
        pks = [
            int(
                conn.execute(
                    insert(search.USERS)
                    .values(
                        user_id=f"ix{n}",
                        key=f"ix{n}",
                        password_hash="x",
                        display_name=f"ix{n}",
                        about="",
                        created_at=now(),
                    )
                    .returning(search.USERS.c.id)
                ).scalar_one()
            )
            for n in range(4)
        ]
        rows = {
            ("".join(rng.choices(string.ascii_lowercase, k=8)), rng.choice(pks))
            for _ in range(6000)
        }
        conn.execute(insert(search.TERMS), [{"term": t, "user_pk": p} for t, p in rows])
        conn.execute(text("ANALYZE"))
    dialect = services.engine.dialect.name
    with services.read_conn() as conn:
        for query in (
            search.range_query("ab", None, 21),
            search.range_query("ab", search.Cursor("abq", pks[1]), 21),
            search.range_query("m", None, search.FUZZY_CANDIDATES),  # the fuzzy candidates
        ):
            plan = _plan(conn, query)
            assert _one_index_range(plan, dialect), plan
        # The check tells a scan apart: a case-insensitive LIKE is one on both databases.
        scan = (
            select(search.TERMS.c.term, search.TERMS.c.user_pk)
            .where(search.TERMS.c.term.ilike("ab%"))
            .order_by(search.TERMS.c.term, search.TERMS.c.user_pk)
            .limit(21)
        )
        assert not _one_index_range(_plan(conn, scan), dialect)
        # And the range finds exactly the terms that start with the prefix, in order.
        got = [tuple(r) for r in conn.execute(search.range_query("ab", None, 1000))]
        assert got == sorted((t, p) for t, p in rows if t.startswith("ab"))
