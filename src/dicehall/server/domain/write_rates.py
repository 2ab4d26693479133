"""How often one user may write or send: changes to the profile, the settings, the buddy and
ignore lists; reports and testimonials; test pushes and test webhook posts.

Each kind of change is counted per user by the site's rate limiter (in memory, or in Redis
shared by every server process): at most ``auth_rate_per_minute`` in any minute, like the
log-in tries. Past it the change is refused before anything is read or written (429
``rate_limited``, with ``retry_after``), whether it came from the API or from a page.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from dicehall.server.domain.errors import Refused
from dicehall.server.infra.ratelimit import bucket

if TYPE_CHECKING:  # the services import the people modules that count their changes here
    from dicehall.server.domain.services import Services

WriteKind = Literal[
    "profile", "settings", "relations", "report", "testimonial", "push_test", "webhook_test"
]

#: What the refusal calls each kind of change.
_WHAT: dict[WriteKind, str] = {
    "profile": "profile changes",
    "settings": "settings changes",
    "relations": "changes to your buddy and ignore lists",
    "report": "reports",
    "testimonial": "testimonial changes",
    "push_test": "test pushes",
    "webhook_test": "test posts",
}


def check_write_rate(services: Services, kind: WriteKind, user_pk: int) -> None:
    """Count one change of ``kind`` by ``user_pk``; refused (429 ``rate_limited``, with
    ``retry_after``) past the limit. Blocking (it may ask Redis): call it in a thread."""
    wait = services.limiter.hit([bucket(f"write-{kind}", "user", str(user_pk))])
    if wait is not None:
        raise Refused(
            "too_many",
            "rate_limited",
            f"too many {_WHAT[kind]} in a minute; try again in {wait} seconds",
            retry_after=wait,
        )
