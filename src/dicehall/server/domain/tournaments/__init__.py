"""Tournaments: formats, scoring, tie-breaks, and the site tournaments built on them."""
