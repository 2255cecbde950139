"""The one map from typed errors (the engine's and every domain's) to HTTP statuses and
the headers that go with them; :mod:`service.web.problems` renders them as problem+json."""

from __future__ import annotations

from .engine.errors import IllegalMove, InvalidCard, InvalidDeck, InvalidRules, UnknownVariant
from .errors import InvalidToken, MatchNotFound, MissingToken
from .live.errors import TooManyWaiters
from .lobby.errors import NoOpenSeat, WrongMatchStatus
from .matches.errors import (
    ClaimTooEarly,
    ClockRanOut,
    IdempotencyKeyReused,
    InvalidCursor,
    MatchNotFinished,
    MatchNotStarted,
    NoHumanSeat,
    RatedNeedsPlayers,
    RatedNeedsShuffle,
    VersionMismatch,
    WrongPlayerCount,
)
from .players.errors import (
    BadBoardCursor,
    BlockedPlayer,
    InvalidPlayerToken,
    NotThisPlayer,
    PlayerNotFound,
    PlayerRequired,
    PlayerSuspended,
    PlayerUnverified,
    SuspensionEnded,
    TokenRevoked,
    TooManyBlocks,
    WrongFrontEnd,
)
from .safety.errors import (
    AlreadyReported,
    BadCursor,
    NotReportable,
    ReportNotFound,
    ReportResolved,
)
from .social.errors import (
    ChallengeClosed,
    ChallengeNotFound,
    NotYourChallenge,
    PartyNotFound,
    PartyRefused,
    TooManyChallenges,
    TooManyFriends,
)
from .storage.errors import DatabaseUnavailable
from .tenants.errors import (
    InvalidApiKey,
    MissingApiKey,
    OriginNotAllowed,
    ServerKeyRequired,
    Throttled,
)
from .tournaments.errors import (
    EntryClosed,
    NotEntered,
    TooManyTournaments,
    TournamentNotFound,
    TwoPlayersOnly,
)
from .web.problems import ProblemHeaders, Statuses
from .webhooks.errors import WebhookNotFound, WebhookUrlNotAllowed

STATUSES: Statuses = [
    (IllegalMove, 409),
    (NoOpenSeat, 409),
    (WrongMatchStatus, 409),
    (MatchNotStarted, 409),
    (ClockRanOut, 409),
    (MatchNotFound, 404),
    (WebhookNotFound, 404),
    (PlayerNotFound, 404),
    (TournamentNotFound, 404),
    (EntryClosed, 409),
    (TooManyTournaments, 409),
    (NotEntered, 409),
    (PlayerRequired, 401),
    (TwoPlayersOnly, 422),
    (WebhookUrlNotAllowed, 422),
    (MissingToken, 401),
    (InvalidToken, 403),
    (MissingApiKey, 401),
    (InvalidApiKey, 401),
    (OriginNotAllowed, 403),
    (PlayerUnverified, 403),
    (ServerKeyRequired, 403),
    (NotThisPlayer, 403),
    (InvalidPlayerToken, 401),
    (TokenRevoked, 401),
    (ReportNotFound, 404),
    (ChallengeNotFound, 404),
    (PartyNotFound, 404),
    (PartyRefused, 409),
    (ChallengeClosed, 409),
    (NotYourChallenge, 409),
    (TooManyChallenges, 409),
    (TooManyFriends, 409),
    (NotReportable, 422),
    (AlreadyReported, 409),
    (ReportResolved, 409),
    (BadCursor, 422),
    (MatchNotFinished, 409),
    (TooManyBlocks, 409),
    (PlayerSuspended, 403),
    (SuspensionEnded, 422),
    (BlockedPlayer, 409),
    (WrongFrontEnd, 401),
    (VersionMismatch, 412),
    (InvalidRules, 422),
    (UnknownVariant, 422),
    (InvalidDeck, 422),
    (InvalidCard, 422),
    (WrongPlayerCount, 422),
    (NoHumanSeat, 422),
    (RatedNeedsPlayers, 422),
    (RatedNeedsShuffle, 422),
    (ClaimTooEarly, 409),
    (IdempotencyKeyReused, 422),
    (InvalidCursor, 422),
    (BadBoardCursor, 422),
    (DatabaseUnavailable, 503),
    (TooManyWaiters, 429),
    (Throttled, 429),
]
RETRY_AFTER_SECONDS = 2
HEADERS: ProblemHeaders = {
    MissingToken: {"WWW-Authenticate": 'Bearer realm="basra"'},
    PlayerRequired: {"WWW-Authenticate": 'Bearer realm="basra"'},
    MissingApiKey: {"WWW-Authenticate": 'ApiKey header="X-API-Key"'},
    InvalidApiKey: {"WWW-Authenticate": 'ApiKey header="X-API-Key"'},
    InvalidPlayerToken: {"WWW-Authenticate": 'Bearer realm="basra", error="invalid_token"'},
    TokenRevoked: {"WWW-Authenticate": 'Bearer realm="basra", error="invalid_token"'},
    WrongFrontEnd: {"WWW-Authenticate": 'Bearer realm="basra", error="invalid_token"'},
    DatabaseUnavailable: {"Retry-After": str(RETRY_AFTER_SECONDS)},
    TooManyWaiters: {"Retry-After": str(RETRY_AFTER_SECONDS)},
}
