"""The settings the use cases and the infrastructure read, frozen: made once from the
final Flask config by the composition root (:func:`service.app.create_app`), kept on the
app and handed to whoever needs them, so a use case can be called without an app.

:mod:`service.config` reads the environment into the Flask config; this module turns
that config into typed, snake_case, immutable values.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Protocol

from .config import LIMIT_DEFAULTS

EXTENSION = "basra.settings"
"""Where the app keeps its :class:`Settings` (``app.extensions``)."""


@dataclass(frozen=True, slots=True)
class Settings:
    """Every ``BASRA_*`` setting (and ``SECRET_KEY``, ``REDIS_URL``) a use case or a piece
    of infrastructure reads, as :mod:`service.config` documents them."""

    secret_key: bytes
    """Signs history cursors and derives seat tokens (``SECRET_KEY``; one given as text
    is its UTF-8 bytes, so every HMAC of it takes it alike)."""

    # waits: long polls, streams and the process's parking places
    max_wait: float
    poll_interval: float
    heartbeat_seconds: float
    stream_max_seconds: float
    """A player stream's most life (75-100% of it, drawn a stream; 0: no end)."""
    max_waiters: int
    max_waiters_per_client: int
    listen: bool
    """PostgreSQL: one LISTEN connection per process for version notifications."""

    # the database
    direct_database_url: str  # set: DATABASE_URL is a transaction pooler
    db_pool_size: int
    db_max_overflow: int
    sqlite_busy_timeout_ms: int

    # front ends' keys, staff sessions, metrics and rate limits
    api_keys_required: bool
    key_cache_seconds: float
    staff_session_minutes: int
    metrics_token: str
    rate_limits: bool
    redis_url: str
    redis_timeout_seconds: float
    limits: Mapping[str, str]
    """Each budget's Flask-Limiter limit string by name (``moves``, ``expensive``...)."""
    server_scale: int
    """A server key's budgets are this many times one caller's: it speaks for all its
    front end's players (signing them in, making their tables)."""

    # bots
    bot_cpu_ms: float
    bot_processes: int
    bot_nice: int
    bot_wait_seconds: float

    # matches: clocks, claims, idempotency and table chat
    claim_after_seconds: float
    rated_move_seconds: int
    waiting_minutes: float
    idempotency_hours: float
    # days each kind of row is kept (0: for ever): finished matches' moves, player
    # stream events, webhook messages and their tries
    retention_days_moves: int
    retention_days_player_events: int
    retention_days_webhooks: int
    chat_lines_per_minute: int
    chat_lines_per_match: int
    chat_after_end_seconds: int

    # players: presence and leaderboards
    presence_on: bool
    presence_lease_seconds: float
    presence_grace_seconds: float
    leaderboard_min_games: int
    leaderboard_active_days: int
    leaderboard_refresh_seconds: float

    # social, lobby and tournaments
    friends_max: int
    friend_requests_max: int
    challenge_seconds: int
    challenges_max: int
    quick_max_favourite: float
    quick_widen_seconds: float
    tournaments_per_front_end: int

    # webhooks
    webhooks_allow_private: bool
    webhook_timeout_seconds: float
    webhook_threads: int
    webhook_threads_per_front_end: int
    webhook_per_endpoint: int
    webhook_retry_seconds: float
    webhook_attempts: int
    webhook_disable_after: int

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> Settings:
        """The settings of a final Flask config (:func:`service.config.settings_from_env`
        with the caller's overrides on top)."""
        return cls(
            secret_key=_as_bytes(config["SECRET_KEY"]),
            max_wait=config["BASRA_MAX_WAIT"],
            poll_interval=config["BASRA_POLL_INTERVAL"],
            heartbeat_seconds=config["BASRA_HEARTBEAT_SECONDS"],
            stream_max_seconds=config["BASRA_STREAM_MAX_SECONDS"],
            max_waiters=config["BASRA_MAX_WAITERS"],
            max_waiters_per_client=config["BASRA_MAX_WAITERS_PER_CLIENT"],
            listen=bool(config.get("BASRA_LISTEN", True)),
            direct_database_url=config["BASRA_DIRECT_DATABASE_URL"],
            db_pool_size=config["BASRA_DB_POOL_SIZE"],
            db_max_overflow=config["BASRA_DB_MAX_OVERFLOW"],
            sqlite_busy_timeout_ms=config.get("BASRA_SQLITE_BUSY_TIMEOUT_MS", 30000),
            api_keys_required=config["BASRA_API_KEYS"] == "required",
            key_cache_seconds=config["BASRA_KEY_CACHE_SECONDS"],
            staff_session_minutes=config["BASRA_STAFF_SESSION_MINUTES"],
            metrics_token=config["BASRA_METRICS_TOKEN"],
            # Flask-Limiter's own switch wins when a caller set it
            rate_limits=bool(config.get("RATELIMIT_ENABLED",
                                        config["BASRA_RATE_LIMITS"] != "off")),
            redis_url=config["REDIS_URL"],
            redis_timeout_seconds=config["BASRA_REDIS_TIMEOUT_SECONDS"],
            limits=MappingProxyType({name: str(config[f"BASRA_LIMIT_{name.upper()}"])
                                     for name in LIMIT_DEFAULTS}),
            server_scale=config["BASRA_LIMIT_SERVER_SCALE"],
            bot_cpu_ms=config["BASRA_BOT_CPU_MS"],
            bot_processes=int(config["BASRA_BOT_PROCESSES"]),
            bot_nice=int(config["BASRA_BOT_NICE"]),
            bot_wait_seconds=config["BASRA_BOT_WAIT_SECONDS"],
            claim_after_seconds=float(config["BASRA_CLAIM_AFTER_SECONDS"]),
            rated_move_seconds=int(config["BASRA_RATED_MOVE_SECONDS"]),
            waiting_minutes=config["BASRA_WAITING_MINUTES"],
            idempotency_hours=config["BASRA_IDEMPOTENCY_HOURS"],
            retention_days_moves=config["BASRA_RETENTION_DAYS_MOVES"],
            retention_days_player_events=config["BASRA_RETENTION_DAYS_PLAYER_EVENTS"],
            retention_days_webhooks=config["BASRA_RETENTION_DAYS_WEBHOOKS"],
            chat_lines_per_minute=config["BASRA_CHAT_LINES_PER_MINUTE"],
            chat_lines_per_match=config["BASRA_CHAT_LINES_PER_MATCH"],
            chat_after_end_seconds=config["BASRA_CHAT_AFTER_END_SECONDS"],
            presence_on=config["BASRA_PRESENCE"] != "off",
            presence_lease_seconds=float(config["BASRA_PRESENCE_LEASE_SECONDS"]),
            presence_grace_seconds=float(config["BASRA_PRESENCE_GRACE_SECONDS"]),
            leaderboard_min_games=config["BASRA_LEADERBOARD_MIN_GAMES"],
            leaderboard_active_days=config["BASRA_LEADERBOARD_ACTIVE_DAYS"],
            leaderboard_refresh_seconds=config["BASRA_LEADERBOARD_REFRESH_SECONDS"],
            friends_max=config["BASRA_FRIENDS_MAX"],
            friend_requests_max=config["BASRA_FRIEND_REQUESTS_MAX"],
            challenge_seconds=config["BASRA_CHALLENGE_SECONDS"],
            challenges_max=config["BASRA_CHALLENGES_MAX"],
            quick_max_favourite=config["BASRA_QUICK_MAX_FAVOURITE"],
            quick_widen_seconds=config["BASRA_QUICK_WIDEN_SECONDS"],
            tournaments_per_front_end=config["BASRA_TOURNAMENTS_PER_FRONT_END"],
            webhooks_allow_private=bool(config["BASRA_WEBHOOKS_ALLOW_PRIVATE"]),
            webhook_timeout_seconds=config["BASRA_WEBHOOK_TIMEOUT_SECONDS"],
            webhook_threads=config["BASRA_WEBHOOK_THREADS"],
            webhook_threads_per_front_end=config["BASRA_WEBHOOK_THREADS_PER_FRONT_END"],
            webhook_per_endpoint=config["BASRA_WEBHOOK_PER_ENDPOINT"],
            webhook_retry_seconds=config["BASRA_WEBHOOK_RETRY_SECONDS"],
            webhook_attempts=config["BASRA_WEBHOOK_ATTEMPTS"],
            webhook_disable_after=config["BASRA_WEBHOOK_DISABLE_AFTER"],
        )


class HasExtensions(Protocol):
    """An app, as far as finding its settings goes."""

    extensions: dict[str, Any]


def settings_of(app: HasExtensions) -> Settings:
    """The settings the composition root kept on ``app``."""
    found: Settings = app.extensions[EXTENSION]
    return found


def _as_bytes(key: str | bytes) -> bytes:
    return key if isinstance(key, bytes) else key.encode()
