"""Who a request speaks for: the tenant of its ``X-API-Key``, resolved before every /v1
request, its bearer token, and the client a parked request counts against."""

from __future__ import annotations

from flask import current_app, g, request

from ..errors import MissingToken
from ..storage.models import LOCAL_TENANT
from . import limits
from .errors import InvalidApiKey, MissingApiKey, TooManyFailedKeys
from .service import caller_for, known_caller


def resolve_tenant() -> None:
    """Before every /v1 request: the tenant of its ``X-API-Key`` (401 without a valid key
    where keys are required; 403 from a browser origin the tenant does not allow)."""
    if request.method == "OPTIONS" or not request.path.startswith("/v1/"):
        return  # a CORS preflight carries no key; health checks and docs need none
    config = current_app.config
    key = request.headers.get("X-API-Key")
    if key and known_caller(key, config["BASRA_KEY_CACHE_SECONDS"])[1] is None:
        wait = limits.failed_keys_retry_after()
        if wait is not None:
            raise TooManyFailedKeys("too many unknown API keys from this address; try "
                                    f"again in {wait} s", retry_after=wait)
    try:
        g.caller = caller_for(
            key, required=config["BASRA_API_KEYS"] == "required",
            origin=request.headers.get("Origin"),
            cache_seconds=config["BASRA_KEY_CACHE_SECONDS"],
        )
    except InvalidApiKey:
        limits.spend_failed_key()
        raise


def key_still_valid() -> bool:
    """For a long answer (an event stream): whether the request's API key still holds, as
    this process has learnt within ``BASRA_KEY_CACHE_SECONDS``; a revoked key's stream
    ends."""
    key = request.headers.get("X-API-Key")
    if not key:
        return True
    try:
        caller_for(key, required=False, origin=None,
                   cache_seconds=current_app.config["BASRA_KEY_CACHE_SECONDS"])
    except InvalidApiKey:
        return False
    return True


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
