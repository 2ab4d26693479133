"""Background work away from requests: the bot driver, bot and hint worker processes."""
