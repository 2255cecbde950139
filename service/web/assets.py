"""Static files of a page the service serves (``/play``, ``/console``)."""

from __future__ import annotations

from pathlib import Path

from flask import Response, send_from_directory


def asset(folder: Path, name: str) -> Response:
    """One file of ``folder`` (404 for anything outside it), never cached stale, its
    JavaScript modules as such."""
    response = send_from_directory(folder, name, max_age=0)
    if name.endswith(".js"):
        response.mimetype = "text/javascript"
    return response
