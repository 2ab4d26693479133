"""``dicehall serve`` and ``dicehall verify-dice``: the site and its dice audit."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Optional

import typer

from dicehall.cli.apps import app
from dicehall.cli.common import console, fail


@app.command()
def serve(
    db: Optional[str] = typer.Option(  # noqa: UP045 - Typer needs Optional
        None, "--db", help="Database URL (default: SQLite in the user data directory)."
    ),
    redis: Optional[str] = typer.Option(  # noqa: UP045
        None, "--redis", help="Redis URL: share pushes and rate limits between processes."
    ),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on."),
    port: int = typer.Option(8000, "--port", min=1, max=65535, help="Port to listen on."),
    workers: int = typer.Option(1, "--workers", min=1, max=32, help="Server processes."),
) -> None:
    """Run the site: migrations are applied and the dice pool filled at start."""
    import uvicorn

    from dicehall.server.config import default_db_url
    from dicehall.server.services import build_services

    url = db or default_db_url()
    os.environ["DICEHALL_DB_URL"] = url
    if redis:
        os.environ["DICEHALL_REDIS_URL"] = redis
    # Migrate and fill the pool once here, so workers never race to do it.
    from dicehall.server.asgi import settings_from_env

    services = build_services(settings_from_env())
    services.engine.dispose()
    console.print(f"dicehall on http://{host}:{port}  database: {url}", soft_wrap=True)
    uvicorn.run(
        "dicehall.server.asgi:app_from_env",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        log_level="warning",
    )


@app.command(name="verify-dice")
def verify_dice(
    file: Path = typer.Argument(..., help="A revealed batch (GET /api/v1/fairness/batches/ID)."),
) -> None:
    """Check a revealed dice batch against the commitment published before it was used."""
    from dicehall.server.fairness import verify_batch

    try:
        data = json.loads(file.read_text())
    except OSError as exc:
        fail(f"cannot read {file}: {exc.strerror}")
    except ValueError as exc:
        fail(f"{file} is not JSON: {exc}")
    ok, message = verify_batch(data)
    console.print(message)
    raise typer.Exit(0 if ok else 1)
