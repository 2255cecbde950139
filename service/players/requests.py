"""Who a request's bearer is: a seat token, or a player the front end vouches for; and
whether a seat request may name the player it names."""

from __future__ import annotations

from collections.abc import Callable

from flask import g, request

from ..live.keeper import hung_up
from ..tenants import limits
from ..tenants.requests import (
    bearer_is_player_token,
    bearer_token,
    check_scope,
    is_player_token,
    key_holds,
    key_still_valid,
)
from ..tenants.service import caller_named
from ..web.settings import current
from ..web.streams import heartbeat_seconds
from . import service as players
from .errors import (
    InvalidPlayerToken,
    NotThisPlayer,
    PlayerRequired,
    PlayerUnverified,
    WrongFrontEnd,
)
from .service import Credential, PlayerProof

_PROOF = "player_proof"


def resolve_player() -> None:
    """Before every /v1 request, after its key: a player token is judged first (401
    before the body is read), and its player spends their own budgets. The token names
    its front end (its audience): with no key sent, the request is that front end's,
    with a browser key's rights; with a key of another front end, it is refused
    (:class:`WrongFrontEnd`)."""
    if request.method == "OPTIONS" or not request.path.startswith("/v1/"):
        return
    if not bearer_is_player_token():
        return
    token = bearer_token()
    assert token is not None
    audience = players.audience_of(token)
    if g.caller is None:  # no key: the token's front end
        settings = current()
        g.caller = caller_named(audience, settings.key_cache_seconds,
                                keys_required=settings.api_keys_required)
        if g.caller is None:
            raise InvalidPlayerToken(f"the player token names a front end this service "
                                     f"does not have ({audience[:64]!r})")
        check_scope()
    elif audience != g.caller.name:
        raise WrongFrontEnd(f"this player token is front end {audience[:64]!r}'s, the API "
                            f"key front end {g.caller.name!r}'s: send that front end's key, "
                            "or the token alone")
    proof = players.verify(g.caller.tenant, g.caller.name, token)
    setattr(g, _PROOF, proof)
    setattr(g, limits.PLAYER, proof.player_id)


def credential() -> Credential | None:
    """The request's bearer: a seat token as sent, or the player a player token of this
    front end proves (:func:`resolve_player`); None without one."""
    token = bearer_token()
    if not is_player_token(token):
        return token
    proof: PlayerProof = getattr(g, _PROOF)  # set, or refused, before the route ran
    return proof


def seat_for(player_id: str | None, name: str | None,
             proof: Credential | None) -> tuple[str | None, str | None, bool]:
    """(player id, name, vouched) of a request to take a seat: naming a ``player_id``
    takes that player's token or a server key (else :class:`PlayerUnverified`); naming
    none with a player token sits as that player."""
    if player_id is None and isinstance(proof, PlayerProof):
        return proof.player_id, name or proof.name, True
    if player_id is None:
        return None, name, False
    if isinstance(proof, PlayerProof) and proof.player_id == player_id:
        return player_id, name or proof.name, True
    if g.caller.server:
        players.check_player(g.caller.tenant, player_id)  # a suspended player sits nowhere
        return player_id, name, True
    raise PlayerUnverified(
        f"player_id {player_id!r} needs that player's token (Authorization: Bearer) or "
        "a server key", field="player_id", problem="not proven by this request")


def token_player(why: str) -> str:
    """The player the request's player token proves; :class:`PlayerRequired` (``why``
    the action is a player's own) without one."""
    proof = credential()
    if not isinstance(proof, PlayerProof):
        raise PlayerRequired(f"{why}: send your player token as 'Authorization: Bearer "
                             "<token>'")
    return proof.player_id


def act_for(player_id: str) -> None:
    """A request acting for a player (their blocks, their reports): with that player's
    own token, or a server key (:class:`NotThisPlayer` otherwise)."""
    proof = credential()
    if isinstance(proof, PlayerProof) and proof.player_id == player_id:
        return
    if g.caller.server and not isinstance(proof, PlayerProof):
        return
    raise NotThisPlayer(f"only player {player_id!r}'s token, or a server key, may do this")


def stream_still_valid() -> bool:
    """For a long answer (an event stream), checked before each event or heartbeat:
    whether its API key still holds and its player token has neither expired nor been
    signed out or suspended since (then the stream ends)."""
    if not key_still_valid():
        return False
    proof: PlayerProof | None = getattr(g, _PROOF, None)
    return proof is None or players.still_valid(g.caller.tenant, proof)


def stream_check() -> Callable[[], bool]:
    """:func:`stream_still_valid` as a check that needs no request (a stream keeper asks
    it from its own thread), and whether the client is still connected."""
    key = request.headers.get("X-API-Key")
    proof: PlayerProof | None = getattr(g, _PROOF, None)
    tenant = g.caller.tenant
    connection = request.environ.get("gunicorn.socket")

    def still() -> bool:
        return not hung_up(connection) and key_holds(key) and (
            proof is None or players.still_valid(tenant, proof))
    return still


def stream_heartbeat() -> float:
    """How long a stream stays silent before a heartbeat: at most an access change's read
    time with a player token, so its expiry, sign-out or suspension ends the stream within
    about two."""
    heartbeat = heartbeat_seconds()
    if getattr(g, _PROOF, None) is not None:
        heartbeat = min(heartbeat, players.ACCESS_SECONDS)
    return heartbeat
