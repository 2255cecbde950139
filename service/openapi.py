"""Print the OpenAPI document generated from the code (``make openapi``)."""

from __future__ import annotations

import sys
from typing import Any

import yaml


def spec_dict() -> dict[str, Any]:
    """The OpenAPI document of the app, as data."""
    from . import create_app

    app = create_app({"SQLALCHEMY_DATABASE_URI": "sqlite://"})
    with app.app_context():
        api = app.extensions["flask-smorest"]["apis"][""]["ext_obj"]
        return api.spec.to_dict()  # type: ignore[no-any-return]


def render() -> str:
    """The committed form of openapi.yaml."""
    return yaml.safe_dump(spec_dict(), sort_keys=False, allow_unicode=True, width=100)


if __name__ == "__main__":
    sys.stdout.write(render())
