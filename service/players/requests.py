"""Who a request's bearer is: a seat token, or a player the front end vouches for; and
whether a seat request may name the player it names."""

from __future__ import annotations

from flask import g, request

from ..tenants import limits
from ..tenants.requests import bearer_token
from . import service as players
from .errors import PlayerUnverified
from .service import Credential, PlayerProof

_PROOF = "player_proof"


def _is_player_token(token: str | None) -> bool:
    """A JWT (three dot-separated parts); seat tokens are URL-safe base64: never a dot."""
    return token is not None and token.count(".") == 2


def resolve_player() -> None:
    """Before every /v1 request, once its front end is known: a player token is judged
    first (401 before the body is read), and its player spends their own budgets."""
    if request.method == "OPTIONS" or not request.path.startswith("/v1/"):
        return
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not _is_player_token(token):
        return
    proof = players.verify(g.caller.tenant, g.caller.name, token)
    setattr(g, _PROOF, proof)
    setattr(g, limits.PLAYER, proof.player_id)


def credential() -> Credential | None:
    """The request's bearer: a seat token as sent, or the player a player token of this
    front end proves (:func:`resolve_player`); None without one."""
    token = bearer_token()
    if not _is_player_token(token):
        return token
    proof: PlayerProof | None = g.get(_PROOF)
    if proof is None:  # a request this app's hooks did not see (a test's own context)
        assert token is not None
        proof = players.verify(g.caller.tenant, g.caller.name, token)
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
        return player_id, name, True
    raise PlayerUnverified(
        f"player_id {player_id!r} needs that player's token (Authorization: Bearer) or "
        "a server key", field="player_id", problem="not proven by this request")
