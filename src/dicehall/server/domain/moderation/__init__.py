"""Moderation: reports, the moderator role, actions on accounts and content, the audit log,
and testimonials (see docs/site-moderation.md).

- :mod:`.standing`: muted, suspended, closed; :func:`~.standing.may_write`, the check every
  place a user writes text others read calls; the moderator role check.
- :mod:`.content`: what may be reported or hidden, by kind and id.
- :mod:`.reports`: members' reports and the moderators' queue.
- :mod:`.actions`: warn, mute, unmute, hide, unhide, suspend, lift, close, dismiss.
- :mod:`.audit`: the append-only log of every action.
- :mod:`.roles`: granting and taking the moderator role (``dicehall admin``).
- :mod:`.testimonials`: one per member, public once approved.
"""
