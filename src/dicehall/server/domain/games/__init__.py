"""Games on the site, in parts: records, seating, play, driving, reading (see
:mod:`dicehall.server.domain.gameservice`, which gathers their public names)."""
