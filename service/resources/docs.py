"""The API docs UI's files (Swagger UI), served from the pinned ``swagger-ui-bundle``
package: ``/docs`` works with no network but the service's own."""

from __future__ import annotations

from flask import Blueprint, Response, send_from_directory
from swagger_ui_bundle import swagger_ui_path

ASSETS = "/docs/assets/"

blp = Blueprint("docs_assets", __name__)


@blp.route(ASSETS + "<path:name>")
def asset(name: str) -> Response:
    """One file of Swagger UI (404 for anything outside its folder)."""
    return send_from_directory(str(swagger_ui_path), name, max_age=86_400)
