"""The people around the games: relations, messages, chat, presence, search, invites and
each user's settings."""
