"""The turn-based game site: accounts, games over HTTP, the dice pool, pushes."""
