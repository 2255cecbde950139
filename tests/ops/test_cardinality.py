"""/metrics keeps a bounded set of series whatever clients make up: ids, keys, tokens,
front ends, queries and headers never become label values."""

from __future__ import annotations

import secrets
from pathlib import Path

import jwt
from flask.testing import FlaskClient

from service.tenants import service as tenants
from tests.conftest import api_key, make_app


def _series(client: FlaskClient) -> set[str]:
    """The scrape's series (each sample's name and labels, without its value)."""
    text = client.get("/metrics").get_data(as_text=True)
    return {line.rsplit(" ", 1)[0] for line in text.splitlines()
            if line and not line.startswith("#")}


def _flood(client: FlaskClient, key: dict[str, str], made_up: list[str]) -> None:
    """One round of hostile requests, each naming things nobody has: match, player,
    tournament, webhook and challenge ids, API keys, player tokens of made-up front ends,
    query values, request ids, idempotency keys and origins."""
    for word in made_up:
        token = jwt.encode({"iss": "basra", "aud": word, "sub": word, "iat": 1,
                                    "exp": 2}, "x" * 32, algorithm="HS256")
        headers = {"X-Request-ID": word, "Idempotency-Key": word,
                   "Origin": f"https://{word}.example"}
        calls = [
            ("GET", f"/v1/matches/{word}", {}),
            ("GET", f"/v1/matches/{word}/moves?after={word}", key),
            ("POST", f"/v1/matches/{word}/resign", {"Authorization": f"Bearer {word}"}),
            ("GET", f"/v1/players/{word}", key),
            ("GET", f"/v1/players/{word}/ratings/{word}", key),
            ("GET", f"/v1/tournaments/{word}", key),
            ("DELETE", f"/v1/webhooks/{word}", key),
            ("POST", f"/v1/challenges/{word}/accept", key),
            ("GET", f"/v1/leaderboards/{word}", key),
            ("GET", f"/v1/matches?variant={word}&player={word}&cursor={word}", key),
            ("GET", "/v1/variants", {"X-API-Key": tenants.new_key()}),  # well-formed, unknown
            ("GET", "/v1/variants", {"X-API-Key": f"bk_{word}"}),
            ("GET", "/v1/players/me", {"Authorization": f"Bearer {token}"}),
            ("GET", f"/{word}/{word}", {}),
        ]
        for method, path, sent in calls:
            r = client.open(path, method=method, headers={**headers, **sent})
            assert r.status_code < 500, (path, r.get_data())


def test_made_up_ids_keys_tokens_and_front_ends_add_no_series(
    backend: str, tmp_path: Path
) -> None:
    """A second round of 20 made-up values of every kind adds no series to what the
    first round left (each route's template and status are labels; what was asked for
    never is), and none of the values shows in the scrape."""
    app = make_app(backend, tmp_path, BASRA_API_KEYS="required", BASRA_KEY_CACHE_SECONDS=0)
    client = app.test_client()
    key = api_key(app, "acme")
    _flood(client, key, [f"probe{n}" for n in range(3)])
    _series(client)  # the scrape's own route counted once
    settled = _series(client)
    made_up = [secrets.token_hex(6) for _ in range(20)]
    _flood(client, key, made_up)
    after = _series(client)
    assert after == settled, sorted(after - settled)[:10]
    text = client.get("/metrics").get_data(as_text=True)
    assert not [word for word in made_up if word in text]
