"""The settings API: how my boards look and behave, and who may write to or challenge me.

``PATCH`` takes some of the settings and answers all of them; every open page of mine is
pushed ``{"type": "settings", "settings": {...}}`` and applies the change at once.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body
from pydantic import Field, create_model

from dicehall.server.api.deps import CurrentUser, ServicesDep
from dicehall.server.api.rules import spaced
from dicehall.server.api.schemas import _Answer, errors
from dicehall.server.domain.notices import reminders as reminder_marks
from dicehall.server.domain.notices.zones import known_zones
from dicehall.server.domain.people import settings
from dicehall.server.domain.ratings import kinds as rating_kinds
from dicehall.server.domain.work import read, run_db

router = APIRouter(prefix="/api/v1", tags=["people"])

_FIELDS: dict[str, Any] = {
    name: (field.annotation, Field(description=field.description))
    for name, field in settings.UserSettings.model_fields.items()
}
#: The answer: every setting, each key required (the fields and descriptions of
#: :class:`~dicehall.server.domain.people.settings.UserSettings`, without their defaults).
SettingsOut = create_model(
    "UserSettingsOut", __base__=_Answer, __doc__="All my settings.", **_FIELDS
)


def _change_schema() -> dict[str, Any]:
    """The request body as the schema documents it: any of the settings, nothing else (a key
    left out keeps its value, so no default is shown), with the rules the settings' own
    checks hold (known zones and rating kinds, the reminders' form)."""
    schema = settings.UserSettings.model_json_schema()
    props = schema["properties"]
    for prop in props.values():
        prop.pop("default", None)
    props["time_zone"]["enum"] = sorted(known_zones())
    kinds = list(rating_kinds.names())
    props["ratings_shown"].update(maxItems=2 * len(kinds), items={"type": "string", "enum": kinds})
    props["reminders"].update(maxItems=reminder_marks.MOST)
    props["reminders"]["items"]["pattern"] = spaced("[1-9][0-9]?%|[1-9][0-9]{0,2}[MmHhDd]")
    schema["title"] = "UserSettingsChange"
    schema["description"] = "Some of my settings, to change; those left out keep their value."
    return schema


_CHANGE_BODY = {
    "requestBody": {
        "required": True,
        "content": {"application/json": {"schema": _change_schema()}},
    }
}


@router.get(
    "/users/me/settings",
    operation_id="users-me-settings",
    response_model=SettingsOut,
    responses=errors(401),
)
async def my_settings(user: CurrentUser, services: ServicesDep) -> dict[str, Any]:
    """All my settings (a stored value no longer valid reads as its default)."""
    found: settings.UserSettings = await run_db(
        services, read, services, lambda conn: settings.of(conn, user.id)
    )
    return found.model_dump()


@router.patch(
    "/users/me/settings",
    operation_id="users-me-settings-update",
    response_model=SettingsOut,
    responses=errors(400, 401, 403, 422, 429, 503),
    openapi_extra=_CHANGE_BODY,
)
async def change_settings(
    body: Annotated[dict[str, Any], Body()], user: CurrentUser, services: ServicesDep
) -> dict[str, Any]:
    """Change some of my settings and answer all of them. An unknown key, a value of the
    wrong type (``"true"`` or ``1`` for a boolean) or one not offered: 422
    ``invalid_settings``, and nothing is stored; past the limit on settings changes, 429
    ``rate_limited``. My open pages are told at once."""
    changed: settings.UserSettings = await run_db(services, settings.save, services, user.id, body)
    return changed.model_dump()


__all__ = ["router"]
