"""The Basra match service: a pure rules engine (:mod:`service.engine`) and the REST
service around it, one package per domain, wired in :mod:`service.app`.

``gunicorn 'service:create_app()'`` serves it. Importing the engine alone loads
neither Flask nor a database driver.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from flask import Flask


def create_app(config: dict[str, Any] | None = None) -> Flask:
    """Build the app (:func:`service.app.create_app`)."""
    from .app import create_app as build

    return build(config)
