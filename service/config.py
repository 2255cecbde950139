"""Settings from the environment (``DATABASE_URL`` and ``BASRA_*``)."""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any

LIMIT_DEFAULTS = {
    "auth_failures": "30/minute",
    "creates": "60/minute",
    "moves": "600/minute",
    "reads": "3000/minute",
    "expensive": "30/minute",
}
"""Each rate-limit budget's default, per tenant key (or per address without a key); the
failed-key budget always per address."""


RETENTION_DEFAULTS = {"moves": 0, "player_events": 7, "webhooks": 7}
"""Days each kind of row that stops growing is kept (0: for ever), unless
``BASRA_RETENTION_DAYS_<KIND>`` or, for every kind, ``BASRA_RETENTION_DAYS`` says: a
finished match's moves, the players' stream events, webhook messages with their tries."""


def database_url(instance_path: str) -> str:
    """``DATABASE_URL`` with psycopg 3 as the PostgreSQL driver; SQLite file by default."""
    url = os.environ.get("DATABASE_URL", "").strip()
    if not url:
        Path(instance_path).mkdir(parents=True, exist_ok=True)
        return f"sqlite:///{Path(instance_path) / 'basra.sqlite3'}"
    return _driver(url)


def _driver(url: str) -> str:
    """A PostgreSQL URL with psycopg 3 as its driver."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def secret_key(instance_path: str) -> bytes:
    """``BASRA_SECRET_KEY``, or a random key kept in the instance folder (made on first
    use), for signing history cursors. Instances behind one database share the setting."""
    value = os.environ.get("BASRA_SECRET_KEY", "").strip()
    if value:
        return value.encode()
    path = Path(instance_path) / "secret.key"
    if not path.is_file():
        # written aside, then linked into place: racing workers all read the one winner
        path.parent.mkdir(parents=True, exist_ok=True)
        draft = path.with_name(f"secret.key.{os.getpid()}.{secrets.token_hex(4)}")
        fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as out:
            out.write(secrets.token_bytes(32))
        try:
            os.link(draft, path)
        except FileExistsError:
            pass
        finally:
            draft.unlink()
    return path.read_bytes()


def _float(name: str, default: float) -> float:
    value = os.environ.get(name)
    return float(value) if value else default


def _int(name: str, default: int, *, low: int) -> int:
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    if not value.isdigit() or int(value) < low:
        raise ValueError(f"{name} must be a whole number of at least {low}, not {value!r}")
    return int(value)


def _choice(name: str, choices: tuple[str, ...]) -> str:
    value = os.environ.get(name, "").strip() or choices[0]
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(choices)}, not {value!r}")
    return value


def settings_from_env(instance_path: str) -> dict[str, Any]:
    """The Flask config this service reads from the environment."""
    origins = os.environ.get("BASRA_CORS_ORIGINS", "*")
    read_url = os.environ.get("DATABASE_READ_URL", "").strip()
    direct_url = os.environ.get("BASRA_DIRECT_DATABASE_URL", "").strip()
    return {
        "SQLALCHEMY_DATABASE_URI": database_url(instance_path),
        # reads that may be a moment behind go to the standbys of DATABASE_READ_URL (for
        # instance the cluster's hosts with target_session_attrs=prefer-standby)
        "SQLALCHEMY_BINDS": {"replica": _driver(read_url)} if read_url else {},
        # set: DATABASE_URL is a transaction pooler (PgBouncer), which keeps no session
        # from one transaction to the next: the pools send no prepared statements, and
        # LISTEN, its pings and migrations connect here, straight to the primary
        "BASRA_DIRECT_DATABASE_URL": _driver(direct_url) if direct_url else "",
        "SECRET_KEY": secret_key(instance_path),
        # PostgreSQL connections are pinged at checkout when idle a while (service/storage/db.py)
        "SQLALCHEMY_ENGINE_OPTIONS": {},
        # PostgreSQL connections each process pools, and how many more it may open for a
        # burst (each of those closed after its transaction; service/storage/db.py)
        "BASRA_DB_POOL_SIZE": _int("BASRA_DB_POOL_SIZE", 10, low=1),
        "BASRA_DB_MAX_OVERFLOW": _int("BASRA_DB_MAX_OVERFLOW", 5, low=0),
        # the longest ?wait= a poll may ask for, and how often a poll looks
        "BASRA_MAX_WAIT": _float("BASRA_MAX_WAIT", 30.0),
        "BASRA_POLL_INTERVAL": _float("BASRA_POLL_INTERVAL", 0.2),
        # how many reverse proxies stand in front (each appends to X-Forwarded-For): the
        # client's address is the one that many entries from the right; 0 believes none
        "BASRA_TRUSTED_PROXIES": _int("BASRA_TRUSTED_PROXIES", 0, low=0),
        # a token /metrics asks for (Authorization: Bearer); empty: none asked
        "BASRA_METRICS_TOKEN": os.environ.get("BASRA_METRICS_TOKEN", "").strip(),
        "BASRA_CORS_ORIGINS": [o.strip() for o in origins.split(",") if o.strip()],
        "BASRA_SQLITE_BUSY_TIMEOUT_MS": int(_float("BASRA_SQLITE_BUSY_TIMEOUT_MS", 30000)),
        # PostgreSQL: one LISTEN connection per process for version notifications
        "BASRA_LISTEN": os.environ.get("BASRA_LISTEN", "1") != "0",
        # "required" in production: every /v1 request carries a tenant's X-API-Key;
        # "optional": a request without one belongs to the built-in "local" tenant
        "BASRA_API_KEYS": _choice("BASRA_API_KEYS", ("optional", "required")),
        "BASRA_KEY_CACHE_SECONDS": _float("BASRA_KEY_CACHE_SECONDS", 2.0),
        # rate limits (see service/tenants/limits.py); "off" for benchmarks and trusted setups
        "BASRA_RATE_LIMITS": _choice("BASRA_RATE_LIMITS", ("on", "off")),
        "REDIS_URL": os.environ.get("REDIS_URL", "").strip(),
        # a Redis call gives up after this; the budgets are then counted per process
        "BASRA_REDIS_TIMEOUT_SECONDS": _float("BASRA_REDIS_TIMEOUT_SECONDS", 0.25),
        # a server key's budgets: this many times one caller's (it signs in every player)
        "BASRA_LIMIT_SERVER_SCALE": _int("BASRA_LIMIT_SERVER_SCALE", 200, low=1),
        **{f"BASRA_LIMIT_{name.upper()}": os.environ.get(f"BASRA_LIMIT_{name.upper()}", value)
           for name, value in LIMIT_DEFAULTS.items()},
        # days kept of each kind of row that stops growing (0: for ever; docs/operations.md)
        **{f"BASRA_RETENTION_DAYS_{kind.upper()}": _int(
            f"BASRA_RETENTION_DAYS_{kind.upper()}",
            _int("BASRA_RETENTION_DAYS", days, low=0), low=0)
           for kind, days in RETENTION_DEFAULTS.items()},
        # the CPU a bot's search (or a hint's) may use for one move, milliseconds: then it
        # plays the best move found so far
        "BASRA_BOT_CPU_MS": _float("BASRA_BOT_CPU_MS", 150.0),
        # searching bots' moves are worked out in up to this many helper processes per
        # web process (0: in the web process), at this lower priority (nice)
        "BASRA_BOT_PROCESSES": _int("BASRA_BOT_PROCESSES", 2, low=0),
        "BASRA_BOT_NICE": _int("BASRA_BOT_NICE", 10, low=0),
        # a searching bot's move waits this long for a helper in its front end's turn,
        # then the greedy level plays it
        "BASRA_BOT_WAIT_SECONDS": _float("BASRA_BOT_WAIT_SECONDS", 5.0),
        # an event stream sends a comment this often when nothing happens
        "BASRA_HEARTBEAT_SECONDS": _float("BASRA_HEARTBEAT_SECONDS", 15.0),
        # a player stream ends after 75-100% of this (0: never), for its client to
        # reconnect where the balancer sends it: streams spread again over the instances
        # after one restarts
        "BASRA_STREAM_MAX_SECONDS": _float("BASRA_STREAM_MAX_SECONDS", 600.0),
        # a seat silent this long (no move) lets an opponent claim the win
        "BASRA_CLAIM_AFTER_SECONDS": _float("BASRA_CLAIM_AFTER_SECONDS", 120.0),
        # a rated match (and rated quick play) asked without a clock gets this one
        "BASRA_RATED_MOVE_SECONDS": _int("BASRA_RATED_MOVE_SECONDS", 60, low=5),
        # tournaments a front end may hold scheduled or running at once
        "BASRA_TOURNAMENTS_PER_FRONT_END": _int("BASRA_TOURNAMENTS_PER_FRONT_END", 20, low=1),
        # friends a player may have, and requests they may have waiting (both ways)
        "BASRA_FRIENDS_MAX": _int("BASRA_FRIENDS_MAX", 500, low=1),
        "BASRA_FRIEND_REQUESTS_MAX": _int("BASRA_FRIEND_REQUESTS_MAX", 100, low=1),
        # a process renews its player streams' presence leases for this long (a dead
        # instance's players go offline after it); a closed last stream keeps its player
        # online for the grace (a reconnect within it is no change)
        "BASRA_PRESENCE": _choice("BASRA_PRESENCE", ("on", "off")),  # off: all offline
        "BASRA_PRESENCE_LEASE_SECONDS": _int("BASRA_PRESENCE_LEASE_SECONDS", 30, low=3),
        "BASRA_PRESENCE_GRACE_SECONDS": _int("BASRA_PRESENCE_GRACE_SECONDS", 5, low=0),
        # table chat: lines a speaker may say a minute, and a match may hold
        "BASRA_CHAT_LINES_PER_MINUTE": _int("BASRA_CHAT_LINES_PER_MINUTE", 10, low=1),
        "BASRA_CHAT_LINES_PER_MATCH": _int("BASRA_CHAT_LINES_PER_MATCH", 500, low=1),
        # table chat stays open this long after a match ends (a "gg"); 0: closed at the end
        "BASRA_CHAT_AFTER_END_SECONDS": _int("BASRA_CHAT_AFTER_END_SECONDS", 60, low=0),
        # a console session (staff signed in with a staff key) lasts this long
        "BASRA_STAFF_SESSION_MINUTES": _int("BASRA_STAFF_SESSION_MINUTES", 60, low=1),
        # a challenge not answered within this expires; a player may have this many open
        "BASRA_CHALLENGE_SECONDS": _int("BASRA_CHALLENGE_SECONDS", 60, low=5),
        "BASRA_CHALLENGES_MAX": _int("BASRA_CHALLENGES_MAX", 10, low=1),
        # a match waiting for players that does not fill within this is aborted
        "BASRA_WAITING_MINUTES": _float("BASRA_WAITING_MINUTES", 10.0),
        # a retried move's Idempotency-Key is honoured this long
        "BASRA_IDEMPOTENCY_HOURS": _float("BASRA_IDEMPOTENCY_HOURS", 24.0),
        # a leaderboard lists the players of a pool with this many rated games, one of
        # them within this many days
        "BASRA_LEADERBOARD_MIN_GAMES": _int("BASRA_LEADERBOARD_MIN_GAMES", 10, low=1),
        "BASRA_LEADERBOARD_ACTIVE_DAYS": _int("BASRA_LEADERBOARD_ACTIVE_DAYS", 30, low=1),
        # basra worker ranks the leaderboards again this often
        "BASRA_LEADERBOARD_REFRESH_SECONDS": _float("BASRA_LEADERBOARD_REFRESH_SECONDS", 60.0),
        # rated quick play: a table only where the favourite's predicted chance is at most
        # this, a bound that widens with the table's wait until any will do after
        # BASRA_QUICK_WIDEN_SECONDS
        "BASRA_QUICK_MAX_FAVOURITE": _float("BASRA_QUICK_MAX_FAVOURITE", 0.75),
        "BASRA_QUICK_WIDEN_SECONDS": _float("BASRA_QUICK_WIDEN_SECONDS", 30.0),
        # webhooks: private addresses refused unless allowed (tests, private deployments);
        # a try (connect, send, the whole answer) ends within BASRA_WEBHOOK_TIMEOUT_SECONDS;
        # retries start after BASRA_WEBHOOK_RETRY_SECONDS and grow fourfold (capped at 6 h,
        # with jitter) for BASRA_WEBHOOK_ATTEMPTS tries (~26 h);
        # an endpoint is disabled after BASRA_WEBHOOK_DISABLE_AFTER messages in a row fail
        "BASRA_WEBHOOKS_ALLOW_PRIVATE": os.environ.get("BASRA_WEBHOOKS_ALLOW_PRIVATE", "0") == "1",
        "BASRA_WEBHOOK_TIMEOUT_SECONDS": _float("BASRA_WEBHOOK_TIMEOUT_SECONDS", 5.0),
        # the worker's delivery threads, how many of them one front end may hold, and how
        # many tries one endpoint may have under way at once
        "BASRA_WEBHOOK_THREADS": _int("BASRA_WEBHOOK_THREADS", 32, low=1),
        "BASRA_WEBHOOK_THREADS_PER_FRONT_END": _int("BASRA_WEBHOOK_THREADS_PER_FRONT_END", 16,
                                                    low=1),
        "BASRA_WEBHOOK_PER_ENDPOINT": _int("BASRA_WEBHOOK_PER_ENDPOINT", 16, low=1),
        "BASRA_WEBHOOK_RETRY_SECONDS": _float("BASRA_WEBHOOK_RETRY_SECONDS", 5.0),
        "BASRA_WEBHOOK_ATTEMPTS": int(_float("BASRA_WEBHOOK_ATTEMPTS", 11)),
        "BASRA_WEBHOOK_DISABLE_AFTER": int(_float("BASRA_WEBHOOK_DISABLE_AFTER", 5)),
        # parked requests (long polls, event streams) per process, and per client: one
        # process alone holds the 5,000 an instance is meant to (a worker's share of
        # the connections is not even: whichever is idle accepts)
        "BASRA_MAX_WAITERS": int(_float("BASRA_MAX_WAITERS", 5000)),
        "BASRA_MAX_WAITERS_PER_CLIENT": int(_float("BASRA_MAX_WAITERS_PER_CLIENT", 500)),
        "MAX_CONTENT_LENGTH": 256 * 1024,  # a request with 64 explicit decks is ~15 KB
        "API_TITLE": "Basra match service",
        "API_VERSION": "1.0.0",
        "OPENAPI_VERSION": "3.1.0",
        "OPENAPI_URL_PREFIX": "/",
        "OPENAPI_JSON_PATH": "openapi.json",
        "OPENAPI_SWAGGER_UI_PATH": "/docs",
        # served by the service itself from the pinned swagger-ui-py (web/docs.py)
        "OPENAPI_SWAGGER_UI_URL": "/docs/assets/",
        "JSON_SORT_KEYS": False,
    }
