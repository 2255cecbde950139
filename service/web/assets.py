"""Static files of a page the service serves (``/play``, ``/console``)."""

from __future__ import annotations

from pathlib import Path

from flask import Response, send_from_directory

PAGE_HEADERS = {
    # a page holds a session or a player's seat: no other site may frame it, and it runs
    # only this service's scripts and styles (data: for its empty icon)
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; "
                               "frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}
"""The security headers of every page the service serves."""


def page(folder: Path, name: str = "index.html") -> Response:
    """A page of ``folder`` (``/play``, ``/console``), never cached stale, with
    :data:`PAGE_HEADERS`."""
    response = send_from_directory(folder, name, max_age=0)
    response.headers.update(PAGE_HEADERS)
    return response


def asset(folder: Path, name: str) -> Response:
    """One file of ``folder`` (404 for anything outside it), never cached stale, its
    JavaScript modules as such."""
    response = send_from_directory(folder, name, max_age=0)
    if name.endswith(".js"):
        response.mimetype = "text/javascript"
    return response
