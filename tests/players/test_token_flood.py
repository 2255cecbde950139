"""A flood of well-formed made-up player tokens: each a cheap 401 that spends nobody's
budget, and the honest front end and its players go on as before."""

from __future__ import annotations

import secrets
import time
from pathlib import Path

import jwt
import pytest
from sqlalchemy import event
from sqlalchemy.engine import Engine

from service.players import service as players
from service.tenants import service as tenants
from tests.conftest import api_key, make_app


def _token(aud: str, sub: str, secret: str) -> str:
    now = int(time.time())
    return jwt.encode({"iss": "basra", "aud": aud, "sub": sub, "iat": now, "exp": now + 600},
                      secret, algorithm="HS256")


def test_made_up_player_tokens_are_cheap_401s_that_lock_nobody_out(
    backend: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """200 tokens from one address, each well formed: half forged for the honest front
    end's own player (a made-up secret), half naming 20 made-up front ends. Each is a
    401, and the only statements are one look-up of each made-up front end (then known
    unknown) and none for the honest one's secret; then the honest player's token, from the same address, is served
    with its whole read budget, and the front end's server key too."""
    app = make_app(backend, tmp_path, BASRA_API_KEYS="required", BASRA_RATE_LIMITS="on",
                   BASRA_LIMIT_READS="10/minute", BASRA_LIMIT_AUTH_FAILURES="3/minute")
    server = api_key(app, "acme")
    client = app.test_client()
    minted = client.post("/v1/players/ana/tokens", headers=server, json={"name": "Ana"})
    assert minted.status_code == 201, minted.get_json()
    honest = minted.get_json()["token"]
    assert client.get("/v1/players/ana", headers={"Authorization": f"Bearer {honest}"}
                      ).status_code == 200  # the secret is known to this process from here

    # the secret is read again after SECRETS_SECONDS: a slow machine (or a pooler's hop
    # per statement) must not make that re-read look like one the flood caused
    monkeypatch.setattr(players, "SECRETS_SECONDS", 600.0)
    names: list[str] = []
    real_name = tenants._name_and_keep
    monkeypatch.setattr(tenants, "_name_and_keep", lambda n: names.append(n) or real_name(n))
    statements: list[str] = []

    def count(_conn, _cursor, statement: str, *_args: object) -> None:  # noqa: ANN001
        statements.append(statement)

    made_up = [f"fe-{secrets.token_hex(4)}" for _ in range(20)]
    flood = [_token("acme", "ana", secrets.token_hex(32)) for _ in range(100)]
    flood += [_token(made_up[n % 20], "ana", secrets.token_hex(32)) for n in range(100)]
    event.listen(Engine, "before_cursor_execute", count)
    try:
        started = time.thread_time()
        for token in flood:
            r = client.get("/v1/players/ana", headers={"Authorization": f"Bearer {token}"})
            assert r.status_code == 401, r.get_json()
            assert r.get_json()["reason"] == "invalid_player_token"
        took = time.thread_time() - started
    finally:
        event.remove(Engine, "before_cursor_execute", count)
    assert sorted(names) == sorted(made_up)  # each made-up front end looked up once
    reads = [s for s in statements if s.strip().upper() not in ("BEGIN", "COMMIT")]
    assert len(reads) == len(made_up), reads  # and nothing else read
    assert took / len(flood) < 0.05, took

    served = client.get("/v1/players/ana", headers={"Authorization": f"Bearer {honest}"})
    assert served.status_code == 200
    assert served.headers["X-RateLimit-Remaining"] == "8"  # its own budget, spent by itself
    assert client.get("/v1/players/ana", headers=server).status_code == 200
