"""Who a request speaks for: the tenant of its ``X-API-Key``, resolved before every /v1
request, its bearer token, and the client a parked request counts against."""

from __future__ import annotations

from flask import current_app, g, request

from ..errors import MissingToken
from ..storage.models import LOCAL_TENANT
from .errors import MissingApiKey
from .service import caller_for


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


def bearer_token() -> str | None:
    """The token of ``Authorization: Bearer <token>``, if sent."""
    header = request.headers.get("Authorization", "")
    if not header:
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise MissingToken("use 'Authorization: Bearer <seat token>'")
    return token.strip()
