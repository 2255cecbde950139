"""Signing a player out everywhere: their tokens issued before it are refused on every
instance within about a second, their open streams end, and new tokens work."""

from __future__ import annotations

import time

from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select, update

from service.players import service as players
from service.players.models import Player
from service.storage.base import utcnow
from service.storage.db import db, transaction
from service.tenants.models import Tenant
from tests.conftest import api_key


def _mint(client: FlaskClient, key: dict[str, str], player: str) -> str:
    r = client.post(f"/v1/players/{player}/tokens", headers=key, json={"name": "Ali"})
    assert r.status_code == 201, r.get_json()
    return str(r.get_json()["token"])


def _record(client: FlaskClient, token: str, player: str = "ali") -> int:
    """The status of reading the player's record with the token alone."""
    return client.get(f"/v1/players/{player}",
                      headers={"Authorization": f"Bearer {token}"}).status_code


def test_signing_out_refuses_older_tokens_and_only_a_server_key_may(
    app: Flask, client: FlaskClient,
) -> None:
    server = api_key(app, "signout")
    browser = api_key(app, "signout", "https://signout.example")
    old = _mint(client, server, "ali")
    other = _mint(client, server, "badr")
    assert _record(client, old) == 200
    r = client.post("/v1/players/ali/tokens/revoke",
                    headers={**browser, "Origin": "https://signout.example"})
    assert r.status_code == 403 and r.get_json()["reason"] == "server_key_required"
    assert _record(client, old) == 200  # the refused sign-out changed nothing
    r = client.post("/v1/players/ali/tokens/revoke", headers=server)
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["player_id"] == "ali" and r.get_json()["signed_out_at"]
    refused = client.get("/v1/players/ali", headers={"Authorization": f"Bearer {old}"})
    assert refused.status_code == 401
    assert refused.get_json()["reason"] == "token_revoked"
    assert "invalid_token" in refused.headers["WWW-Authenticate"]
    assert _record(client, other, "badr") == 200  # another player's token holds
    assert _record(client, _mint(client, server, "ali")) == 200  # a new one works


def test_a_sign_out_written_by_another_instance_is_refused_here_within_two_seconds(
    app: Flask, client: FlaskClient,
) -> None:
    """This process has read the sign-outs already; another instance signs ali out (only
    the database tells): the next read, at most a second later, refuses the token."""
    server = api_key(app, "elsewhere")
    token = _mint(client, server, "ali")
    assert _record(client, token) == 200
    with app.app_context(), transaction(write=True):
        db.session.execute(update(Player).where(Player.player_id == "ali")
                           .values(signed_out_at=utcnow(), access_changed_at=utcnow()))
    started = time.monotonic()
    while _record(client, token) == 200:
        assert time.monotonic() - started < 2.0, "still served 2 s after the sign-out"
        time.sleep(0.05)
    assert _record(client, token) == 401


def test_a_players_stream_ends_at_a_sign_out_and_at_the_tokens_expiry(
    app: Flask, client: FlaskClient,
) -> None:
    server = api_key(app, "streams")
    token = _mint(client, server, "ali")
    headers = {"Authorization": f"Bearer {token}"}
    stream = client.get("/v1/players/ali/events", headers=headers, buffered=False)
    assert stream.status_code == 200
    chunks = iter(stream.response)
    assert b"connected" in next(chunks)
    with app.app_context(), transaction(write=True):  # as another instance would
        db.session.execute(update(Player).where(Player.player_id == "ali")
                           .values(signed_out_at=utcnow(), access_changed_at=utcnow()))
    started = time.monotonic()
    for _ in chunks:
        assert time.monotonic() - started < 4, "the stream outlived its sign-out"
    assert time.monotonic() - started <= 2.5
    stream.close()

    lives = 2  # shorter than the API mints (60 s at least), for the test's sake
    with app.app_context():
        tenant = db.session.scalar(select(Tenant.pk).where(Tenant.name == "streams"))
        short = players.mint(tenant, "streams", "ali", None, lives).token
    started = time.monotonic()
    stream = client.get("/v1/players/ali/events",
                        headers={"Authorization": f"Bearer {short}"}, buffered=False)
    assert stream.status_code == 200
    for _ in stream.response:
        assert time.monotonic() - started < lives + 4, "the stream outlived its token"
    assert time.monotonic() - started >= lives - 1.1  # it lived until its expiry
    stream.close()
