"""The one map from typed errors to HTTP statuses and the headers that go with them:
the engine's errors by this table, every domain's by the ``status`` beside its
``reason``; :mod:`service.web.problems` renders them as problem+json."""

from __future__ import annotations

from .engine.errors import IllegalMove, InvalidCard, InvalidDeck, InvalidRules, UnknownVariant
from .errors import MissingToken
from .live.errors import TooManyWaiters
from .players.errors import InvalidPlayerToken, PlayerRequired, TokenRevoked, WrongFrontEnd
from .storage.errors import DatabaseUnavailable
from .tenants.errors import InvalidApiKey, MissingApiKey
from .web.problems import ProblemHeaders, Statuses

STATUSES: Statuses = [
    # the engine's errors know no HTTP; every service error carries its ``status``
    (IllegalMove, 409),
    (InvalidRules, 422),
    (UnknownVariant, 422),
    (InvalidDeck, 422),
    (InvalidCard, 422),
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
