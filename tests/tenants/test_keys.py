"""Hostile API keys (README "Operating it"): a flood of made-up keys is limited per client
address and never stalls or evicts the valid ones; a revoked key's open stream ends."""

from __future__ import annotations

import secrets
import threading
import time
from pathlib import Path

import pytest
from flask import Flask

from service.tenants import cache as key_cache
from service.tenants import service as tenants
from tests.conftest import api_key, make_app


def _key() -> dict[str, str]:
    """A well-formed key (its checksum holds) that no front end has."""
    return {"X-API-Key": tenants.new_key()}


def test_a_key_whose_checksum_fails_is_refused_without_a_look_up(
    backend: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Random strings, a key with one character changed, and keys of another shape are
    401 with no database look-up and no spending of the address's failed-key budget; a
    key made before checksums (bk_ and 43 URL-safe characters) is still looked up."""
    app = make_app(backend, tmp_path, BASRA_API_KEYS="required", BASRA_RATE_LIMITS="on",
                   BASRA_LIMIT_AUTH_FAILURES="2/minute")
    acme = api_key(app, "acme")["X-API-Key"]
    typo = acme[:10] + ("A" if acme[10] != "A" else "B") + acme[11:]
    looked_up: list[str] = []
    real = tenants._lookup
    monkeypatch.setattr(tenants, "_lookup", lambda d: looked_up.append(d) or real(d))
    client = app.test_client()
    for key in [typo, "bk_" + secrets.token_urlsafe(16), "nonsense", "bk_" + "x" * 46] * 3:
        r = client.get("/v1/variants", headers={"X-API-Key": key})
        assert r.status_code == 401 and "not an API key" in r.get_json()["detail"], key
    assert looked_up == []
    legacy = "bk_" + secrets.token_urlsafe(32)
    assert client.get("/v1/variants", headers={"X-API-Key": legacy}).status_code == 401
    assert len(looked_up) == 1  # an old-style key is looked up, and the budget still holds
    assert client.get("/v1/variants", headers={"X-API-Key": acme}).status_code == 200


def test_unknown_keys_from_one_address_are_429_but_a_valid_key_never_is(
    backend: str, tmp_path: Path
) -> None:
    """An address that presented BASRA_LIMIT_AUTH_FAILURES well-formed unknown keys gets
    429 with Retry-After for the next; a valid key from it is still served, by a process
    that never saw it too (the key cache emptied); another address is not limited."""
    app = make_app(backend, tmp_path, BASRA_API_KEYS="required", BASRA_RATE_LIMITS="on",
                   BASRA_LIMIT_AUTH_FAILURES="5/minute")
    acme = api_key(app, "acme")
    client = app.test_client()
    statuses = [client.get("/v1/variants", headers=_key()).status_code for _ in range(5)]
    assert statuses == [401] * 5
    flood = [client.get("/v1/variants", headers=_key()) for _ in range(20)]
    assert {r.status_code for r in flood} == {429}
    assert flood[0].get_json()["reason"] == "too_many_failed_keys"
    assert 0 < int(flood[0].headers["Retry-After"]) <= 61
    key_cache.reset()  # as a process that has not cached the key yet
    assert client.get("/v1/variants", headers=acme).status_code == 200
    other = app.test_client()
    other.environ_base["REMOTE_ADDR"] = "192.0.2.9"
    assert other.get("/v1/variants", headers=_key()).status_code == 401


def test_a_flood_of_made_up_keys_does_not_push_out_a_valid_one() -> None:
    """The key cache keeps unknown keys apart from valid ones: 20,000 made-up keys later,
    a valid key is still known without a look-up."""
    cache = key_cache.KeyCache(size=10_000)
    acme = tenants.Caller(7, "acme")
    cache.put("valid", acme)
    for n in range(20_000):
        cache.put(f"made-up-{n}", None)
    assert cache.get("valid", 60) == (True, acme)
    assert cache.get("made-up-19999", 60) == (True, None)
    assert cache.get("made-up-0", 60) == (False, None)  # the oldest unknown forgotten


def test_a_slow_look_up_of_one_key_does_not_hold_up_another(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No process-wide lock: while one key's look-up hangs on the database, another key
    is looked up at once."""
    app = make_app("sqlite", tmp_path, BASRA_API_KEYS="required", BASRA_KEY_CACHE_SECONDS=0)
    acme, slow = api_key(app, "acme"), api_key(app, "slowpoke")
    slow_digest = tenants.hash_key(slow["X-API-Key"])
    look_up = tenants._lookup
    release = threading.Event()

    def hanging(digest: str) -> tenants.Caller | None:
        if digest == slow_digest:
            release.wait(10)
        return look_up(digest)

    monkeypatch.setattr(tenants, "_lookup", hanging)
    stuck = threading.Thread(target=lambda: app.test_client().get("/v1/variants", headers=slow))
    stuck.start()
    time.sleep(0.2)
    started = time.monotonic()
    assert app.test_client().get("/v1/variants", headers=acme).status_code == 200
    took = time.monotonic() - started
    release.set()
    stuck.join(10)
    assert took < 2.0


def test_a_revoked_keys_open_stream_ends_within_the_key_cache_window(tmp_path: Path) -> None:
    """An event stream opened with a key ends once the key is revoked: within the key
    cache's window and half of it again, though its match goes on."""
    app: Flask = make_app("sqlite", tmp_path, BASRA_API_KEYS="required",
                          BASRA_KEY_CACHE_SECONDS=1.0, BASRA_HEARTBEAT_SECONDS=15)
    acme = api_key(app, "acme")
    client = app.test_client()
    created = client.post("/v1/matches", headers=acme,
                          json={"players": [{"name": "a"}, {"name": "b"}]}).get_json()
    stream = client.get(f"/v1/matches/{created['id']}/events", headers=acme, buffered=False)
    assert stream.status_code == 200
    chunks = iter(stream.response)
    assert b"event: state" in next(chunks)
    with app.app_context():
        tenants.revoke_keys("acme")
    key_cache.keys.put(tenants.hash_key(acme["X-API-Key"]),  # as another process still has it
                      tenants.Caller(2, "acme"))
    started = time.monotonic()
    for _ in chunks:
        assert time.monotonic() - started < 3
    assert time.monotonic() - started <= 1.5 * 1.0 + 0.6
    stream.close()
