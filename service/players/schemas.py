"""Bodies of the players' routes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import marshmallow as ma
from marshmallow import validate

from ..events import STREAM_KINDS
from ..web.fields import JsonBoolean, JsonInteger, UTCDateTime
from .leaderboards import LeaderboardPage
from .ratings import provisional, shown, skill_display
from .service import MAX_TTL_SECONDS, MIN_TTL_SECONDS, PLAYER_ID

PLAYER_ID_FIELD = {"validate": validate.Regexp(PLAYER_ID.pattern + r"\Z",
                                               error="1-128 of A-Z a-z 0-9 . _ : @ -, not . or .."),
                   "metadata": {"description": "the front end's own id for its user (1-128 "
                                "of A-Z a-z 0-9 . _ : @ -, not . or ..)"}}
"""A player id field's validation and description."""


class MintSchema(ma.Schema):
    """A player token to mint."""

    name = ma.fields.String(validate=validate.Length(min=1, max=64), metadata={
        "description": "the player's display name (seats taken with the token show it)"})
    ttl_seconds = JsonInteger(
        load_default=3600, validate=validate.Range(min=MIN_TTL_SECONDS, max=MAX_TTL_SECONDS),
        metadata={"description": "how long the token lives"})


class SignedOutSchema(ma.Schema):
    """A player signed out everywhere."""

    player_id = ma.fields.String(required=True)
    signed_out_at = UTCDateTime(required=True, metadata={
        "description": "tokens issued before this are refused"})


class BlockSchema(ma.Schema):
    """A player the player blocks."""

    player_id = ma.fields.String(required=True, metadata={"description": "the blocked player"})
    at = UTCDateTime(required=True, metadata={"description": "blocked since"})


class ByIdQuerySchema(ma.Schema):
    """A page of a player's list by the other players' ids (blocks, friends)."""

    after = ma.fields.String(**PLAYER_ID_FIELD)
    limit = ma.fields.Integer(load_default=100, validate=validate.Range(min=1, max=500))


class BlocksPageSchema(ma.Schema):
    """Whom a player blocks, by id."""

    blocks = ma.fields.List(ma.fields.Nested(BlockSchema), required=True)
    next = ma.fields.String(required=True, allow_none=True, metadata={
        "description": "the next page's `after`; null on the last page"})


class MintedSchema(ma.Schema):
    """A player token: send it as ``Authorization: Bearer <token>``."""

    player_id = ma.fields.String(required=True)
    name = ma.fields.String(required=True, allow_none=True)
    token = ma.fields.String(required=True, metadata={
        "description": "a JWT (HS256) with iss basra, aud the front end's name, sub the "
        "player id, name, iat and exp"})
    expires_at = UTCDateTime(required=True)


def _figure(rating: Any, name: str) -> float:
    """``mu`` or ``sigma`` of a rating given as a mapping or an object."""
    return float(rating[name] if isinstance(rating, Mapping) else getattr(rating, name))


class SkillSchema(ma.Schema):
    """A rating: openskill's mu and sigma, the ordinal (mu - 3 sigma), the number to show
    players (1500 + 60 x (mu - 25), the bot levels' scale) and whether it is provisional."""

    mu = ma.fields.Float(required=True)
    sigma = ma.fields.Float(required=True)
    ordinal = ma.fields.Float(required=True, metadata={
        "description": "mu - 3 sigma, a cautious bound (leaderboards rank by mu)"})
    display = ma.fields.Function(lambda r: skill_display(_figure(r, "mu")), required=True,
                                 metadata={"type": "integer", "description":
                                           "the rating to show a player: 1500 + 60 x "
                                           "(mu - 25), the scale of the bot levels' "
                                           "numbers (a new player 1500)"})
    provisional = ma.fields.Function(lambda r: provisional(_figure(r, "sigma")),
                                     required=True, metadata={
                                         "type": "boolean", "description":
                                         "sigma above 5 (about the first 11-20 rated "
                                         "matches): show the number with a \"?\""})


class RatingChangeSchema(ma.Schema):
    """One seat's rating before and after a rated match."""

    seat = ma.fields.Integer(required=True)
    player_id = ma.fields.String(required=True)
    before = ma.fields.Nested(SkillSchema, required=True)
    after = ma.fields.Nested(SkillSchema, required=True)


RATING_CHANGES = {"required": True, "allow_none": True, "metadata": {
    "description": "each seat's rating before and after, once a rated match finished "
    "(null otherwise)"}}
"""A ``rating_changes`` field's settings (views, history entries, match.finished)."""


class PoolRatingSchema(SkillSchema):
    """A player's rating in one pool (a variant)."""

    pool = ma.fields.String(required=True)
    games = ma.fields.Integer(required=True, metadata={"description": "rated matches"})
    rank = ma.fields.Integer(required=True, allow_none=True, metadata={
        "description": "the place on the pool's leaderboard; null: not listed"})


class TotalsSchema(ma.Schema):
    """A player's finished matches at this front end (the seats they held as a vouched
    player), counted as each one finishes."""

    matches = ma.fields.Integer(required=True, metadata={"description": "finished matches"})
    wins = ma.fields.Integer(required=True)
    losses = ma.fields.Integer(required=True)
    draws = ma.fields.Integer(required=True)
    resigned = ma.fields.Integer(required=True, metadata={
        "description": "lost by their side's resignation"})
    timed_out = ma.fields.Integer(required=True, metadata={
        "description": "lost on their side's clock (a forfeit)"})
    basras = ma.fields.Integer(required=True, metadata={
        "description": "basras they made themselves (jack basras not included)"})
    jack_basras = ma.fields.Integer(required=True, metadata={
        "description": "jack basras they made themselves"})
    points = ma.fields.Integer(required=True, metadata={
        "description": "their side's final scores, summed"})


class RecordSchema(ma.Schema):
    """A player's record."""

    player_id = ma.fields.String(required=True)
    name = ma.fields.String(required=True, allow_none=True)
    created_at = UTCDateTime(required=True)
    ratings = ma.fields.List(ma.fields.Nested(PoolRatingSchema), required=True)
    totals = ma.fields.Nested(TotalsSchema, required=True)


class RatingPointSchema(SkillSchema):
    """A player's rating after one rated match."""

    match_id = ma.fields.String(required=True)
    at = UTCDateTime(required=True)


class RatingHistorySchema(ma.Schema):
    """A player's rating after each rated match of a pool, oldest first (for a chart)."""

    player_id = ma.fields.String(required=True)
    pool = ma.fields.String(required=True)
    points = ma.fields.List(ma.fields.Nested(RatingPointSchema), required=True)


class EntrySchema(SkillSchema):
    """One line of a leaderboard."""

    rank = ma.fields.Integer(required=True)
    player_id = ma.fields.String(required=True)
    name = ma.fields.String(required=True, allow_none=True)
    games = ma.fields.Integer(required=True)


class BoardStandingSchema(SkillSchema):
    """The player a leaderboard was asked around: their rating in the pool (the start,
    before any rated game) and whether they are listed yet."""

    player_id = ma.fields.String(required=True)
    games = ma.fields.Integer(required=True)
    listed = JsonBoolean(required=True, metadata={
        "description": "false until they have the rated games (and one lately) a "
                       "listing needs"})


class BoardQuerySchema(ma.Schema):
    """A leaderboard page: the first, the next (cursor), or the one around a player."""

    cursor = ma.fields.String(validate=validate.Length(max=200))
    around = ma.fields.String(**PLAYER_ID_FIELD)
    limit = ma.fields.Integer(load_default=20, validate=validate.Range(min=1, max=100))


class BoardSchema(ma.Schema):
    """A page of a pool's leaderboard, highest rating (mu, so ``display``) first."""

    pool = ma.fields.String(required=True)
    entries = ma.fields.List(ma.fields.Nested(EntrySchema), required=True)
    next = ma.fields.String(required=True, allow_none=True)
    rank = ma.fields.Integer(allow_none=True, metadata={
        "description": "with around: that player's place"})
    percentile = ma.fields.Float(allow_none=True, metadata={
        "description": "with around: the share of listed players at or below them, %"})
    standing = ma.fields.Nested(BoardStandingSchema, allow_none=True, metadata={
        "description": "with around: that player's own line, listed or not yet (then "
                       "`rank` is null and the page is the first)"})

    def dump(self, obj: Any, *, many: bool | None = None) -> Any:
        """Rendered by hand (a leaderboard is read far more than anything else here); the
        fields above are the contract, and ``tests/players/test_render.py`` holds the two
        equal."""
        if self.many if many is None else many:
            return [_board(b) for b in obj]
        return _board(obj)


def _board(b: LeaderboardPage) -> dict[str, Any]:
    return {"pool": b.pool, "entries": [
        {"mu": float(e.mu), "sigma": float(e.sigma), "ordinal": float(e.ordinal),
         **shown(e.mu, e.sigma),
         "rank": e.rank, "player_id": e.player_id,
         "name": e.name, "games": e.games}
        for e in b.entries], "next": b.next, "rank": b.rank,
        "percentile": None if b.percentile is None else float(b.percentile),
        "standing": None if b.standing is None else {
            "mu": float(b.standing.mu), "sigma": float(b.standing.sigma),
            "ordinal": float(b.standing.ordinal),
            **shown(b.standing.mu, b.standing.sigma),
            "player_id": b.standing.player_id,
            "games": b.standing.games, "listed": b.standing.listed}}


PLAYER_EVENTS = STREAM_KINDS


class PlayerEventSchema(ma.Schema):
    """One event of a player's stream (``text/event-stream``) as an SSE parser hands it
    over. ``match.started`` (`match_id`, `seat`), ``match.turn`` (their turn: `match_id`,
    `seat`, `deadline`), ``match.finished`` (`match_id`, `status`, `winner`, `scores`,
    ...), ``match.voided`` (`match_id`, `reason`: its result counts no more);
    ``match.seat_dropped`` and ``match.seat_back`` (`match_id`, `dropped`: the seat a
    stand-in now keeps, or whose player is back; theirs when it equals `seat`: say
    POST .../back);
    ``tournament.started``, ``tournament.round`` (their pairing: `match_id` or a
    `bye`), ``tournament.finished`` (their `rank` and `points`); ``friend.requested``
    (`from`, `to`), ``friend.accepted`` and ``friend.removed`` (`players`);
    ``challenge.created`` (to the challenged), ``.accepted`` (with `match_id`),
    ``.declined``, ``.cancelled``, ``.expired``; ``party.invited``, ``.joined``,
    ``.left``, ``.disbanded``, ``.seated`` (with `match_id`); ``presence`` (a friend's:
    `player_id`, `status` online, playing or offline, `match_id` when playing);
    ``wallet.changed`` (their coins moved: `currency`, `change`, the `transfer`). A comment line
    (``: heartbeat``) comes when nothing happened for a while."""

    event = ma.fields.String(required=True, validate=validate.OneOf(PLAYER_EVENTS))
    id = ma.fields.String(required=True, metadata={
        "description": "the event's number: send it back as Last-Event-ID to resume"})
    data = ma.fields.Dict(required=True, metadata={
        "contentMediaType": "application/json", "description": "the event, as JSON text"})


class PlayerSearchQuerySchema(ma.Schema):
    """Players by the start of their id, in id order."""

    prefix = ma.fields.String(load_default="", validate=validate.Regexp(
        r"[A-Za-z0-9._:@-]{0,128}\Z", error="0-128 of A-Z a-z 0-9 . _ : @ -"), metadata={
        "description": "the start of the ids wanted (empty: every player)"})
    after = ma.fields.String(**PLAYER_ID_FIELD)
    limit = ma.fields.Integer(load_default=50, validate=validate.Range(min=1, max=200))


class PlayerFoundSchema(ma.Schema):
    """A player found: who they are and whether they may play."""

    player_id = ma.fields.String(required=True)
    name = ma.fields.String(required=True, allow_none=True)
    created_at = UTCDateTime(required=True)
    matches = ma.fields.Integer(required=True)
    suspended = JsonBoolean(required=True)
    erased = JsonBoolean(required=True, metadata={
        "description": "an erased player's id, kept only to refuse their old tokens "
        "(`created_at`: the erasure); a server key vouching for it again makes a new player"})


class PlayerSearchPageSchema(ma.Schema):
    """A page of players found, in id order."""

    players = ma.fields.List(ma.fields.Nested(PlayerFoundSchema), required=True)
    next = ma.fields.String(required=True, allow_none=True, metadata={
        "description": "the next page's `after`; null on the last page"})


class RotateSecretSchema(ma.Schema):
    """How long tokens signed with the old secret stay accepted."""

    grace_seconds = JsonInteger(load_default=0, validate=validate.Range(min=0, max=86_400))


class RotatedSecretSchema(ma.Schema):
    """The new player-token secret (HS256): shown only in this answer."""

    secret = ma.fields.String(required=True)
