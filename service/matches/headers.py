"""Request and response headers of the match API: the seat token, ETags, If-Match,
If-None-Match. HTTP spelling only; what they mean is the use cases' business."""

from __future__ import annotations

import re

from flask import request

from .errors import VersionMismatch
from .results import Seen

_VIEW_TAG = re.compile(r'^(?:W/)?"([0-9]{1,18})-(?:s([0-9])|spectator)"$')


def etag_for(version: int, seat: int | None) -> str:
    """Strong ETag of one representation: the version and whose view it is."""
    return f'"{version}-{"spectator" if seat is None else f"s{seat}"}"'


def if_match_version() -> int | None:
    """The version named by If-Match (an ETag from GET, or a bare "version")."""
    header = request.headers.get("If-Match")
    if header is None:
        return None
    tag = header.split(",")[0].strip()
    if tag == "*":
        return None
    tag = tag.removeprefix("W/").strip('"')
    version = tag.split("-")[0]
    if not (version.isascii() and version.isdigit() and len(version) <= 18):
        raise VersionMismatch(f"If-Match {header!r} names no version of this match")
    return int(version)


def seen() -> Seen:
    """The views named by If-None-Match (ETags this service issued; others never match)."""
    header = request.headers.get("If-None-Match")
    if not header:
        return Seen()
    views: set[tuple[int, int | None]] = set()
    for tag in header.split(","):
        tag = tag.strip()
        if tag == "*":
            return Seen(anything=True)
        m = _VIEW_TAG.match(tag)
        if m:
            views.add((int(m[1]), None if m[2] is None else int(m[2])))
    return Seen(frozenset(views))
