"""Who a request speaks for: the tenant of its ``X-API-Key``, resolved before every /v1
request, what that key may do, its bearer token, and the client a parked request counts
against.

The keys' scopes, the one rule: a **server key** (made without ``--origin``) may do
everything its front end may; a **browser key** (limited to origins, readable by every
visitor of the page) does what a player may do and nothing that administers the front
end. A route that administers it is marked :func:`server_key_only`; a browser key is
refused there (403 ``server_key_required``) before its body is read or a budget spent.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from flask import current_app, g, request

from ..errors import MissingToken
from ..storage.models import LOCAL_TENANT
from ..web.parser import Blueprint
from ..web.problems import problem_doc
from . import limits
from .errors import InvalidApiKey, MissingApiKey, ServerKeyRequired, TooManyFailedKeys
from .service import caller_for, sender_digest

F = TypeVar("F", bound=Callable[..., Any])
_SERVER_KEY_ONLY = "_basra_server_key_only"


def server_key_only(blp: Blueprint) -> Callable[[F], F]:
    """Mark a route as one that administers the front end (minting, webhooks,
    tournaments' creation and cancel): it takes the server key. Put it above the
    route's other decorators."""
    def decorate(view: F) -> F:
        setattr(view, _SERVER_KEY_ONLY, True)
        return blp.alt_response(403, **problem_doc(  # type: ignore[no-any-return]
            "`server_key_required`: a browser key (one limited to origins) may not do "
            "this"))(view)
    return decorate


def _takes_server_key() -> bool:
    """Whether the route the request goes to is marked :func:`server_key_only`."""
    view = current_app.view_functions.get(request.endpoint or "")
    method = "get" if request.method == "HEAD" else request.method.lower()  # HEAD runs get
    handler = getattr(getattr(view, "view_class", None), method, view)
    return bool(getattr(handler, _SERVER_KEY_ONLY, False))


def resolve_tenant() -> None:
    """Before every /v1 request: the tenant of its ``X-API-Key`` (401 without a valid key
    where keys are required; 403 from a browser origin the tenant does not allow). A
    request with no key but a player token is its token's front end's: the players
    domain's hook, next, resolves it (``g.caller`` None until then)."""
    if request.method == "OPTIONS" or not request.path.startswith("/v1/"):
        return  # a CORS preflight carries no key; health checks and docs need none
    config = current_app.config
    key = request.headers.get("X-API-Key")
    if not key and bearer_is_player_token():
        g.caller = None
        return
    try:
        g.caller = caller_for(
            key, required=config["BASRA_API_KEYS"] == "required",
            origin=request.headers.get("Origin"),
            cache_seconds=config["BASRA_KEY_CACHE_SECONDS"],
        )
    except InvalidApiKey as error:
        if error.malformed:
            raise  # refused by its checksum: no look-up was spent on it
        # a well-formed key found unknown or revoked: the address spends its budget, and
        # once that is spent its unknown keys get 429 (a valid key is never refused)
        wait = limits.failed_keys_retry_after()
        if wait is not None:
            raise TooManyFailedKeys("too many unknown API keys from this address; try "
                                    f"again in {wait} s", retry_after=wait) from error
        limits.spend_failed_key()
        raise
    check_scope()


def check_scope() -> None:
    """A caller without the server key's rights asking for a :func:`server_key_only`
    route: :class:`ServerKeyRequired`."""
    if not g.caller.server and _takes_server_key():
        raise ServerKeyRequired("a browser key (one limited to origins), or a player token "
                                "alone, may not do this: call it from your server, with a "
                                "key made without --origin")


def is_player_token(token: str | None) -> bool:
    """Whether a bearer token is a JWT (a player token: three dot-separated parts; seat
    tokens are URL-safe base64, never a dot)."""
    return token is not None and token.count(".") == 2


def bearer_is_player_token() -> bool:
    """Whether the request's ``Authorization: Bearer`` holds a player token."""
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    return scheme.lower() == "bearer" and is_player_token(token.strip())


def key_still_valid() -> bool:
    """For a long answer (an event stream): whether the request's API key still holds, as
    this process has learnt within ``BASRA_KEY_CACHE_SECONDS``; a revoked key's stream
    ends."""
    return key_holds(request.headers.get("X-API-Key"))


def key_holds(key: str | None) -> bool:
    """:func:`key_still_valid` of a key sent (None: none), outside its request."""
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


def sender() -> str:
    """Who sent the request within its front end: the player its player token proved;
    else its API key, with the client address for a browser key (every visitor of the
    page holds it); with no key, the client address. A digest, never the key."""
    key = request.headers.get("X-API-Key")
    address = request.remote_addr or "unknown"
    player = g.get(limits.PLAYER)
    if player is not None:
        who = f"player:{player}"
    elif not key:
        who = f"address:{address}"
    elif g.caller.server:
        who = f"key:{key}"
    else:
        who = f"browser:{key}:{address}"
    return sender_digest(who)


def actor() -> str:
    """Who acts, for the audit log: a server key (its first characters) whatever token
    it carries, else the player a player token proved, else the browser key, else
    ``local`` (no key, where keys are optional)."""
    player = g.get(limits.PLAYER)
    if g.caller.key and (g.caller.server or player is None):
        return f"key:{g.caller.key}"
    return f"player:{player}" if player is not None else "local"


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
