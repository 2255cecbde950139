"""Schemas of the webhooks resource."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import validate

from ..matches.enums import MatchStatus
from ..players.schemas import RATING_CHANGES, RatingChangeSchema
from ..tournaments.enums import TournamentStatus, TournamentSystem
from ..web.fields import JsonBoolean, UTCDateTime, ZonedDateTime
from .enums import MessageStatus
from .service import EVENTS


class CreateWebhookSchema(ma.Schema):
    """Where to send which events."""

    url = ma.fields.String(required=True, validate=validate.Length(min=8, max=2048),
                           metadata={"example": "https://example.com/basra/hooks"})
    events = ma.fields.List(
        ma.fields.String(validate=validate.OneOf(EVENTS)), required=True,
        validate=validate.Length(min=1, max=len(EVENTS)),
        metadata={"description": "any of " + ", ".join(EVENTS)},
    )


class WebhookSchema(ma.Schema):
    """A webhook (its secret is shown only when it is made)."""

    id = ma.fields.String(required=True)
    url = ma.fields.String(required=True)
    events = ma.fields.List(ma.fields.String(), required=True)
    created_at = UTCDateTime(required=True)
    disabled_at = UTCDateTime(
        required=True, allow_none=True,
        metadata={"description": "set when the endpoint kept failing; null while enabled"})
    paused_at = UTCDateTime(
        required=True, allow_none=True,
        metadata={"description": "set while the front end paused it: its messages wait"})


class CreatedWebhookSchema(WebhookSchema):
    """A new webhook with its signing secret."""

    secret = ma.fields.String(required=True, metadata={
        "description": "the Standard Webhooks signing secret (`whsec_...`): shown only here"})


class WebhookListSchema(ma.Schema):
    """The front end's webhooks."""

    webhooks = ma.fields.List(ma.fields.Nested(WebhookSchema), required=True)


class AttemptSchema(ma.Schema):
    """One try at delivering one message."""

    message_id = ma.fields.String(required=True, metadata={
        "description": "the message's `webhook-id`, the same on every try"})
    type = ma.fields.String(required=True)
    message_status = ma.fields.String(
        required=True, validate=validate.OneOf([s.value for s in MessageStatus]))
    at = UTCDateTime(required=True)
    status_code = ma.fields.Integer(required=True, allow_none=True)
    error = ma.fields.String(required=True, allow_none=True)
    duration_ms = ma.fields.Integer(required=True)


class TrySchema(ma.Schema):
    """One try at a delivery."""

    at = UTCDateTime(required=True)
    status_code = ma.fields.Integer(required=True, allow_none=True, metadata={
        "description": "what the receiver answered; null when it did not (see error)"})
    error = ma.fields.String(required=True, allow_none=True)
    duration_ms = ma.fields.Integer(required=True)


class DeliverySchema(ma.Schema):
    """One message to a webhook with every try at it, oldest first."""

    id = ma.fields.String(required=True, metadata={
        "description": "the message's `webhook-id`, the same on every try"})
    type = ma.fields.String(required=True)
    status = ma.fields.String(required=True,
                              validate=validate.OneOf([s.value for s in MessageStatus]))
    created_at = UTCDateTime(required=True)
    next_attempt_at = UTCDateTime(required=True, metadata={
        "description": "when a pending message is tried next"})
    attempts = ma.fields.List(ma.fields.Nested(TrySchema), required=True)


class RecoverSchema(ma.Schema):
    """Which failed messages to send again."""

    since = ZonedDateTime(required=True, metadata={
        "description": "every message that ran out of tries, written since then"})


class RecoveredSchema(ma.Schema):
    """What a recovery made due again."""

    messages = ma.fields.Integer(required=True, metadata={
        "description": "failed messages made due now (at most 10,000 a call)"})
    more = JsonBoolean(required=True, metadata={
        "description": "more are left: call again"})


class DeliveriesSchema(ma.Schema):
    """A webhook's latest delivery attempts, newest first."""

    deliveries = ma.fields.List(ma.fields.Nested(AttemptSchema), required=True)


# --- what the service sends: the webhooks section of the OpenAPI document --------------
# Each message is {"type", "timestamp", "data"}; only what a spectator may see. Fields may
# be added to them later, so the schemas allow more than they list.


class _Open(ma.Schema):
    class Meta:
        unknown = ma.INCLUDE


class WebhookSeatSchema(_Open):
    """A seat as a spectator sees it."""

    seat = ma.fields.Integer(required=True)
    team = ma.fields.Integer(required=True)
    name = ma.fields.String(required=True, allow_none=True)
    player_id = ma.fields.String(required=True, allow_none=True)
    bot = ma.fields.String(required=True, allow_none=True)


class _Change(_Open):
    match_id = ma.fields.String(required=True)
    version = ma.fields.Integer(required=True, metadata={
        "description": "the match's version after this change: deliveries may overtake "
        "each other, and version orders them"})


class MatchStartedSchema(_Change):
    """The last seat filled (or the match was made full): it deals."""

    variant = ma.fields.String(required=True)
    rules_hash = ma.fields.String(required=True)
    commitment = ma.fields.String(required=True, metadata={
        "description": "hex SHA-256 of the seed, which match.finished reveals"})
    seats = ma.fields.List(ma.fields.Nested(WebhookSeatSchema), required=True)


class MatchMoveSchema(_Change):
    """One play (a bot's, and one made for a seat whose time ran out, included)."""

    round = ma.fields.Integer(required=True)
    seat = ma.fields.Integer(required=True)
    card = ma.fields.String(required=True)
    captured = ma.fields.List(ma.fields.String(), required=True)
    basra = ma.fields.String(required=True, allow_none=True,
                             validate=validate.OneOf(["basra", "jack_basra"]))
    timeout = JsonBoolean(required=True, metadata={
        "description": "played for the seat when its turn clock ran out"})


class MatchTurnSchema(_Change):
    """A human seat is to play."""

    seat = ma.fields.Integer(required=True)
    name = ma.fields.String(required=True, allow_none=True)
    deadline = UTCDateTime(required=True, allow_none=True, metadata={
        "description": "when the seat's time runs out; null without a clock"})


class MatchSeatSchema(_Change):
    """A seat's player dropped (the match's stand-in bot keeps the seat), or came back."""

    seat = ma.fields.Integer(required=True)
    name = ma.fields.String(required=True, allow_none=True)
    stand_in = ma.fields.String(required=True, metadata={
        "description": "the bot level that keeps a dropped seat"})


class MatchFinishedSchema(_Change):
    """The match is over (won, resigned, timed out or aborted)."""

    status = ma.fields.String(required=True, validate=validate.OneOf(
        [MatchStatus.FINISHED.value, MatchStatus.ABORTED.value]))
    end_reason = ma.fields.String(required=True, allow_none=True)
    scores = ma.fields.List(ma.fields.Integer(), required=True)
    winner = ma.fields.Integer(required=True, allow_none=True)
    draw = JsonBoolean(required=True)
    rounds = ma.fields.Integer(required=True)
    seed = ma.fields.String(required=True, allow_none=True, metadata={
        "description": "the seed, now public (null for a duplicate round's table until "
        "the round is over: every table holds the same cards)"})
    commitment = ma.fields.String(required=True)
    rating_changes = ma.fields.List(ma.fields.Nested(RatingChangeSchema), **RATING_CHANGES)


class MatchVoidedSchema(_Change):
    """The front end voided a finished match's result: its rating changes, totals and
    tournament points are taken back."""

    voided_at = UTCDateTime(required=True)
    reason = ma.fields.String(required=True, allow_none=True)
    rated = JsonBoolean(required=True)
    scores = ma.fields.List(ma.fields.Integer(), required=True)
    winner = ma.fields.Integer(required=True, allow_none=True)
    draw = JsonBoolean(required=True)


class ReportCreatedSchema(_Open):
    """A player reported another seat of a match they played: the report to review
    (``GET /v1/reports/{id}`` has its evidence)."""

    report_id = ma.fields.String(required=True)
    match_id = ma.fields.String(required=True)
    reporter = ma.fields.String(required=True, metadata={"description": "who reported"})
    player_id = ma.fields.String(required=True, metadata={"description": "who is reported"})
    reason = ma.fields.String(required=True)
    text = ma.fields.String(required=True, allow_none=True)


class FriendRequestedSchema(_Open):
    """A player asked another to be friends."""

    to = ma.fields.String(required=True)

    class Meta:
        include = {"from": ma.fields.String(required=True)}
        unknown = ma.INCLUDE


class FriendsChangedSchema(_Open):
    """Two players became friends (the first had asked), or are no longer (or a request
    between them ended)."""

    players = ma.fields.List(ma.fields.String(), required=True)


class ChallengeEventSchema(_Open):
    """A challenge made, accepted (with its match), declined, cancelled or expired."""

    challenge_id = ma.fields.String(required=True)
    challenger = ma.fields.String(required=True)
    challenged = ma.fields.String(required=True)
    variant = ma.fields.String(required=True)
    rated = JsonBoolean(required=True)
    expires_at = ma.fields.String(required=True, metadata={"format": "date-time"})
    match_id = ma.fields.String(required=True, allow_none=True)


class PartyEventSchema(_Open):
    """A party's change: a player invited (``player_id``, ``leader``), joined
    (``members``), left, the party disbanded, or seated by quick play (``match_id``,
    ``seats`` by player)."""

    party_id = ma.fields.String(required=True)


class _OfTournament(_Open):
    tournament_id = ma.fields.String(required=True)


NAMES = {"required": True, "keys": ma.fields.String(), "values": ma.fields.String(),
         "metadata": {"description": "the display name of every player named here, by id"}}


class TournamentStartedSchema(_OfTournament):
    """A tournament started: its entrants, and its first pairings follow."""

    name = ma.fields.String(required=True)
    system = ma.fields.String(required=True,
                              validate=validate.OneOf([s.value for s in TournamentSystem]))
    entrants = ma.fields.List(ma.fields.String(), required=True)
    names = ma.fields.Dict(**NAMES)


class TournamentPairingSchema(_Open):
    """A game paired: its match and its players by seat, the first to play first (four
    at a 4-player duplicate table: seats 0 and 2 partners)."""

    match_id = ma.fields.String(required=True)
    players = ma.fields.List(ma.fields.String(), required=True)


class TournamentRoundSchema(_OfTournament):
    """New pairings: a Swiss round (with its bye), or an arena's games just paired."""

    round = ma.fields.Integer(required=True, allow_none=True, metadata={
        "description": "the Swiss round; null in an arena"})
    pairings = ma.fields.List(ma.fields.Nested(TournamentPairingSchema), required=True)
    bye = ma.fields.String(required=True, allow_none=True)
    byes = ma.fields.List(ma.fields.String(), metadata={
        "description": "duplicate: everyone who sits the round out (`bye` is the first)"})
    names = ma.fields.Dict(**NAMES)


class StandingSchema(_Open):
    """A line of a tournament's standings."""

    rank = ma.fields.Integer(required=True)
    player_id = ma.fields.String(required=True)
    name = ma.fields.String(required=True, metadata={"description": "the display name"})
    points = ma.fields.Float(required=True)
    buchholz = ma.fields.Float(required=True, metadata={
        "description": "the points of every opponent played"})
    sonneborn_berger = ma.fields.Float(required=True, metadata={
        "description": "the points of every opponent beaten, half of those drawn with"})
    rating = ma.fields.Float(required=True, allow_none=True, metadata={
        "description": "the player's rating number in the tournament's pool, `display` "
        "(the last tie-break)"})
    games = ma.fields.Integer(required=True)
    wins = ma.fields.Integer(required=True)
    draws = ma.fields.Integer(required=True)
    losses = ma.fields.Integer(required=True)
    byes = ma.fields.Integer(required=True)
    streak = ma.fields.Integer(required=True, metadata={"description": "wins in a row now"})
    withdrawn = JsonBoolean(required=True)


class TournamentFinishedSchema(_OfTournament):
    """A tournament is over (finished, or cancelled below its minimum of players)."""

    status = ma.fields.String(required=True, validate=validate.OneOf(
        [TournamentStatus.FINISHED.value, TournamentStatus.CANCELLED.value]))
    standings = ma.fields.List(ma.fields.Nested(StandingSchema), required=True)
    names = ma.fields.Dict(**NAMES)


class AccountRefSchema(_Open):
    """One side of a transfer: ``account`` (player, table, tournament, house, mint) and,
    for a player's or an escrow, whose (``player_id``, ``match_id``, ``tournament_id``)."""

    account = ma.fields.String(required=True)
    player_id = ma.fields.String()
    match_id = ma.fields.String()
    tournament_id = ma.fields.String()


class WalletTransferSchema(_Open):
    """A transfer of the ledger, as ``GET /v1/players/{id}/wallet/transfers`` lists it."""

    id = ma.fields.String(required=True)
    currency = ma.fields.String(required=True)
    amount = ma.fields.Integer(required=True)
    kind = ma.fields.String(required=True)
    from_ = ma.fields.Nested(AccountRefSchema, required=True, data_key="from")
    to = ma.fields.Nested(AccountRefSchema, required=True)
    reason = ma.fields.String(required=True, allow_none=True)
    reference = ma.fields.String(required=True, allow_none=True)
    created_at = ma.fields.String(required=True, metadata={"format": "date-time"})


class WalletChangedSchema(_Open):
    """Coins moved into or out of a player's wallet: a grant, a take, a stake held or
    released, a pot, a refund, an entry fee, a prize, staff's adjustment."""

    player_id = ma.fields.String(required=True)
    currency = ma.fields.String(required=True)
    change = ma.fields.Integer(required=True, metadata={
        "description": "what it did to the player's balance: +amount or -amount"})
    transfer = ma.fields.Nested(WalletTransferSchema, required=True)


def _message(kind: str, data: type[ma.Schema]) -> type[ma.Schema]:
    """The message schema of one event type."""
    return _Open.from_dict({
        "type": ma.fields.String(required=True, validate=validate.OneOf([kind])),
        "timestamp": ma.fields.String(required=True, metadata={
            "format": "date-time", "description": "when the change was saved"}),
        "data": ma.fields.Nested(data, required=True),
    }, name="".join(part.title() for part in kind.split(".")) + "EventSchema")


MESSAGES: dict[str, type[ma.Schema]] = {
    "match.started": _message("match.started", MatchStartedSchema),
    "match.move": _message("match.move", MatchMoveSchema),
    "match.turn": _message("match.turn", MatchTurnSchema),
    "match.finished": _message("match.finished", MatchFinishedSchema),
    "match.voided": _message("match.voided", MatchVoidedSchema),
    "match.seat_dropped": _message("match.seat_dropped", MatchSeatSchema),
    "match.seat_back": _message("match.seat_back", MatchSeatSchema),
    "tournament.started": _message("tournament.started", TournamentStartedSchema),
    "tournament.round": _message("tournament.round", TournamentRoundSchema),
    "tournament.finished": _message("tournament.finished", TournamentFinishedSchema),
    "report.created": _message("report.created", ReportCreatedSchema),
    "friend.requested": _message("friend.requested", FriendRequestedSchema),
    "friend.accepted": _message("friend.accepted", FriendsChangedSchema),
    "friend.removed": _message("friend.removed", FriendsChangedSchema),
    **{kind: _message(kind, ChallengeEventSchema) for kind in (
        "challenge.created", "challenge.accepted", "challenge.declined",
        "challenge.cancelled", "challenge.expired")},
    **{kind: _message(kind, PartyEventSchema) for kind in (
        "party.invited", "party.joined", "party.left", "party.disbanded", "party.seated")},
    "wallet.changed": _message("wallet.changed", WalletChangedSchema),
}
"""Each event type's message, as the OpenAPI document's ``webhooks`` describe it."""
