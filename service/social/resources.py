"""Routes of friends and challenges: a player acts with their own token, or the front
end's server key acts for them."""

from __future__ import annotations

from typing import Any

from flask import g
from flask.views import MethodView

from ..matches.service import Stake
from ..players.errors import PlayerRequired
from ..players.requests import act_for, credential, token_player
from ..players.resources import known_player_ids
from ..players.schemas import ByIdQuerySchema
from ..players.service import PlayerProof
from ..tenants.limits import budget
from ..tenants.requests import actor, tenant
from ..web.parser import Blueprint
from ..web.problems import problem_doc
from ..web.settings import current
from . import challenges, friends, parties
from .challenges import Accepted, ChallengeView
from .friends import Friend
from .parties import PartyView
from .schemas import (
    AcceptedSchema,
    ChallengeSchema,
    ChallengesSchema,
    FriendSchema,
    FriendsPageSchema,
    InviteSchema,
    NewChallengeSchema,
    PartySchema,
)

players_blp = Blueprint("friends", __name__, url_prefix="/v1/players",
                        description="A player's friends and challenges")
players_blp.url_value_preprocessor(lambda _endpoint, values: known_player_ids(values))
blp = Blueprint("challenges", __name__, url_prefix="/v1/challenges",
                description="Challenges between players")

NOT_THEIRS = problem_doc("`not_this_player`: neither the player's token nor a server key")


@players_blp.route("/<string:player_id>/friends/<string:other>")
class FriendById(MethodView):
    """One friend, or a request."""

    @budget("creates")
    @players_blp.response(200, FriendSchema)
    @players_blp.alt_response(403, **NOT_THEIRS)
    @players_blp.alt_response(404, **problem_doc("`player_not_found`"))
    @players_blp.alt_response(409, **problem_doc("`player_blocked`: one blocked the other; "
                                                 "`too_many_friends`"))
    @players_blp.doc(operationId="befriend")
    def put(self, player_id: str, other: str) -> Friend:
        """Ask `other` to be friends, or accept when they asked first (their stream and
        the webhooks hear `friend.requested`, then `friend.accepted`). Again: no change."""
        act_for(player_id)
        return friends.ask(tenant(), player_id, other, actor(), settings=current())

    @budget("creates")
    @players_blp.response(204)
    @players_blp.alt_response(403, **NOT_THEIRS)
    @players_blp.doc(operationId="unfriend")
    def delete(self, player_id: str, other: str) -> None:
        """End a request (made or received) or a friendship (`friend.removed`)."""
        act_for(player_id)
        friends.end(tenant(), player_id, other, actor())


@players_blp.route("/<string:player_id>/friends")
class Friends(MethodView):
    """A player's friends and requests."""

    @budget("reads")
    @players_blp.arguments(ByIdQuerySchema, location="query")
    @players_blp.response(200, FriendsPageSchema)
    @players_blp.alt_response(403, **NOT_THEIRS)
    @players_blp.doc(operationId="listFriends")
    def get(self, query: dict[str, Any], player_id: str) -> dict[str, Any]:
        """The player's friends and requests both ways, by id (`after`: the page's
        `next`)."""
        act_for(player_id)
        found = friends.friends_of(tenant(), player_id, query.get("after"), query["limit"] + 1)
        page = found[:query["limit"]]
        return {"friends": page,
                "next": page[-1].player_id if len(found) > query["limit"] else None}


@players_blp.route("/<string:player_id>/challenges")
class PlayerChallenges(MethodView):
    """A player's open challenges."""

    @budget("reads")
    @players_blp.response(200, ChallengesSchema)
    @players_blp.alt_response(403, **NOT_THEIRS)
    @players_blp.doc(operationId="listChallenges")
    def get(self, player_id: str) -> dict[str, Any]:
        """The player's open challenges, made and received, oldest first."""
        act_for(player_id)
        return {"challenges": challenges.open_challenges(tenant(), player_id)}


def _player() -> str | None:
    """The player a request's token proves; None for the server key (which may act on
    any challenge); :class:`PlayerRequired` otherwise."""
    proof = credential()
    if isinstance(proof, PlayerProof):
        return proof.player_id
    if g.caller.server:
        return None
    raise PlayerRequired("send your player token as 'Authorization: Bearer <token>'")


@blp.route("")
class Challenges(MethodView):
    """Challenge a player."""

    @budget("creates")
    @blp.arguments(NewChallengeSchema)
    @blp.response(201, ChallengeSchema)
    @blp.alt_response(401, **problem_doc("`player_required`: a challenge is a player's"))
    @blp.alt_response(403, **problem_doc("`player_suspended`: the challenged player is "
                                         "suspended"))
    @blp.alt_response(409, **problem_doc("`player_blocked`, `too_many_challenges`"))
    @blp.alt_response(422, **problem_doc("`unknown_currency`: a stake in a currency the "
                                         "front end has not named"))
    @blp.doc(operationId="challenge")
    def post(self, body: dict[str, Any]) -> tuple[ChallengeView, int]:
        """Challenge `to` (with your player token) to a two-player match: they hear
        `challenge.created` on their stream; it expires after BASRA_CHALLENGE_SECONDS
        (60) unanswered."""
        clock, stake = body.get("clock"), body.get("stake")
        return challenges.challenge(
            tenant(), token_player("a challenge is a player's"), body["to"], body["variant"],
            body["rules"], body["rated"],
            (clock["move_seconds"], clock["timeout"]) if clock else None,
            stake=Stake(stake["currency"], stake["amount"]) if stake else None,
            settings=current()), 201


@blp.route("/<string:challenge_id>")
class ChallengeById(MethodView):
    """A challenge."""

    @budget("reads")
    @blp.response(200, ChallengeSchema)
    @blp.alt_response(404, **problem_doc("`challenge_not_found`"))
    @blp.doc(operationId="getChallenge")
    def get(self, challenge_id: str) -> ChallengeView:
        """A challenge, to either of its players (or the server key)."""
        return challenges.read(tenant(), challenge_id, _player())


@blp.route("/<string:challenge_id>/accept")
class Accept(MethodView):
    """Accept a challenge."""

    @budget("creates")
    @blp.response(201, AcceptedSchema)
    @blp.alt_response(404, **problem_doc("`challenge_not_found`"))
    @blp.alt_response(409, **problem_doc("`challenge_closed`: answered, cancelled or "
                                         "expired; `not_your_challenge`; a staked "
                                         "challenge's `insufficient_funds`, `in_debt`: "
                                         "a player cannot hold the stake (it stays open)"))
    @blp.doc(operationId="acceptChallenge")
    def post(self, challenge_id: str) -> tuple[Accepted, int]:
        """The challenged player accepts: the match is made with both seated, the
        challenger in seat 0; the challenger hears `challenge.accepted` with its id."""
        return challenges.accept(tenant(), challenge_id, _player(), settings=current()), 201


@blp.route("/<string:challenge_id>/decline")
class Decline(MethodView):
    """Decline a challenge."""

    @budget("creates")
    @blp.response(200, ChallengeSchema)
    @blp.alt_response(409, **problem_doc("`challenge_closed`, `not_your_challenge`"))
    @blp.doc(operationId="declineChallenge")
    def post(self, challenge_id: str) -> ChallengeView:
        """The challenged player declines (`challenge.declined`)."""
        return challenges.decline(tenant(), challenge_id, _player())


@blp.route("/<string:challenge_id>/cancel")
class Cancel(MethodView):
    """Cancel a challenge."""

    @budget("creates")
    @blp.response(200, ChallengeSchema)
    @blp.alt_response(409, **problem_doc("`challenge_closed`, `not_your_challenge`"))
    @blp.doc(operationId="cancelChallenge")
    def post(self, challenge_id: str) -> ChallengeView:
        """The challenger takes the challenge back (`challenge.cancelled`)."""
        return challenges.cancel(tenant(), challenge_id, _player())


parties_blp = Blueprint("parties", __name__, url_prefix="/v1/parties",
                        description="Parties of two, seated as partners by quick play")


def _member() -> str:
    """The player a request's token proves (:class:`PlayerRequired` otherwise)."""
    return token_player("a party is its players'")


@parties_blp.route("")
class Parties(MethodView):
    """Start a party."""

    @budget("creates")
    @parties_blp.response(201, PartySchema)
    @parties_blp.alt_response(401, **problem_doc("`player_required`"))
    @parties_blp.alt_response(409, **problem_doc("`party_refused`: in a party already"))
    @parties_blp.doc(operationId="createParty")
    def post(self) -> tuple[PartyView, int]:
        """Start a party, led (and joined) by the token's player."""
        return parties.create(tenant(), _member()), 201


@parties_blp.route("/<string:party_id>")
class PartyById(MethodView):
    """A party."""

    @budget("reads")
    @parties_blp.response(200, PartySchema)
    @parties_blp.alt_response(404, **problem_doc("`party_not_found`"))
    @parties_blp.doc(operationId="getParty")
    def get(self, party_id: str) -> PartyView:
        """A party, to its members and invited players (or the server key)."""
        return parties.read(tenant(), party_id, _player())


@parties_blp.route("/<string:party_id>/invite")
class Invite(MethodView):
    """Invite a player."""

    @budget("creates")
    @parties_blp.arguments(InviteSchema)
    @parties_blp.response(200, PartySchema)
    @parties_blp.alt_response(409, **problem_doc("`party_refused`: not the leader, the party "
                                                 "full; `player_blocked`"))
    @parties_blp.doc(operationId="inviteToParty")
    def post(self, body: dict[str, Any], party_id: str) -> PartyView:
        """The leader invites a player (`party.invited` on their stream)."""
        return parties.invite(tenant(), party_id, _player(), body["player_id"])


@parties_blp.route("/<string:party_id>/join")
class JoinParty(MethodView):
    """Join a party."""

    @budget("creates")
    @parties_blp.response(200, PartySchema)
    @parties_blp.alt_response(404, **problem_doc("`party_not_found`: not invited"))
    @parties_blp.alt_response(409, **problem_doc("`party_refused`: in a party already, "
                                                 "the party full"))
    @parties_blp.doc(operationId="joinParty")
    def post(self, party_id: str) -> PartyView:
        """An invited player joins (`party.joined` to the members)."""
        return parties.join(tenant(), party_id, _member())


@parties_blp.route("/<string:party_id>/leave")
class LeaveParty(MethodView):
    """Leave a party."""

    @budget("creates")
    @parties_blp.response(204)
    @parties_blp.alt_response(404, **problem_doc("`party_not_found`"))
    @parties_blp.doc(operationId="leaveParty")
    def post(self, party_id: str) -> None:
        """Leave (or decline the invitation); the leader leaving disbands the party."""
        parties.leave(tenant(), party_id, _member())
