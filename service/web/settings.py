"""The settings of the app serving the request (or the worker's app context), for routes
and request hooks to hand to the use cases they call."""

from __future__ import annotations

from flask import current_app

from ..settings import Settings, settings_of


def current() -> Settings:
    """The current app's :class:`~service.settings.Settings`."""
    return settings_of(current_app)
