"""Bodies of the friends' and challenges' routes."""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from marshmallow import validate

from ..matches import render
from ..matches.schemas import ClockSchema, StakeSchema
from ..players.schemas import PLAYER_ID_FIELD
from ..web.fields import JsonBoolean, UTCDateTime
from .enums import ChallengeStatus


class FriendSchema(ma.Schema):
    """Someone in a player's list."""

    player_id = ma.fields.String(required=True)
    state = ma.fields.String(required=True, validate=validate.OneOf(
        ["friends", "requested", "asked"]), metadata={
        "description": "friends; requested: the player asked them; asked: they asked the "
        "player (PUT accepts)"})
    since = UTCDateTime(required=True)
    presence = ma.fields.String(required=True, allow_none=True, validate=validate.OneOf(
        ["online", "playing", "offline"]), metadata={
        "description": "a friend's presence: online (a player stream open), playing (seated "
        "in an active match), offline; null for a request"})
    match_id = ma.fields.String(required=True, allow_none=True, metadata={
        "description": "the match a friend is playing (anyone may watch it); else null"})


class FriendsPageSchema(ma.Schema):
    """A player's friends and requests both ways, by id."""

    friends = ma.fields.List(ma.fields.Nested(FriendSchema), required=True)
    next = ma.fields.String(required=True, allow_none=True, metadata={
        "description": "the next page's `after`; null on the last page"})


class NewChallengeSchema(ma.Schema):
    """A challenge to another player."""

    to = ma.fields.String(required=True, **PLAYER_ID_FIELD)
    variant = ma.fields.String(load_default="egyptian-v2",
                               validate=validate.Length(min=1, max=64))
    rules = ma.fields.Dict(load_default=dict, metadata={
        "description": "house-rule overrides, deep-merged"})
    rated = JsonBoolean(load_default=False)
    clock = ma.fields.Nested(ClockSchema, metadata={"description": "no clock when absent "
                             "(a rated match gets one)"})
    stake = ma.fields.Nested(StakeSchema, metadata={
        "description": "a staked match: each player holds the stake in the table's escrow "
        "as the acceptance seats them (`409 insufficient_funds` or `409 in_debt` "
        "refuses the acceptance)"})


class ChallengeSchema(ma.Schema):
    """A challenge."""

    id = ma.fields.String(required=True)
    challenger = ma.fields.String(required=True)
    challenged = ma.fields.String(required=True)
    variant = ma.fields.String(required=True)
    rules = ma.fields.Dict(required=True)
    rated = JsonBoolean(required=True)
    clock = ma.fields.Nested(ClockSchema, required=True, allow_none=True)
    status = ma.fields.String(required=True, validate=validate.OneOf(
        [s.value for s in ChallengeStatus]))
    created_at = UTCDateTime(required=True)
    expires_at = UTCDateTime(required=True)
    match_id = ma.fields.String(required=True, allow_none=True, metadata={
        "description": "the match its acceptance made"})
    stake = ma.fields.Nested(StakeSchema, required=True, allow_none=True, metadata={
        "description": "what each player stakes (null: unstaked)"})


class ChallengesSchema(ma.Schema):
    """A player's open challenges, made and received."""

    challenges = ma.fields.List(ma.fields.Nested(ChallengeSchema), required=True)


class AcceptedSchema(ma.Schema):
    """An accepted challenge: the match, the accepting player's seat and its token (the
    challenger acts with their player token)."""

    challenge = ma.fields.Nested(ChallengeSchema, required=True)
    match_id = ma.fields.Method("_match_id", required=True, metadata={"type": "string"})
    seat = ma.fields.Method("_seat", required=True, metadata={"type": "integer"})
    token = ma.fields.Method("_token", required=True, metadata={
        "type": "string", "description": "the accepting player's seat token (shown once)"})
    state = ma.fields.Method("_state", required=True, metadata={
        "type": "object", "description": "the accepting player's view (MatchState)"})

    def _match_id(self, accepted: Any) -> str:
        return str(accepted.match.id)

    def _seat(self, accepted: Any) -> int:
        return 1

    def _token(self, accepted: Any) -> str | None:
        return next((t.token for t in accepted.match.seats if t.seat == 1), None)

    def _state(self, accepted: Any) -> dict[str, Any]:
        return render.match_state(accepted.match.state)


class PartyMemberSchema(ma.Schema):
    """A party's member, or a player invited to it."""

    player_id = ma.fields.String(required=True)
    status = ma.fields.String(required=True, validate=validate.OneOf(["invited", "joined"]))
    at = UTCDateTime(required=True)


class PartySchema(ma.Schema):
    """A party: its leader, members and invitations."""

    id = ma.fields.String(required=True)
    leader = ma.fields.String(required=True)
    members = ma.fields.List(ma.fields.Nested(PartyMemberSchema), required=True)
    created_at = UTCDateTime(required=True)


class InviteSchema(ma.Schema):
    """A player to invite."""

    player_id = ma.fields.String(required=True, **PLAYER_ID_FIELD)
