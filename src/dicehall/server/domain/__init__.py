"""The site's rules: accounts, games, the dice pool and fairness (:mod:`.dice`), people.

Plain Python that raises domain errors (:mod:`dicehall.server.domain.errors`); no FastAPI.
"""
