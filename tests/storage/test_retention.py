"""Rows that stop growing kept for a retention (issue 56, item 4): on PostgreSQL days
made ahead and dropped whole once past it, on SQLite the same rows deleted; a reported
match's moves, an active match's and a webhook message still to deliver kept; a second
pass does nothing; with no retention set, moves are kept for ever."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, insert, select, text

from service.config import settings_from_env
from service.matches import retention
from service.matches.models import Match, MoveRecord
from service.players import scheduled as player_chores
from service.players.models import PlayerEvent
from service.settings import settings_of
from service.storage import partitions
from service.storage.base import utcnow
from service.storage.db import backend, db, transaction
from service.webhooks import scheduled as webhook_chores
from service.webhooks.models import Webhook, WebhookAttempt, WebhookMessage
from tests.client import auth, play, tokens, view
from tests.tournaments.helpers import mint


def _match(client: FlaskClient, *players: str) -> dict[str, Any]:
    r = client.post("/v1/matches", json={"players": [
        {"name": p.upper(), "player_id": p} for p in players]})
    assert r.status_code == 201, r.get_json()
    return r.get_json()  # type: ignore[no-any-return]


def _resigned(client: FlaskClient, *players: str) -> dict[str, Any]:
    made = _match(client, *players)
    r = client.post(f"/v1/matches/{made['id']}/resign", headers=auth(tokens(made)[0]))
    assert r.status_code == 200, r.get_json()
    return made


def _moves(app: Flask) -> dict[str, int]:
    """Each match's moves kept, by match id."""
    with app.app_context():
        rows = db.session.execute(select(Match.id, func.count(MoveRecord.seq))
                                  .join(MoveRecord, MoveRecord.match_pk == Match.pk)
                                  .group_by(Match.id)).all()
        db.session.remove()
    return dict(rows)  # type: ignore[arg-type]


def _later(monkeypatch: pytest.MonkeyPatch, module: Any, days: int) -> datetime:
    """``module``'s clock ``days`` ahead; that moment."""
    later = utcnow() + timedelta(days=days)
    monkeypatch.setattr(module, "utcnow", lambda: later)
    return later


def _days(table: str) -> list[partitions.Partition]:
    with transaction():
        return partitions.partitions(table)


def test_a_finished_match_s_moves_go_after_the_retention_a_reported_or_active_one_s_stay(
        app: Flask, client: FlaskClient, monkeypatch: pytest.MonkeyPatch) -> None:
    ana = mint(client, "ana")
    gone = _resigned(client, "cy", "dee")
    reported = _resigned(client, "ana", "bo")
    assert client.post("/v1/reports", headers=auth(ana), json={
        "match_id": reported["id"], "player_id": "bo", "reason": "abuse"}).status_code == 201
    playing = _match(client, "bo", "cy")
    card = view(client, playing["id"], tokens(playing)[0])["legal_moves"][0]
    assert play(client, playing["id"], tokens(playing)[0], card["card"],
                card["capture"]).status_code == 201
    before = _moves(app)
    assert set(before) == {gone["id"], reported["id"], playing["id"]}

    later = _later(monkeypatch, retention, 40)
    with app.app_context():
        first = retention.expire_moves(30)
        again = retention.expire_moves(30)
        if backend() == "postgresql":
            days = _days("moves")
            assert first.partitions > 0 and not any(
                p.high is not None and p.high <= later - timedelta(days=30) for p in days)
        assert again == partitions.Expired()  # nothing left to do: a pass is idempotent
        db.session.remove()
    kept = _moves(app)
    assert kept == {reported["id"]: before[reported["id"]], playing["id"]: before[playing["id"]]}
    record = client.get(f"/v1/matches/{gone['id']}").get_json()  # its row stays
    assert record["status"] == "finished"
    log = client.get(f"/v1/matches/{gone['id']}/moves").get_json()  # its log is gone
    assert (log["version"], log["moves"], log["seed"] is not None) == (1, [], True)

    with app.app_context():  # today's day made again: the moves held aside move into it
        made = retention.make_days()
        assert bool(made) == (backend() == "postgresql")
        assert retention.make_days() == []
        db.session.remove()
    assert _moves(app) == kept


def test_with_no_retention_moves_are_kept_for_ever(
        app: Flask, client: FlaskClient, monkeypatch: pytest.MonkeyPatch) -> None:
    assert settings_from_env(app.instance_path)["BASRA_RETENTION_DAYS_MOVES"] == 0
    made = _resigned(client, "cy", "dee")
    _later(monkeypatch, retention, 4000)
    with app.app_context():
        assert retention.expire_moves(0) == partitions.Expired()
        db.session.remove()
    assert _moves(app) == {made["id"]: 1}


def test_the_retention_settings_default_and_override(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = settings_from_env("/tmp")
    assert [settings[f"BASRA_RETENTION_DAYS_{k}"] for k in ("MOVES", "PLAYER_EVENTS",
                                                            "WEBHOOKS")] == [0, 7, 7]
    monkeypatch.setenv("BASRA_RETENTION_DAYS", "30")
    monkeypatch.setenv("BASRA_RETENTION_DAYS_WEBHOOKS", "0")
    settings = settings_from_env("/tmp")
    assert [settings[f"BASRA_RETENTION_DAYS_{k}"] for k in ("MOVES", "PLAYER_EVENTS",
                                                            "WEBHOOKS")] == [30, 30, 0]
    monkeypatch.setenv("BASRA_RETENTION_DAYS_MOVES", "-1")
    with pytest.raises(ValueError, match="BASRA_RETENTION_DAYS_MOVES"):
        settings_from_env("/tmp")


def test_events_messages_and_tries_go_after_their_retention_a_pending_message_stays(
        app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    now = utcnow()
    with app.app_context(), transaction(write=True):
        hook = db.session.execute(insert(Webhook).returning(Webhook.pk), {
            "id": "h1", "tenant_pk": 1, "url": "http://127.0.0.1:9/hook", "events": [],
            "secret": "whsec_x", "created_at": now, "failed_in_a_row": 0}).scalar_one()
        messages = {}
        for status in ("delivered", "pending"):
            messages[status] = db.session.execute(
                insert(WebhookMessage).returning(WebhookMessage.pk), {
                    "webhook_pk": hook, "msg_id": f"msg_{status}", "type": "match.finished",
                    "body": "{}", "status": status, "attempts": 1, "next_attempt_at": now,
                    "created_at": now}).scalar_one()
        db.session.execute(insert(WebhookAttempt), [
            {"message_pk": pk, "webhook_pk": hook, "at": now, "duration_ms": 5}
            for pk in messages.values()])
        db.session.execute(insert(PlayerEvent), [
            {"tenant_pk": 1, "player_id": "ana", "type": "match.turn", "body": "{}",
             "created_at": now}])

    def left() -> tuple[list[str], int, int]:
        with app.app_context():
            kept = (list(db.session.scalars(select(WebhookMessage.status))),
                    db.session.scalar(select(func.count()).select_from(WebhookAttempt)),
                    db.session.scalar(select(func.count()).select_from(PlayerEvent)))
            db.session.remove()
        return kept  # type: ignore[return-value]

    with app.app_context():  # within the week: nothing goes
        webhook_chores.purge_old(settings_of(app))
        player_chores.purge_events(settings_of(app))
    assert sorted(left()[0]) == ["delivered", "pending"] and left()[1:] == (2, 1)

    _later(monkeypatch, webhook_chores, 9)
    _later(monkeypatch, player_chores, 9)
    with app.app_context():
        for _ in range(2):  # the second pass finds nothing more to do
            webhook_chores.purge_old(settings_of(app))
            player_chores.purge_events(settings_of(app))
        if backend() == "postgresql":
            held = db.session.execute(text(
                "SELECT status FROM webhook_messages_default")).scalars().all()
            assert held == ["pending"]
        db.session.remove()
    assert left() == (["pending"], 0, 0)


def test_days_are_made_ahead_once_and_rows_nobody_made_a_day_for_move_into_it(
        pg_url: str, tmp_path: Any) -> None:
    from tests.conftest import make_app

    app = make_app("postgres", tmp_path)
    far = utcnow() + timedelta(days=900)
    made: list[str] = []
    try:
        with app.app_context():
            with transaction(write=True):  # written while nobody made its day: the default
                db.session.execute(insert(PlayerEvent), [{
                    "tenant_pk": 1, "player_id": "ana", "type": "match.turn", "body": "{}",
                    "created_at": far}])
            made = partitions.make_ahead("player_events", "created_at", now=far, days=2)
            assert made == [f"player_events_p{far + timedelta(days=d):%Y%m%d}"
                            for d in range(3)]
            assert partitions.make_ahead("player_events", "created_at", now=far, days=2) == []
            with transaction():
                where = db.session.execute(text(
                    "SELECT tableoid::regclass::text FROM player_events")).scalars().all()
            assert where == [made[0]]
    finally:
        with app.app_context(), transaction(write=True):
            for name in made:
                db.session.execute(text(f"DROP TABLE IF EXISTS {name}"))
