"""``dicehall admin grant|revoke USER ROLE``: give a member a role on the site (``moderator``)
or take it, in the site's database (the one ``serve`` uses, or ``--db``)."""

from __future__ import annotations

from typing import Annotated

import typer

from dicehall.cli.apps import Groups
from dicehall.cli.commands.site import SiteDb, _require_usable_database
from dicehall.cli.common import console, fail, printable, require_extra
from dicehall.cli.datadir import usable_data_dir

UserArg = Annotated[str, typer.Argument(help="The member's user id (any case).")]
RoleArg = Annotated[str, typer.Argument(help="The role: moderator.")]


def _set_role(user_id: str, role: str, db: str | None, grant: bool) -> None:
    require_extra("sqlalchemy", "site", "dicehall admin")
    from sqlalchemy.exc import SQLAlchemyError

    from dicehall.engine.errors import DicehallError
    from dicehall.server.core.clock import now
    from dicehall.server.core.config import default_db_url
    from dicehall.server.core.db import make_engine, migrate
    from dicehall.server.domain.errors import Refused
    from dicehall.server.domain.moderation.roles import set_role
    from dicehall.server.domain.moderation.standing import ROLES

    if role not in ROLES:
        fail(printable(f"there is no role {role!r} (roles: {', '.join(ROLES)})"))
    # The database `serve` would use (the embedded SQLite file by default), checked usable.
    if db is None:
        usable_data_dir()
    url = db or default_db_url()
    _require_usable_database(url)
    try:
        engine = make_engine(url)
        try:
            migrate(engine)  # as `serve` does: the role lives in the newest schema
            with engine.begin() as conn:
                stored, changed = set_role(conn, user_id, role, grant, now())
        finally:
            engine.dispose()
    except Refused as exc:
        fail(printable(exc.message))
    except (DicehallError, SQLAlchemyError) as exc:
        fail(printable(f"cannot use the database: {str(exc).strip().splitlines()[0]}"))
    if grant:
        words = f"is a {role} now" if changed else f"was a {role} already"
    else:
        words = f"is no longer a {role}" if changed else f"was not a {role}"
    console.print(f"{stored} {words}", markup=False, soft_wrap=True)


def grant(user_id: UserArg, role: RoleArg, db: SiteDb = None) -> None:
    """Give USER the ROLE (moderator: reads reports and acts on them). The audit log says so."""
    _set_role(user_id, role, db, grant=True)


def revoke(user_id: UserArg, role: RoleArg, db: SiteDb = None) -> None:
    """Take the ROLE from USER. The audit log says so."""
    _set_role(user_id, role, db, grant=False)


def register(groups: Groups) -> None:
    """Add the ``admin`` group and its ``grant`` and ``revoke`` commands."""
    admin = typer.Typer(
        help="The site's administration: roles.",
        add_completion=False,
        no_args_is_help=True,
        pretty_exceptions_enable=False,
        context_settings={"help_option_names": ["-h", "--help"]},
    )
    admin.command()(grant)
    admin.command()(revoke)
    groups.root.add_typer(admin, name="admin")
