"""HTML pages. Every page is server-rendered; boards are driven by their ES modules.

Forms post back to their own page. Visitors' forms (sign up, log in) carry a double-submit
token (a cookie and the same value in a hidden field); members' forms carry their session's
CSRF token. A form with a mistake is shown again with a message next to each wrong field
and everything typed kept, passwords aside. The pages live in one module per subject; this
one gathers their routes.
"""

from __future__ import annotations

from fastapi import APIRouter

from dicehall.server.web import (
    account_mail_pages,
    account_pages,
    automatch_pages,
    bot_pages,
    game_pages,
    guide_pages,
    help_pages,
    history_pages,
    info_pages,
    invite_pages,
    ladder_pages,
    member_pages,
    message_pages,
    moderation_pages,
    new_game_pages,
    news_pages,
    notice_settings_pages,
    notification_pages,
    presence_pages,
    profile_pages,
    ratings_pages,
    relation_pages,
    replay_pages,
    report_pages,
    settings_pages,
    singularity_pages,
    testimonial_pages,
    tournament_forms,
    tournament_pages,
    vacation_pages,
    watch_pages,
)

router = APIRouter(include_in_schema=False)
for pages in (
    info_pages,
    guide_pages,
    help_pages,
    news_pages,
    member_pages,
    bot_pages,
    profile_pages,
    account_pages,
    account_mail_pages,
    game_pages,
    new_game_pages,
    history_pages,
    replay_pages,
    vacation_pages,
    notification_pages,
    message_pages,
    report_pages,
    moderation_pages,
    testimonial_pages,
    presence_pages,
    relation_pages,
    settings_pages,
    notice_settings_pages,
    invite_pages,
    watch_pages,
    singularity_pages,
    ladder_pages,
    automatch_pages,
    ratings_pages,
    # The create form's /tournaments/new before a tournament's /tournaments/{id}.
    tournament_forms,
    tournament_pages,
):
    router.include_router(pages.router)

__all__ = ["router"]
