"""The API's resources: one package each (``resources.py`` + ``schemas.py``)."""

from __future__ import annotations

from flask_smorest import Api

from .health import resources as health
from .matches import resources as matches
from .variants import resources as variants
from .webhooks import resources as webhooks


def register(api: Api) -> None:
    """Register every blueprint on the API."""
    for module in (health, variants, matches, webhooks):
        api.register_blueprint(module.blp)
