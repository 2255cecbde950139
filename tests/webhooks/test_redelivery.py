"""A front end's hand on its deliveries: one delivery with its tries, a resend, a
recovery of what failed since a time, pause and resume (Stripe's and Svix's)."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from flask.testing import FlaskClient

from tests.webhooks.test_webhooks import (
    Receiver,
    deliver_all,
    hooked,
    key_of,
    pending,
    subscribe,
)

TWO = {"players": [{"name": "a"}, {"name": "b"}]}


def _audited(client: FlaskClient, key: dict[str, str]) -> list[str]:
    entries = client.get("/v1/audit", headers=key).get_json()["entries"]
    return [e["action"] for e in entries]


def test_a_failed_delivery_is_read_and_sent_again(
    backend: str, tmp_path: Path, receiver: Receiver,
) -> None:
    """A message that ran out of tries shows each try; a retry sends it once more with
    the same webhook-id and it is delivered; another front end's key finds nothing;
    a made-up delivery id is a 404 naming it."""
    receiver.answer = lambda n: 500 if n < 2 else 204
    app = hooked(backend, tmp_path, BASRA_WEBHOOK_RETRY_SECONDS=0.05,
                 BASRA_WEBHOOK_ATTEMPTS=2, BASRA_WEBHOOK_DISABLE_AFTER=5)
    client = app.test_client()
    key, other = key_of(app), key_of(app, "other")
    hook = subscribe(client, key, receiver.url, ["match.started"])
    client.post("/v1/matches", headers=key, json=TWO)
    deliver_all(app, lambda: pending(app) == 0)
    sent = receiver.got[0].headers["webhook-id"]
    base = f"/v1/webhooks/{hook['id']}/deliveries"
    failed = client.get(f"{base}/{sent}", headers=key).get_json()
    assert failed["status"] == "failed" and failed["type"] == "match.started"
    assert [t["status_code"] for t in failed["attempts"]] == [500, 500]
    assert client.get(f"{base}/{sent}", headers=other).status_code == 404
    r = client.post(f"{base}/msg_nothere/retry", headers=key)
    assert r.status_code == 404 and r.get_json()["reason"] == "delivery_not_found"
    r = client.post(f"{base}/{sent}/retry", headers=key)
    assert r.status_code == 202 and r.get_json()["status"] == "pending"
    deliver_all(app, lambda: pending(app) == 0)
    assert [r.headers["webhook-id"] for r in receiver.got] == [sent] * 3
    done = client.get(f"{base}/{sent}", headers=key).get_json()
    assert done["status"] == "delivered"
    assert [t["status_code"] for t in done["attempts"]] == [500, 500, 204]
    assert "webhook.retried" in _audited(client, key)


def test_what_failed_since_a_time_is_sent_again(
    backend: str, tmp_path: Path, receiver: Receiver,
) -> None:
    """After the receiver's outage, recover since a time sends every failed message
    written since, and none written before."""
    receiver.answer = lambda n: 503
    app = hooked(backend, tmp_path, BASRA_WEBHOOK_ATTEMPTS=1, BASRA_WEBHOOK_DISABLE_AFTER=10)
    client = app.test_client()
    key = key_of(app)
    hook = subscribe(client, key, receiver.url, ["match.started"])
    for _ in range(3):
        client.post("/v1/matches", headers=key, json=TWO)
    deliver_all(app, lambda: pending(app) == 0)
    assert len(receiver.got) == 3
    url = f"/v1/webhooks/{hook['id']}/recover"
    later = (datetime.now(UTC) + timedelta(minutes=5)).isoformat()
    assert client.post(url, headers=key, json={"since": later}).get_json() == {
        "messages": 0, "more": False}
    r = client.post(url, headers=key, json={"since": "yesterday"})
    assert r.status_code == 422 and "since" in str(r.get_json())
    receiver.answer = lambda n: 204
    since = (datetime.now(UTC) - timedelta(minutes=5)).isoformat()
    r = client.post(url, headers=key, json={"since": since})
    assert r.status_code == 202 and r.get_json() == {"messages": 3, "more": False}
    deliver_all(app, lambda: pending(app) == 0)
    assert len(receiver.got) == 6
    assert len({r.headers["webhook-id"] for r in receiver.got}) == 3
    assert "webhook.recovered" in _audited(client, key)


def test_a_paused_webhook_keeps_its_messages_until_it_resumes(
    backend: str, tmp_path: Path, receiver: Receiver,
) -> None:
    """Paused, messages are written and wait (nothing is sent); resumed, they go out in
    order; a webhook disabled after failing resumes too, its count of failures reset."""
    app = hooked(backend, tmp_path)
    client = app.test_client()
    key = key_of(app)
    hook = subscribe(client, key, receiver.url, ["match.started"])
    r = client.post(f"/v1/webhooks/{hook['id']}/pause", headers=key)
    assert r.status_code == 200 and r.get_json()["paused_at"] is not None
    for _ in range(2):
        client.post("/v1/matches", headers=key, json=TWO)
    assert pending(app) == 2
    waited = time.monotonic() + 0.5
    deliver_all(app, lambda: time.monotonic() > waited)  # a dispatcher's passes, paused
    assert receiver.got == [] and pending(app) == 2
    r = client.post(f"/v1/webhooks/{hook['id']}/resume", headers=key)
    assert r.status_code == 200 and r.get_json()["paused_at"] is None
    deliver_all(app, lambda: pending(app) == 0)
    assert len(receiver.got) == 2
    actions = _audited(client, key)
    assert "webhook.paused" in actions and "webhook.resumed" in actions
    r = client.post("/v1/webhooks/nope/pause", headers=key)
    assert r.status_code == 404 and r.get_json()["reason"] == "webhook_not_found"
