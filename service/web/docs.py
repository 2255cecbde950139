"""The API docs UI's files: Swagger UI 5 (it renders OpenAPI 3.1), from the static folder
of the pinned ``swagger-ui-py`` package, so ``/docs`` works with no network but the
service's own."""

from __future__ import annotations

from importlib.resources import files

from flask import Blueprint, Response, send_from_directory

ASSETS = "/docs/assets/"
FILES = str(files("swagger_ui") / "static")

blp = Blueprint("docs_assets", __name__)


@blp.route(ASSETS + "<path:name>")
def asset(name: str) -> Response:
    """One file of Swagger UI (404 for anything outside its folder)."""
    return send_from_directory(FILES, name, max_age=86_400)
