"""The site's rules: accounts, games, the dice pool, fairness, pushes.

Plain Python that raises domain errors (:mod:`dicehall.server.domain.errors`); no FastAPI.
"""
