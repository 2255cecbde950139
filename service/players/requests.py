"""Who a request's bearer is: a seat token, or a player the front end vouches for; and
whether a seat request may name the player it names."""

from __future__ import annotations

from flask import g

from ..tenants.requests import bearer_token
from . import service as players
from .errors import PlayerUnverified
from .service import Credential, PlayerProof


def credential() -> Credential | None:
    """The request's bearer: a seat token as sent, or (a JWT: three dot-separated parts)
    the player a player token of this front end proves; None without one."""
    token = bearer_token()
    if token is None or token.count(".") != 2:
        return token  # seat tokens are URL-safe base64: never a dot
    return players.verify(g.caller.tenant, g.caller.name, token)


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
        return player_id, name, True
    raise PlayerUnverified(
        f"player_id {player_id!r} needs that player's token (Authorization: Bearer) or "
        "a server key", field="player_id", problem="not proven by this request")
