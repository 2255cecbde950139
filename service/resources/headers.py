"""Request and response headers of the match API: the seat token, ETags, If-Match,
If-None-Match. HTTP spelling only; what they mean is the use cases' business."""

from __future__ import annotations

import re

from flask import current_app, g, request

from ..errors import MissingApiKey, MissingToken, VersionMismatch
from ..models import LOCAL_TENANT
from ..tenants import caller_for
from ..views import Seen

_VIEW_TAG = re.compile(r'^(?:W/)?"([0-9]{1,18})-(?:s([0-9])|spectator)"$')


def bearer_token() -> str | None:
    """The token of ``Authorization: Bearer <token>``, if sent."""
    header = request.headers.get("Authorization", "")
    if not header:
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise MissingToken("use 'Authorization: Bearer <seat token>'")
    return token.strip()


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


def resolve_tenant() -> None:
    """Before every /v1 request: the tenant of its ``X-API-Key`` (401 without a valid key
    where keys are required; 403 from a browser origin the tenant does not allow)."""
    if request.method == "OPTIONS" or not request.path.startswith("/v1/"):
        return  # a CORS preflight carries no key; health checks and docs need none
    config = current_app.config
    g.caller = caller_for(
        request.headers.get("X-API-Key"),
        required=config["BASRA_API_KEYS"] == "required",
        origin=request.headers.get("Origin"),
        cache_seconds=config["BASRA_KEY_CACHE_SECONDS"],
    )


def tenant() -> int:
    """The tenant the current request speaks for."""
    return int(g.caller.tenant)


def waiter() -> str:
    """Who a parked request counts against: its front end and its address."""
    return f"{g.caller.tenant}:{request.remote_addr}"


def keyed_tenant() -> int:
    """The tenant of the request's API key: a key is needed even where keys are optional
    (for what belongs to a front end, such as its webhooks)."""
    if g.caller.tenant == LOCAL_TENANT:
        raise MissingApiKey("this needs your front end's API key: 'X-API-Key: <key>'")
    return int(g.caller.tenant)
