"""``dicehall admin grant|revoke USER moderator`` on a site's database: the role changes,
the audit log says so, and unknown users and roles get one clear line (exit 2)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select

from dicehall.server.core.db import make_engine
from dicehall.server.core.models import ModerationAction, User
from dicehall.server.domain.services import build_services
from tests.conftest import CliRunner
from tests.live import add_user
from tests.server.conftest import site_settings
from tests.sqlite_template import migrated_sqlite


def _role(url: str, name: str) -> str:
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            return str(conn.execute(select(User.role).where(User.key == name)).scalar_one())
    finally:
        engine.dispose()


def _logged(url: str) -> list[tuple[str, str | None]]:
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(
                select(ModerationAction.action, ModerationAction.moderator_pk).order_by(
                    ModerationAction.id
                )
            ).all()
            return [(row.action, row.moderator_pk) for row in rows]
    finally:
        engine.dispose()


def test_grant_and_revoke_the_moderator_role(cli: CliRunner, tmp_path: Path) -> None:
    url = migrated_sqlite(tmp_path / "site.sqlite3")
    services = build_services(site_settings(url))
    add_user(services, "Alice")
    services.engine.dispose()
    granted = cli("admin", "grant", "alice", "moderator", "--db", url)
    assert granted.code == 0, granted.err
    assert "Alice is a moderator now" in granted.out
    assert _role(url, "alice") == "moderator"
    again = cli("admin", "grant", "ALICE", "moderator", "--db", url)
    assert again.code == 0 and "was a moderator already" in again.out
    revoked = cli("admin", "revoke", "alice", "moderator", "--db", url)
    assert revoked.code == 0 and "Alice is no longer a moderator" in revoked.out
    assert _role(url, "alice") == ""
    # The administrator's changes are in the audit log, without a moderator.
    assert _logged(url) == [("grant", None), ("revoke", None)]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("grant", "nobody", "moderator"), "there is no user 'nobody'"),
        (("grant", "alice", "king"), "there is no role 'king' (roles: moderator)"),
        (("revoke", "alice", "admin"), "there is no role 'admin'"),
    ],
)
def test_unknown_users_and_roles_are_one_line_and_change_nothing(
    cli: CliRunner, tmp_path: Path, args: tuple[str, ...], words: str
) -> None:
    url = migrated_sqlite(tmp_path / "site.sqlite3")
    services = build_services(site_settings(url))
    add_user(services, "alice")
    services.engine.dispose()
    failed = cli("admin", *args, "--db", url)
    assert failed.code == 2 and words in failed.err, failed.err
    assert "Traceback" not in failed.err
    assert _role(url, "alice") == "" and _logged(url) == []
