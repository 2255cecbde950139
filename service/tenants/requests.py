"""Who a request speaks for: the tenant of its ``X-API-Key``, resolved before every /v1
request, what that key may do, its bearer token, and the client a parked request counts
against.

The keys' scopes, the one rule: a **server key** (made without ``--origin``) may do
everything its front end may; a **browser key** (limited to origins, readable by every
visitor of the page) does what a player may do and nothing that administers the front
end. A route that administers it is marked :func:`server_key_only`; a browser key is
refused there (403 ``server_key_required``) before its body is read or a budget spent.

A front end's **staff** sign in to the console with a staff key and act with its
session cookie: on any read of the API, and on the administering routes their role
allows (each :func:`server_key_only` route names the least role, or none); a change
needs the session's CSRF token and no other site's Origin. Elsewhere the cookie counts
for nothing: a staff key is no API key.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from flask import current_app, g, request

from ..errors import MissingToken
from ..web.parser import Blueprint
from ..web.problems import problem_doc
from ..web.settings import current
from . import limits
from .cache import LOCAL, Caller
from .enums import StaffRole
from .errors import (
    CsrfRefused,
    InvalidApiKey,
    MissingApiKey,
    ServerKeyRequired,
    StaffRoleTooLow,
    StaffSessionInvalid,
    TooManyFailedKeys,
)
from .models import LOCAL_TENANT
from .service import caller_for, caller_numbered, sender_digest
from .staff import CSRF_HEADER, SESSION_COOKIE, Staff, staff_for

F = TypeVar("F", bound=Callable[..., Any])
_SERVER_KEY_ONLY = "_basra_server_key_only"
_STAFF_ROLE = "_basra_staff_role"
_NO_KEY = "_basra_no_key"
_BY_METHOD = "by method"
"""A route's least staff role by its method: viewer to read, admin to change."""
_SAFE = frozenset({"GET", "HEAD"})
STAFF = "staff"
"""``g.staff``: the signed-in staff member a request acts as, if any."""


def server_key_only(blp: Blueprint, staff: StaffRole | str | None = _BY_METHOD
                    ) -> Callable[[F], F]:
    """Mark a route as one that administers the front end (minting, webhooks,
    tournaments' creation and cancel): it takes the server key, or a staff session of
    at least role ``staff`` (by default a viewer to read, an admin to change; None: no
    staff at all). Put it above the route's other decorators."""
    def decorate(view: F) -> F:
        setattr(view, _SERVER_KEY_ONLY, True)
        setattr(view, _STAFF_ROLE, staff)
        return blp.alt_response(403, **problem_doc(  # type: ignore[no-any-return]
            "`server_key_required`: a browser key (one limited to origins) may not do "
            "this; `staff_role_too_low`, `csrf_refused`: a console session may not"))(view)
    return decorate


def no_key(view: F) -> F:
    """Mark a route that takes no API key at all (staff sign-in: its body is the key)."""
    setattr(view, _NO_KEY, True)
    return view


def _handler() -> Any:
    """The view function the request goes to."""
    view = current_app.view_functions.get(request.endpoint or "")
    method = "get" if request.method == "HEAD" else request.method.lower()  # HEAD runs get
    return getattr(getattr(view, "view_class", None), method, view)


def _least_staff_role(handler: Any) -> StaffRole | None:
    """The least role a staff session needs on the route of ``handler``; None: it counts
    for nothing here (a change outside the routes marked for staff, or one marked for no
    staff)."""
    role = getattr(handler, _STAFF_ROLE, _BY_METHOD if request.method in _SAFE else None)
    if role == _BY_METHOD:
        return StaffRole.VIEWER if request.method in _SAFE else StaffRole.ADMIN
    return None if role is None else StaffRole(role)


def staff_only(role: StaffRole) -> Callable[[F], F]:
    """Mark a console route: a staff session of at least ``role`` (no key needed)."""
    def decorate(view: F) -> F:
        setattr(view, _STAFF_ROLE, role)
        return view
    return decorate


def _staff_caller(cookie: str, needed: StaffRole) -> Caller:
    """The front end a console session acts for, with the server key's rights on this
    route once its session, its CSRF token and its role hold."""
    staff = staff_for(cookie)
    if staff is None:
        raise StaffSessionInvalid("your console session has ended (it expired, you signed "
                                  "out, or your staff key was revoked): sign in again")
    if request.method not in _SAFE:
        site = request.headers.get("Sec-Fetch-Site")
        origin = request.headers.get("Origin")
        if site not in (None, "same-origin") or (
                origin is not None and origin != request.host_url.rstrip("/")):
            raise CsrfRefused(f"a change from another site ({origin or site}) is refused")
        if not staff.csrf_holds(request.headers.get(CSRF_HEADER)):
            raise CsrfRefused(f"send the session's CSRF token as '{CSRF_HEADER}: <token>' "
                              "(GET /v1/staff/session gives it)")
    if not staff.may(needed):
        raise StaffRoleTooLow(f"a {staff.role.value} may not do this: it takes a "
                              f"{needed.value} or above")
    g.staff = staff
    return Caller(staff.tenant, staff.front_end)


def signed_in() -> Staff:
    """The staff member the request acts as (a console route)."""
    staff: Staff | None = g.get(STAFF)
    if staff is None:
        raise StaffSessionInvalid("sign in first: POST /v1/staff/sessions with your staff key")
    return staff


def resolve_tenant() -> None:
    """Before every /v1 request: the tenant of its ``X-API-Key`` (401 without a valid key
    where keys are required; 403 from a browser origin the tenant does not allow). A
    request with no key but a player token is its token's front end's: the players
    domain's hook, next, resolves it (``g.caller`` None until then); so does a seat token
    alone on a match's route, resolved by the matches domain's hook
    (:func:`speak_for_seat`)."""
    if request.method == "OPTIONS" or not request.path.startswith("/v1/"):
        return  # a CORS preflight carries no key; health checks and docs need none
    settings = current()
    key = request.headers.get("X-API-Key")
    handler = _handler()  # once: the key's scope and a staff session's role read it
    if getattr(handler, _NO_KEY, False):
        g.caller = None
        return
    cookie = request.cookies.get(SESSION_COOKIE)
    if cookie and not key and not bearer_token():
        needed = _least_staff_role(handler)
        if needed is not None:
            g.caller = _staff_caller(cookie, needed)
            return
    if not key and bearer_is_player_token():
        g.caller = None
        return
    if not key and seat_token_match() is not None:
        g.caller = None  # the match's front end, once its seat is found (speak_for_seat)
        return
    try:
        g.caller = caller_for(
            key, required=settings.api_keys_required,
            origin=request.headers.get("Origin"),
            cache_seconds=settings.key_cache_seconds,
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
    check_scope(handler)


def seat_token_match() -> str | None:
    """The match of the route a keyless seat token is sent to (None: another route, or
    no seat token): the token may speak for that match's front end."""
    match_id = (request.view_args or {}).get("match_id")
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    if not isinstance(match_id, str) or scheme.lower() != "bearer" or not token.strip() \
            or is_player_token(token.strip()):
        return None
    return match_id


def speak_for_seat(tenant: int | None) -> None:
    """The caller of a keyless request whose seat token holds a seat of the route's match:
    that match's front end (``tenant``), with a browser key's rights, as a player token
    alone has; ``tenant`` None (no such match, or no seat of it): what any keyless
    request is (the local front end, or 401 where keys are required)."""
    settings = current()
    required = settings.api_keys_required
    caller = None if tenant is None else caller_numbered(
        tenant, settings.key_cache_seconds, keys_required=required)
    if caller is None and required:
        raise MissingApiKey("send your front end's API key as 'X-API-Key: <key>' (a seat "
                            "token alone speaks only for a match it holds a seat of)")
    g.caller = caller or LOCAL
    check_scope()


def check_scope(handler: Any = None) -> None:
    """A caller without the server key's rights asking for a :func:`server_key_only`
    route (``handler``, else the request's): :class:`ServerKeyRequired`."""
    if not g.caller.server and getattr(handler or _handler(), _SERVER_KEY_ONLY, False):
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
                   cache_seconds=current().key_cache_seconds)
    except InvalidApiKey:
        return False
    return True


def tenant() -> int:
    """The tenant the current request speaks for."""
    return int(g.caller.tenant)


def front_end() -> str:
    """The name of the front end the current request speaks for."""
    return str(g.caller.name)


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
    staff: Staff | None = g.get(STAFF)
    if staff is not None:
        who = f"staff:{staff.tenant}:{staff.name}"
    elif player is not None:
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
    ``local`` (no key, where keys are optional); a staff member by their key's name."""
    staff: Staff | None = g.get(STAFF)
    if staff is not None:
        return staff.actor
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
