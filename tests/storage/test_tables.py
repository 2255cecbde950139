"""Each domain owns its tables (issue 55): every table class is in its domain's
``models.py``, none under ``service/storage/``, and the composition root lists them all
for the one metadata."""

from __future__ import annotations

from service import app
from service.storage.db import db

OWNERS = {
    "tenants": {"tenants", "api_keys", "staff_keys", "staff_sessions", "audit_log",
                "front_end_settings"},
    "players": {"players", "ratings", "rating_changes", "player_blocks", "presence_leases",
                "presences", "player_events"},
    "matches": {"matches", "seats", "moves", "idempotency_keys", "create_keys", "chat_lines",
                "chat_settings"},
    "social": {"friendships", "challenges", "parties", "party_members"},
    "tournaments": {"tournaments", "tournament_entrants", "tournament_pairings"},
    "webhooks": {"webhooks", "webhook_messages", "webhook_attempts"},
    "safety": {"reports"},
    "reviews": {"reviews"},
    "coins": {"currencies", "coin_accounts", "coin_transfers", "coin_holds"},
    "fairplay": {"fair_play_seats", "fair_play_flags", "fair_play_progress"},
}


def test_every_table_is_in_its_owning_domains_models() -> None:
    found: dict[str, set[str]] = {}
    for mapper in db.Model.registry.mappers:
        found.setdefault(mapper.class_.__module__, set()).add(mapper.local_table.name)
    assert found == {f"service.{domain}.models": tables for domain, tables in OWNERS.items()}
    assert {t.name for t in db.metadata.sorted_tables} == set().union(*OWNERS.values())
    assert {m.__name__ for m in app.TABLES} == set(found)
