"""Notices: what a user is told (their turn, an invitation, a game over, ...), on the bell
and on the channels they chose (e-mail, web push, webhooks). See docs/notifications.md."""
