"""The reference web client at ``/play``: static HTML, CSS and JavaScript modules from
this folder, built on the public API only (no build step, nothing from outside)."""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Response

from ..web.assets import asset as static_file
from ..web.assets import page as page_of

FILES = Path(__file__).resolve().parent

blp = Blueprint("play", __name__)


@blp.route("/play")
def page() -> Response:
    """The table (``?match=ID``) or the lobby."""
    return page_of(FILES)  # the same headers as the console: no other site may frame it


@blp.route("/play/<path:name>")
def asset(name: str) -> Response:
    """One file of the client (404 for anything outside its folder)."""
    return static_file(FILES, name)
