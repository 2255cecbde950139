"""Rate limits: Flask-Limiter budgets per caller, kept in Redis when ``REDIS_URL`` is set
(shared by every instance) and in each process's memory otherwise.

Whose budget a request spends (:func:`_who`): a player token's player's (each player
their own, whichever key carries it); else a browser key's visitor's (the key's front
end and the client address: visitors of one page never spend each other's, nor the
server's); else the server key's front end's; a request with no key, its client
address's. Four budgets, each a Flask-Limiter limit string set by the environment:
creating matches (``BASRA_LIMIT_CREATES``), moves and resignations
(``BASRA_LIMIT_MOVES``), reads (``BASRA_LIMIT_READS``) and searching bots' moves and
hints (``BASRA_LIMIT_EXPENSIVE``). A fifth, per client address whatever its key, is
spent by every unknown or revoked API key it presents (``BASRA_LIMIT_AUTH_FAILURES``).
``BASRA_RATE_LIMITS=off`` turns them all off. A request over budget gets a 429 problem
with ``Retry-After``, and its ``X-RateLimit-*`` headers describe the budget that ran
out.

Redis is optional at run time: its calls time out after ``BASRA_REDIS_TIMEOUT_SECONDS``,
and while it is stopped or frozen Flask-Limiter counts in each process's memory instead
(it logs the switch, and tries Redis again after 1, 2, 4 ... 32 s), so a request never
fails or hangs for it; ``/readyz`` says which store is counting (:func:`store_state`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from functools import lru_cache, wraps
from typing import Any, TypeVar

from flask import Flask, Response, g, has_request_context, request
from flask_limiter import Limiter, RequestLimit
from limits import RateLimitItem, parse, parse_many

from ..settings import Settings
from ..web.settings import current
from .models import LOCAL_TENANT

F = TypeVar("F", bound=Callable[..., Any])
log = logging.getLogger(__name__)


PLAYER = "budget_player"
"""The ``g`` attribute where the players domain puts the id a request's player token
proved (its budgets are then that player's)."""


def _who() -> str:
    """Whose budget a request spends: its player's, its browser visitor's, its server
    key's front end's, or (no key) its client address's."""
    caller = g.get("caller")
    player = g.get(PLAYER)
    if caller is None:
        return _address()
    if player is not None:
        return f"player:{caller.tenant}:{player}"
    if caller.tenant == LOCAL_TENANT:
        return _address()
    if caller.server:
        return f"{_SERVER}{caller.tenant}"
    return f"browser:{caller.tenant}:{request.remote_addr or 'unknown'}"


def holder(tenant: int) -> str:
    """The budget of work done for a front end outside any request (the worker playing
    on after a seat's time ran out): the front end's own, apart from its server key's,
    so visitors letting clocks run out cannot spend the server's."""
    return f"worker:{tenant}"


KEY_PREFIX = "basra"
_SERVER = "tenant:"
"""The start of a server key's budget's name (its front end's)."""
# swallow_errors: a store lost between a request's check and its headers (or its hit) is
# logged and the request answered; the in-memory fallback covers the checks after it
limiter = Limiter(_who, headers_enabled=True, retry_after="delta-seconds",
                  key_prefix=KEY_PREFIX, swallow_errors=True)


def init_limits(app: Flask, settings: Settings) -> None:
    """Bind the limiter to the app with its settings (storage, on or off)."""
    # Flask-Limiter reads its own keys from the Flask config
    app.config.setdefault("RATELIMIT_ENABLED", settings.rate_limits)
    app.config.setdefault("RATELIMIT_STORAGE_URI", settings.redis_url or "memory://")
    if settings.redis_url:
        seconds = settings.redis_timeout_seconds
        app.config.setdefault("RATELIMIT_STORAGE_OPTIONS", {
            "socket_timeout": seconds, "socket_connect_timeout": seconds})
        app.config.setdefault("RATELIMIT_IN_MEMORY_FALLBACK_ENABLED", True)
    app.after_request(_retry_after_only_when_refused)  # runs after the limiter's own hook
    limiter.init_app(app)
    # Every limit here is a route's budget, spent by its decorator. Flask-Limiter also
    # checks each request before dispatch, for application-wide and default limits (none
    # here): it would find none, every time.
    hooks = app.before_request_funcs.get(None, [])
    hooks[:] = [hook for hook in hooks if getattr(hook, "__self__", None) is not limiter]


def look_again_after(seconds: int) -> dict[str, str]:
    """The ``Retry-After`` of a 202 (when to look again), kept from Flask-Limiter, which
    would stretch it to its budget's window."""
    g.look_again_after = str(seconds)
    return {"Retry-After": str(seconds)}


def _retry_after_only_when_refused(response: Response) -> Response:
    """Flask-Limiter puts ``Retry-After`` on every answer it counted; it means "come back
    then" only on a 429 or a 503, and on a 202 what the view said."""
    if response.status_code == 202 and "look_again_after" in g:
        response.headers["Retry-After"] = g.look_again_after
    elif response.status_code not in (429, 503):
        response.headers.pop("Retry-After", None)
    return response


def store_state() -> str | None:
    """Where the budgets are counted, for ``/readyz``: ``redis`` while Redis answers a
    ping, ``memory`` (each process its own) while it does not; None without Redis."""
    settings = current()
    if not settings.redis_url or not settings.rate_limits:
        return None
    try:
        return "redis" if limiter.storage.check() else "memory"
    except Exception:  # a storage that cannot even be asked is not answering
        return "memory"


def failed_keys_retry_after() -> int | None:
    """Seconds until this request's client address may present an unknown API key again,
    or None while it may: its ``BASRA_LIMIT_AUTH_FAILURES`` budget (an address spends it
    with every key found unknown or revoked) is spent. A store that does not answer
    limits nobody."""
    return _retry_after("auth_failures", _address())


def spend_failed_key() -> None:
    """An unknown or revoked key was presented: spend from the address's budget."""
    _spend("auth_failures", _address(), 1)


def budget_retry_after(name: str, who: str | None = None) -> int | None:
    """Seconds until the request's caller (or ``who``, a :func:`holder`) has budget
    ``name`` again, or None while some is left: for a use case that spends a budget
    its route does not (searching bots' moves spend ``expensive``). Spent in a request,
    the response's rate-limit headers describe this budget."""
    return _retry_after(name, who or _who())


def charge(name: str, cost: int, who: str | None = None) -> None:
    """Spend ``cost`` from the request's caller's (or ``who``'s) budget ``name``: the
    same count its routes' limits keep."""
    if cost:
        _spend(name, who or _who(), cost)


def _counted(name: str, who: str) -> RateLimitItem | None:
    """Budget ``name``'s limit for ``who`` where budgets are counted here (an app with
    limits on; a request or the worker's app context), else None."""
    settings = current()
    return parse(_limit(settings, name, who)) if settings.rate_limits else None


def _limit(settings: Settings, name: str, who: str) -> str:
    """Budget ``name``'s limit string for ``who``: a server key's front end's is
    ``server_scale`` times one caller's (one key speaks for all its players)."""
    written = settings.limits[name]
    if not who.startswith(_SERVER) or settings.server_scale == 1:
        return written
    return _scaled(written, settings.server_scale)


@lru_cache(maxsize=64)
def _scaled(written: str, scale: int) -> str:
    """A limit string with every amount ``scale`` times (asked each server-key request:
    the settings' few strings, worked out once)."""
    return "; ".join(f"{item.amount * scale}/{item.multiples} {item.GRANULARITY.name}"
                     for item in parse_many(written))


def _retry_after(name: str, who: str) -> int | None:
    item = _counted(name, who)
    if item is None:
        return None
    keys = [KEY_PREFIX, who, name]  # the keys Flask-Limiter counts a budget under
    try:
        if limiter.limiter.test(item, *keys):
            return None
        reset_at = limiter.limiter.get_window_stats(item, *keys).reset_time
    except Exception:
        log.warning("rate-limit store unavailable for budget %s", name, exc_info=True)
        return None
    if has_request_context():  # the 429's X-RateLimit-* headers: this budget's
        limiter.context.view_rate_limit = RequestLimit(limiter, item, keys, breached=True,
                                                       shared=True)
    return max(1, int(reset_at - time.time()) + 1)


def _spend(name: str, who: str, cost: int) -> None:
    item = _counted(name, who)
    if item is None:
        return
    try:
        limiter.limiter.hit(item, KEY_PREFIX, who, name, cost=cost)
    except Exception:
        log.warning("rate-limit store unavailable for budget %s", name, exc_info=True)


def _address() -> str:
    return f"address:{request.remote_addr or 'unknown'}"


def _budget(name: str) -> Callable[[], str]:
    return lambda: _limit(current(), name, _who())


def budget(name: str, *, when: Callable[[], bool] | None = None) -> Callable[[F], F]:
    """Spend from budget ``name`` (creates, moves, reads, expensive); with ``when``,
    only for the requests it accepts. With limits off, the view is called straight:
    Flask-Limiter's own wrapper would still work out, every request, that no limit
    applies."""
    exempt = (lambda: not when()) if when else None
    limit = limiter.shared_limit(_budget(name), scope=name, exempt_when=exempt,
                                 override_defaults=False)

    def decorate(view: F) -> F:
        limited = limit(view)

        @wraps(limited)  # with its mark, so a budget stacked on this one counts once
        def spend(*args: Any, **kwargs: Any) -> Any:
            if current().rate_limits:
                return limited(*args, **kwargs)
            return view(*args, **kwargs)

        return spend  # type: ignore[return-value]

    return decorate
