"""What the forkserver behind ``LiveServer.launch(forked=True)`` imports once: the command
line's ``serve``, uvicorn, and every module of the site's routes and pages, so that a fork of
it starts serving without importing any of them again."""

from __future__ import annotations

import importlib
import pkgutil

import uvicorn  # noqa: F401 - imported for the forks

import dicehall.cli.commands.site
import dicehall.cli.main
import dicehall.server.api
import dicehall.server.asgi
import dicehall.server.web

for package in (dicehall.server.api, dicehall.server.web):
    for found in pkgutil.iter_modules(package.__path__, f"{package.__name__}."):
        importlib.import_module(found.name)
