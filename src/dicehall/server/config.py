"""Site settings: where the data lives and how the server behaves."""

from __future__ import annotations

from dataclasses import dataclass, field

from dicehall.engine.storage import data_dir


def default_db_url() -> str:
    """The embedded default database: SQLite in the user data directory."""
    return f"sqlite:///{data_dir() / 'dicehall.sqlite3'}"


@dataclass(frozen=True)
class Settings:
    """Everything the site can be told at start."""

    db_url: str = field(default_factory=default_db_url)
    redis_url: str | None = None
    #: Cookies carry the Secure flag (set behind HTTPS).
    secure_cookies: bool = False
    session_days: int = 30
    #: argon2id cost; tests lower it, production keeps the library's defaults.
    argon2_time_cost: int = 3
    argon2_memory_kib: int = 65536
    #: Pre-rolled sets of six dice per batch, and how many unserved sets to keep committed.
    dice_batch_size: int = 1000
    #: Requests per minute per client address for sign-up and log-in.
    auth_rate_per_minute: int = 20
    max_body_bytes: int = 65536
