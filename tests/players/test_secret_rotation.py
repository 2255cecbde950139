"""Rotating a front end's player-token secret (issue 42, item 2): new tokens are signed
with the new secret, old ones accepted only for the grace; revoking a front end's last
key retires its secret; no process trusts a secret it read more than a second ago."""

from __future__ import annotations

import threading
import time

import jwt
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select, update

from service.players import service as players
from service.storage.db import db, transaction
from service.tenants import service as tenants
from service.tenants.models import Tenant
from tests.client import auth
from tests.conftest import api_key


def _mint(client: FlaskClient, key: dict[str, str], player: str = "ali") -> str:
    r = client.post(f"/v1/players/{player}/tokens", headers=key, json={})
    assert r.status_code == 201, r.get_json()
    return str(r.get_json()["token"])


def _status(client: FlaskClient, token: str) -> int:
    return client.get("/v1/players/ali", headers=auth(token)).status_code


def _tenant(app: Flask, name: str) -> int:
    with app.app_context():
        return int(db.session.scalar(select(Tenant.pk).where(Tenant.name == name)))


def test_a_rotation_accepts_old_tokens_for_the_grace_only(app: Flask, client: FlaskClient) -> None:
    key = api_key(app, "acme")
    old = _mint(client, key)
    tenant = _tenant(app, "acme")
    with app.app_context():
        before = players.player_secret(tenant)
        new = players.rotate_secret(tenant, 1, "cli")
    assert new != before and len(new) == 64
    fresh = _mint(client, key)
    assert _status(client, old) == 200 and _status(client, fresh) == 200  # the grace
    forged = jwt.encode({"iss": "basra", "aud": "acme", "sub": "ali", "iat": time.time(),
                         "exp": time.time() + 600}, "0" * 64, algorithm="HS256")
    refused = client.get("/v1/players/ali", headers=auth(forged))
    assert refused.status_code == 401 and refused.get_json()["reason"] == "invalid_player_token"
    time.sleep(1.1)  # the grace is a clock: it is waited out
    refused = client.get("/v1/players/ali", headers=auth(old))
    assert refused.status_code == 401 and refused.get_json()["reason"] == "invalid_player_token"
    assert _status(client, fresh) == 200
    with app.app_context():
        players.rotate_secret(tenant, 0, "cli")  # no grace: refused at once
    assert _status(client, fresh) == 401
    audit = client.get("/v1/audit", headers=key).get_json()["entries"]
    assert [e["details"]["grace_seconds"] for e in audit
            if e["action"] == "secret.rotated"] == [0, 1]


def test_revoking_the_last_key_retires_the_secret(app: Flask, client: FlaskClient) -> None:
    first, second = api_key(app, "acme"), api_key(app, "acme")
    token = _mint(client, first)
    with app.app_context():
        assert tenants.revoke_keys("acme", first["X-API-Key"][:10]) == 1
    assert _status(client, token) == 200  # a key is left: the secret stays
    with app.app_context():  # as `basra keys revoke` does, from another process
        assert tenants.revoke_keys("acme", second["X-API-Key"][:10]) == 1
    started = time.monotonic()
    while _status(client, token) == 200:  # the last one: its tokens go with it
        assert time.monotonic() - started < 2.0, "a retired secret was trusted past 2 s"
        time.sleep(0.05)
    third = api_key(app, "acme")
    assert _status(client, _mint(client, third)) == 200  # a new key signs anew


def test_a_rotation_by_another_instance_holds_here_within_two_seconds(
    app: Flask, client: FlaskClient,
) -> None:
    key = api_key(app, "acme")
    token = _mint(client, key)
    assert _status(client, token) == 200
    with app.app_context(), transaction(write=True):  # only the database tells
        db.session.execute(update(Tenant).where(Tenant.name == "acme")
                           .values(player_secret="f" * 64))
    started = time.monotonic()
    while _status(client, token) == 200:
        assert time.monotonic() - started < 2.0, "the old secret was trusted past 2 s"
        time.sleep(0.05)
    assert _status(client, token) == 401


def test_first_uses_racing_agree_on_one_secret(app: Flask) -> None:
    """Processes minting a front end's first tokens at once all sign with the secret that
    was kept (each thread here stands for a process: nothing cached)."""
    api_key(app, "racing")  # a new front end, its secret not made yet
    tenant = _tenant(app, "racing")
    made: list[str] = []
    gate = threading.Barrier(6)

    def first_use() -> None:
        with app.app_context():
            gate.wait()
            made.append(tenants.make_player_secret(tenant))
            db.session.remove()

    threads = [threading.Thread(target=first_use) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    with app.app_context():
        kept = db.session.execute(select(Tenant.player_secret).where(Tenant.pk == tenant)
                                  ).scalar_one()
        db.session.remove()
    assert len(made) == 6 and set(made) == {kept}
