"""Settings come from arguments or ``DICEHALL_*`` variables, through pydantic-settings; a
value that does not parse stops the server with one line naming the variable."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from dicehall.server.core.config import Settings, default_db_url
from tests.conftest import CliRunner


def test_settings_read_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DICEHALL_DB_URL", "sqlite:////tmp/env.sqlite3")
    monkeypatch.setenv("DICEHALL_REDIS_URL", "")
    monkeypatch.setenv("DICEHALL_AUTH_RATE", "7")
    monkeypatch.setenv("DICEHALL_TRUSTED_PROXIES", " 10.0.0.1, 10.0.0.2 ,")
    monkeypatch.setenv("DICEHALL_WARM_BOTS", "0")
    monkeypatch.setenv("DICEHALL_BOT_WORKERS", "3")
    monkeypatch.setenv("DICEHALL_DICE_BATCH_SIZE", "50")
    settings = Settings()
    assert settings.db_url == "sqlite:////tmp/env.sqlite3"
    assert settings.redis_url is None
    assert settings.auth_rate_per_minute == 7
    assert settings.trusted_proxies == ("10.0.0.1", "10.0.0.2")
    assert (settings.warm_bots, settings.bot_workers, settings.dice_batch_size) == (False, 3, 50)


def test_arguments_win_and_empty_values_mean_the_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DICEHALL_DB_URL", "")
    monkeypatch.setenv("DICEHALL_BOT_WORKERS", "3")
    assert Settings().db_url == default_db_url()
    assert Settings(bot_workers=1).bot_workers == 1
    with pytest.raises(ValidationError):
        Settings(bot_workers=1).bot_workers = 2  # type: ignore[misc]


@pytest.mark.parametrize(
    ("variable", "value", "fragment"),
    [
        ("DICEHALL_BOT_WORKERS", "zero", "valid integer"),
        ("DICEHALL_BOT_WORKERS", "0", "greater than or equal to 1"),
        ("DICEHALL_HEADER_TIMEOUT", "-1", "greater than 0"),
        ("DICEHALL_SITE_NAME", "no/slashes", "site name"),
        ("DICEHALL_WARM_BOTS", "maybe", "valid boolean"),
    ],
)
def test_a_bad_variable_stops_serve_with_one_line(
    cli: CliRunner, monkeypatch: pytest.MonkeyPatch, variable: str, value: str, fragment: str
) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(ValidationError):
        Settings()
    result = cli("serve", "--db", "sqlite://", "--port", "9")
    assert result.code == 2
    assert result.err.startswith(f"error: {variable}: ") and fragment in result.err
    assert result.err.count("\n") == 1
