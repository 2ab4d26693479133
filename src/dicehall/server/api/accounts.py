"""Accounts API (being built): sign up, log in, log out, password, profile, API tokens."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter(prefix="/api/v1", tags=["accounts"])
