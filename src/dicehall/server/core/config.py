"""Site settings: where the data lives and how the server behaves.

Every setting may be given in the environment as ``DICEHALL_<NAME>`` (``DICEHALL_DB_URL``,
``DICEHALL_BOT_WORKERS``, ...), read by pydantic-settings; a few keep their older short
names (``DICEHALL_AUTH_RATE``). A value that does not parse is refused with the setting's
name, so a server never starts on a misread setting.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AliasChoices, Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from dicehall.engine.storage import data_dir
from dicehall.server.core.smtp_url import parse_smtp_url


def default_db_url() -> str:
    """The embedded default database: SQLite in the user data directory."""
    return f"sqlite:///{data_dir() / 'dicehall.sqlite3'}"


class Settings(BaseSettings):
    """Everything the site can be told at start (arguments, else ``DICEHALL_*`` variables)."""

    model_config = SettingsConfigDict(
        env_prefix="DICEHALL_", frozen=True, extra="ignore", populate_by_name=True
    )

    db_url: str = Field(default_factory=default_db_url)
    redis_url: str | None = None
    #: Cookies carry the Secure flag (set behind HTTPS).
    secure_cookies: bool = False
    session_days: int = Field(30, ge=1)
    #: argon2id cost; tests lower it, production keeps the library's defaults.
    argon2_time_cost: int = Field(3, ge=1)
    argon2_memory_kib: int = Field(65536, ge=8)
    #: Pre-rolled sets of six dice per batch, and how many unserved sets to keep committed.
    dice_batch_size: int = Field(1000, ge=1)
    #: Pre-shuffled Hold'em bags per committed batch (one bag per hand).
    bag_batch_size: int = Field(200, ge=1)
    #: Each game's deck (scheme 3): dice keys (one per roll) and bag shuffles (one per
    #: Hold'em hand) committed before the game starts, and decks of each kind kept ready.
    deck_keys: int = Field(8192, ge=1, le=1 << 20)
    deck_shuffles: int = Field(512, ge=1, le=1 << 16)
    deck_reserve: int = Field(16, ge=1, le=1000)
    #: Requests per minute per client address for sign-up and log-in.
    auth_rate_per_minute: int = Field(
        20,
        ge=1,
        validation_alias=AliasChoices("auth_rate_per_minute", "DICEHALL_AUTH_RATE"),
    )
    max_body_bytes: int = Field(65536, ge=1024)
    #: Seconds a request waits for the database's write lock before it is answered 503.
    write_lock_timeout: float = Field(10.0, gt=0)
    #: Bot processes for slow bots (solver tables, simulations), and whether their tables
    #: are built at start-up for each game's default options.
    bot_workers: int = Field(2, ge=1, le=64)
    warm_bots: bool = True
    #: Seconds a warm slow bot may think before its fallback decides instead.
    bot_decision_seconds: float = Field(20.0, gt=0)
    #: Worker processes for hints, and the seconds a hint may take before a 503 (try again).
    hint_workers: int = Field(1, ge=1, le=64)
    hint_seconds: float = Field(5.0, gt=0)
    #: How often each process's bot driver looks for due games it was not told about, and
    #: for clocks that ran out (a timeout shows within this and the sweep's time).
    driver_poll_seconds: float = Field(1.0, gt=0)
    #: The most games one player may have in progress, and waiting for players.
    max_active_games: int = Field(100, ge=1)
    max_open_games: int = Field(10, ge=1)
    #: Names this site's channels and keys in a Redis that other sites may share; empty:
    #: derived from ``db_url``, so sites on different databases never mix by default.
    site_name: str = ""
    #: Addresses of reverse proxies trusted to set X-Forwarded-For (comma-separated in the
    #: environment); none by default.
    trusted_proxies: Annotated[tuple[str, ...], NoDecode] = ()
    #: Seconds an idle kept-alive connection stays open. Behind a proxy, make it longer
    #: than the proxy's own idle timeout, or the proxy may send on a connection the site is
    #: closing (the client then sees a reset).
    keep_alive_seconds: int = Field(5, ge=1, le=3600)
    #: A request's head (request line and headers): most bytes, most headers, and the
    #: seconds a client has to send it.
    max_header_bytes: int = Field(16384, ge=1024)
    max_header_count: int = Field(100, ge=10)
    header_timeout: float = Field(10.0, gt=0)
    #: Push sockets one user may hold open on one server process; more are refused.
    sockets_per_user: int = Field(8, ge=1)
    #: Who is here: a user seen (an open page, API use) in the last this many seconds is
    #: online, and recently here in the last ``presence_recent_seconds``.
    presence_online_seconds: float = Field(120.0, gt=0)
    presence_recent_seconds: float = Field(900.0, gt=0)
    #: Signs links the site hands out (invites); empty: a secret made once and kept in the
    #: database, which every process of the site shares.
    secret_key: SecretStr = SecretStr("")
    #: Whether this process plays bots' turns, applies clocks and runs the site jobs; false
    #: for web processes beside ``dicehall worker`` processes (``serve --no-background``).
    background: bool = True
    #: The periodic site jobs (auto-match, tournament rounds, the tournament schedule):
    #: whether this process runs them, and how often each looks for work it was not told
    #: about (seconds).
    site_jobs: bool = True
    matcher_seconds: float = Field(5.0, gt=0)
    tournament_seconds: float = Field(10.0, gt=0)
    #: Scheduled tournaments (see docs/site-tournaments.md): a daily cup and a weekly Swiss
    #: per game by default; empty turns the schedule off.
    tournament_schedule: str = "daily-cup,weekly-swiss"
    #: Where the site is reached, for the links in e-mails, pushes and webhooks.
    site_url: str = "http://127.0.0.1:8000"
    #: Outgoing mail: ``smtp://[user:password@]host:port`` (STARTTLS when the server offers
    #: it) or ``smtps://...`` (TLS from the start); unset: each mail is written to the
    #: Maildir ``mail_dir`` instead (``dicehall mail`` lists it).
    smtp_url: SecretStr | None = None
    mail_from: str = "dicehall <dicehall@localhost>"
    #: The Maildir used while no SMTP server is set; empty: ``mail`` in the data directory.
    mail_dir: str = ""
    #: Web Push (VAPID, RFC 8292): the private key (``dicehall vapid`` makes a pair; empty:
    #: one made once and kept in the database) and the contact the push services are given.
    vapid_private_key: SecretStr = SecretStr("")
    vapid_subject: str = "mailto:admin@localhost"
    #: Hosts and networks that webhooks and push endpoints may reach although they are
    #: private or local (comma-separated; none by default: no server-side request forgery).
    outbound_allow: Annotated[tuple[str, ...], NoDecode] = ()
    #: Seconds an outgoing connection (SMTP, push, webhook) may take before it counts as failed.
    outbound_timeout: float = Field(10.0, gt=0)
    #: Whether this process sends the notices queued for e-mail, push and webhooks (the
    #: ``deliveries`` job; on even where ``site_jobs`` is off), and how often it looks for
    #: due ones it was not told about.
    deliveries: bool = True
    delivery_seconds: float = Field(5.0, gt=0)
    #: An immediate e-mail about a game waits until its player has not had the game open
    #: for this many seconds (nothing is mailed about what they just saw).
    email_quiet_seconds: float = Field(30.0, ge=0)

    @field_validator("db_url", mode="before")
    @classmethod
    def _default_when_empty(cls, value: Any) -> Any:
        return default_db_url() if value == "" else value

    @field_validator("redis_url", mode="before")
    @classmethod
    def _none_when_empty(cls, value: Any) -> Any:
        return None if value == "" else value

    @field_validator("site_name")
    @classmethod
    def _valid_site_name(cls, value: str) -> str:
        from dicehall.server.core.sitename import check_site_name  # it reads these settings

        return check_site_name(value.strip()) if value.strip() else ""

    @field_validator("smtp_url", mode="before")
    @classmethod
    def _no_smtp_when_empty(cls, value: Any) -> Any:
        return None if value == "" else value

    @field_validator("smtp_url")
    @classmethod
    def _valid_smtp_url(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None:
            parse_smtp_url(value.get_secret_value())
        return value

    @field_validator("trusted_proxies", "outbound_allow", mode="before")
    @classmethod
    def _comma_separated(cls, value: Any) -> Any:
        if isinstance(value, str):
            return tuple(part.strip() for part in value.split(",") if part.strip())
        return value
