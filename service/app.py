"""The composition root: ``create_app()`` builds the WSGI app and is the one place that
wires every domain (its routes, hooks, error map, database and limits).

``gunicorn 'service:create_app()'`` serves it; configuration comes from the
environment (``DATABASE_URL`` and ``BASRA_*``, see :mod:`service.config`).
"""

from __future__ import annotations

from typing import Any

from apispec import APISpec
from flask import Flask
from flask_cors import CORS
from werkzeug.middleware.proxy_fix import ProxyFix

from . import events, problems
from .coins import check as ledger_check
from .coins import models as coins_tables
from .coins import resources as coins
from .coins import service as coin_service
from .config import settings_from_env
from .console import resources as console
from .fairplay import models as fairplay_tables
from .fairplay import resources as fairplay
from .live import keeper
from .lobby import resources as lobby
from .matches import cache as match_cache
from .matches import changes as match_changes
from .matches import models as matches_tables
from .matches import resources as matches
from .matches import service as match_service
from .matches import stakes as match_stakes
from .matches.event_schemas import describe_stream_events
from .ops import resources as ops
from .ops.logs import init_observability
from .ops.metrics import READINESS
from .play import resources as play
from .players import blocks as player_blocks
from .players import cache as player_cache
from .players import events as player_events
from .players import leaderboards as player_boards
from .players import models as players_tables
from .players import presence as player_presence
from .players import resources as players
from .players import service as player_service
from .players.requests import resolve_player
from .reviews import models as reviews_tables
from .reviews import resources as reviews
from .safety import models as safety_tables
from .safety import resources as safety
from .settings import EXTENSION as SETTINGS
from .settings import Settings
from .social import friends as social_friends
from .social import models as social_tables
from .social import presence as social_presence
from .social import resources as social
from .storage.db import DISCONNECTED, init_db
from .storage.errors import DatabaseUnavailable
from .tenants import cache as tenant_cache
from .tenants import economy as tenant_economy
from .tenants import models as tenants_tables
from .tenants import resources as staff_routes
from .tenants.limits import init_limits, store_state
from .tenants.requests import resolve_tenant
from .tournaments import models as tournaments_tables
from .tournaments import resources as tournament_routes
from .tournaments import results as tournament_results
from .tournaments import service as tournament_service
from .variants import resources as variants
from .web import docs
from .web.api import BasraApi, document_common_problems
from .web.json_provider import OrjsonProvider
from .web.parser import refuse_nul_in_path
from .web.problems import domain_problem
from .web.sessions import NoSessions
from .webhooks import cache as webhook_cache
from .webhooks import models as webhooks_tables
from .webhooks import outbox as webhook_outbox
from .webhooks import resources as webhook_routes

TABLES = (coins_tables, fairplay_tables, matches_tables, players_tables, reviews_tables,
          safety_tables, social_tables, tenants_tables, tournaments_tables, webhooks_tables)
"""Every domain's tables (its ``models.py``), imported here so the one metadata holds them
all: what Alembic compares the migrations with, and what the suite empties."""


def reset_caches() -> None:
    """Forget what this process keeps of the database (each domain's ``cache.py``): an
    app built on an emptied database starts from what it reads."""
    for cache in (match_cache, player_cache, tenant_cache, webhook_cache):
        cache.reset()


def wire_subscribers() -> None:
    """Who hears every published event (:mod:`service.events`): the webhooks' outbox and
    the players' streams (each answers with the rows to write in the publisher's
    transaction); who hears of every match change besides: the tournaments' results, the
    players' presence, a staked table's settlement; who hears of a player's first stream
    on this process: presence; and of a block: social (it ends a friendship); who names a
    rating change's match: the matches; of a new player: coins (the starting grant); who
    names a front end's currencies for its settings: coins; which matches and tournaments
    have ended (the ledger's checker): the matches and the tournaments."""
    events.wire(events.Subscriber(webhook_outbox.outbox, webhook_outbox.subscribed),
                events.Subscriber(player_events.for_streams))
    match_changes.wire(tournament_results.results, social_presence.on_match,
                       match_stakes.settle)
    player_presence.wire(social_presence.reconcile)
    player_blocks.wire(social_friends.unfriend)
    player_boards.wire(match_service.match_ids)
    keeper.wire(player_presence.renew_if_due)
    player_service.wire_new(coin_service.starting_grant)
    tenant_economy.wire(coin_service.currency_codes)
    ledger_check.wire(matches=match_service.ended_of,
                      tournaments=tournament_service.ended)


def _security_schemes(spec: APISpec) -> None:
    """How a request says who sends it, in the OpenAPI document."""
    spec.components.security_scheme(
        "seatToken", {"type": "http", "scheme": "bearer", "description": "a seat token, or "
                      "a player token (a JWT) of the player who holds the seat"}
    )
    spec.components.security_scheme("apiKey", {
        "type": "apiKey", "in": "header", "name": "X-API-Key",
        "description": "the front end's (tenant's) key; required unless the deployment "
        "runs with BASRA_API_KEYS=optional",
    })


def create_app(config: dict[str, Any] | None = None) -> Flask:
    """Build the app; ``config`` overrides settings read from the environment."""
    app = Flask("service")
    app.json = OrjsonProvider(app)
    app.session_interface = NoSessions()
    app.config.update(settings_from_env(app.instance_path))
    if config:
        app.config.update(config)
    settings = Settings.from_config(app.config)  # the config is final: handed on from here
    app.extensions[SETTINGS] = settings
    app.json.sort_keys = False  # type: ignore[attr-defined]
    proxies = app.config["BASRA_TRUSTED_PROXIES"]
    if proxies:  # the client's address (limits, waiters, logs) as the proxies saw it
        app.wsgi_app = ProxyFix(  # type: ignore[method-assign]
            app.wsgi_app, x_for=proxies, x_proto=proxies, x_host=proxies)

    reset_caches()
    wire_subscribers()
    init_db(app, settings)
    CORS(
        app,
        origins=app.config["BASRA_CORS_ORIGINS"],
        expose_headers=["ETag", "Location", "Link"],
        allow_headers=["Authorization", "Content-Type", "If-Match", "If-None-Match",
                       "Idempotency-Key", "X-API-Key"],
        methods=["GET", "POST", "PUT", "DELETE", "OPTIONS"],
        max_age=600,
    )

    api = BasraApi(app, problems.STATUSES, problems.HEADERS, spec_kwargs={
        # the tenant's key: required where BASRA_API_KEYS=required, else optional
        "security": [{}, {"apiKey": []}],
        "info": {"description": "Egyptian Basra matches for third-party front ends. Errors are "
                 "application/problem+json (RFC 9457) with a machine-readable `reason`."},
    })
    for lost in DISCONNECTED:  # a connection lost outside a transaction block: 503 too
        app.register_error_handler(lost, lambda _error: domain_problem(
            DatabaseUnavailable(), problems.STATUSES, problems.HEADERS))
    api.finish_document(_security_schemes)
    # the tenant first: the rate limits that follow spend from its budget
    init_observability(app)  # first: the request id is in every log line after
    app.url_value_preprocessor(refuse_nul_in_path)  # before any route's own
    app.before_request(resolve_tenant)
    app.before_request(resolve_player)  # who the bearer is: before the body is read
    app.before_request(matches.resolve_seat_token)  # a seat token alone: its match's
    init_limits(app, settings)
    app.extensions[READINESS] = {"rate_limits": store_state}
    for resources in (ops, variants, matches, lobby, players, tournament_routes,
                      webhook_routes, staff_routes):
        api.register_blueprint(resources.blp)
    api.register_blueprint(players.leaderboards)
    api.register_blueprint(safety.players_blp)
    api.register_blueprint(safety.blp)
    api.register_blueprint(social.players_blp)
    api.register_blueprint(social.blp)
    api.register_blueprint(social.parties_blp)
    api.register_blueprint(matches.player_matches)
    api.register_blueprint(matches.chat_blp)
    api.register_blueprint(console.blp)
    api.register_blueprint(reviews.blp)
    api.register_blueprint(fairplay.blp)
    api.register_blueprint(variants.bots_blp)
    api.register_blueprint(staff_routes.keys_blp)
    api.register_blueprint(players.secret_blp)
    for coin_routes in (coins.currencies_blp, coins.wallets_blp, coins.transfers_blp):
        api.register_blueprint(coin_routes)
    api.register_blueprint(staff_routes.settings_blp)
    api.finish_document(webhook_routes.describe_messages)
    api.finish_document(describe_stream_events)
    api.finish_document(document_common_problems)
    app.register_blueprint(ops.scrape_blp)
    app.register_blueprint(docs.blp)
    app.register_blueprint(play.blp)
    app.register_blueprint(console.pages)

    return app
