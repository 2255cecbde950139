"""One door for events (issue 55, item 3): a domain publishes (tenant, kind, data, to
players) through `service.events`; the webhooks' outbox and the players' streams, wired
by the composition root, write their rows in the publisher's transaction, so a rolled
back change tells nobody; a match change nobody hears works no event out."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select

from service import events
from service.matches import changes
from service.players.models import PlayerEvent
from service.storage.db import db, transaction
from service.tenants.models import Tenant
from service.webhooks.models import WebhookMessage
from tests.client import play, tokens, view
from tests.conftest import api_key, use_settings


class Refused(Exception):
    """What rolls the publisher's transaction back."""


def _hooked_tenant(app: Flask, client: FlaskClient) -> int:
    """A front end with a webhook on ``friend.requested`` (nothing delivers it); its pk."""
    use_settings(app, webhooks_allow_private=True)
    key = api_key(app, "acme")
    r = client.post("/v1/webhooks", headers=key, json={
        "url": "http://127.0.0.1:9/hook", "events": ["friend.requested"]})
    assert r.status_code == 201, r.get_json()
    with app.app_context():
        pk = db.session.scalar(select(Tenant.pk).where(Tenant.name == "acme"))
        db.session.remove()
    assert pk is not None
    return int(pk)


def _written() -> tuple[list[str], list[tuple[str, str]]]:
    """The outbox messages' kinds and the (player, kind) of the players' events, as the
    session sees them."""
    messages = db.session.scalars(select(WebhookMessage.type).order_by(WebhookMessage.pk))
    told = db.session.execute(select(PlayerEvent.player_id, PlayerEvent.type)
                              .order_by(PlayerEvent.pk))
    return list(messages), [(p, k) for p, k in told]


def test_a_published_event_reaches_both_subscribers_in_its_transaction_and_a_rollback_tells_nobody(
        app: Flask, client: FlaskClient) -> None:
    tenant = _hooked_tenant(app, client)
    with app.app_context():
        with pytest.raises(Refused), transaction(write=True):
            events.publish(tenant, "friend.requested", {"from": "cy", "to": "dee"},
                           ["cy", "dee"])
            # both subscribers wrote, in this transaction, before it ends
            assert _written() == (["friend.requested"],
                                  [("cy", "friend.requested"), ("dee", "friend.requested")])
            raise Refused
        assert _written() == ([], [])
        with transaction(write=True):
            events.publish(tenant, "friend.requested", {"from": "ana", "to": "bo"},
                           ["ana", "bo"])
        db.session.remove()
        with transaction():
            assert _written() == (["friend.requested"],
                                  [("ana", "friend.requested"), ("bo", "friend.requested")])
        db.session.remove()


def test_the_door_refuses_before_anything_is_written(app: Flask, client: FlaskClient) -> None:
    tenant = _hooked_tenant(app, client)
    with app.app_context():
        # committed: whatever the door wrote before refusing would stay
        with transaction(write=True), pytest.raises(events.UndeclaredEvent, match="nickname"):
            events.publish(tenant, "friend.requested", {"from": "ana", "to": "bo",
                                                            "nickname": "A"}, ["bo"])
        with transaction():
            assert db.session.scalar(select(func.count()).select_from(WebhookMessage)) == 0
            assert db.session.scalar(select(func.count()).select_from(PlayerEvent)) == 0
        db.session.remove()


def test_a_move_nobody_hears_works_no_event_out(
        client: FlaskClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """Seats no front end vouched for and no webhook: a move asks the door nothing (the
    move path costs what it did before the door)."""
    asked: list[Any] = []
    real = changes.told
    monkeypatch.setattr(changes, "told", lambda *a: asked.append(a) or real(*a))
    r = client.post("/v1/matches", json={"variant": "egyptian-v2",
                                         "players": [{"name": "p0"}, {"name": "p1"}]})
    assert r.status_code == 201, r.get_json()
    created = r.get_json()
    match_id, toks = created["id"], tokens(created)
    seat = view(client, match_id)["turn"]
    move = view(client, match_id, toks[seat])["legal_moves"][0]
    assert play(client, match_id, toks[seat], move["card"], move["capture"]).status_code == 201
    assert asked == []
