"""Adapters to the outside: Redis pub/sub and the presence store, rate-limit storage.

Below the domain: these modules import only :mod:`dicehall.server.core`; no site rules, no
FastAPI.
"""
