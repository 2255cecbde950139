"""The API's resources, one blueprint each."""

from __future__ import annotations

from flask_smorest import Api

from . import health, matches, variants


def register(api: Api) -> None:
    """Register every blueprint on the API."""
    for module in (health, variants, matches):
        api.register_blueprint(module.blp)
