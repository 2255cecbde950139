"""A huge bad request gets a bounded answer: many megabytes, or ten thousand keys where
the schema or the house rules expect a few, answer a short 4xx problem at once."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from flask.testing import FlaskClient

BOUND = 64 * 1024
"""The most a problem document may weigh, however bad the request."""
PLAYERS = [{"name": "a"}, {"name": "b"}]
MANY = {f"k{n}": n for n in range(10_000)}


def _tournament(**rules: Any) -> dict[str, Any]:
    return {"name": "Friday", "system": "swiss", "rounds": 3, "rules": rules,
            "starts_at": (datetime.now(UTC) + timedelta(hours=1)).isoformat(),
            "clock": {"move_seconds": 60, "timeout": "forfeit"}}


def _bounded(client: FlaskClient, path: str, data: bytes) -> dict[str, Any]:
    started = time.thread_time()
    r = client.post(path, data=data, content_type="application/json")
    took = time.thread_time() - started
    assert 400 <= r.status_code < 500, (path, r.status_code)
    assert r.content_type == "application/problem+json"
    assert len(r.get_data()) < BOUND, (path, len(r.get_data()))
    assert took < 2, (path, took)
    return r.get_json()  # type: ignore[no-any-return]


@pytest.mark.parametrize(("path", "body"), [
    ("/v1/matches", {"players": PLAYERS, "rules": MANY}),
    ("/v1/matches", {"players": PLAYERS, "rules": {"capture": MANY}}),
    ("/v1/matches", {"players": PLAYERS, "rules": {"initial_floor": MANY}}),
    ("/v1/variants/egyptian-v2/check", {"rules": MANY}),
    ("/v1/tournaments", _tournament(**MANY)),
    ("/v1/matches", {"players": PLAYERS, **MANY}),
    ("/v1/matches", {"players": [{"name": "a", **MANY}, {"name": "b"}]}),
    ("/v1/matches", {"players": [{"x": n} for n in range(10_000)]}),
    ("/v1/tournaments", {**_tournament(), **MANY}),
    ("/v1/webhooks", MANY),
], ids=["rules", "nested rules", "floor rules", "rules check", "tournament rules",
        "fields", "a player's fields", "players", "tournament fields", "webhook fields"])
def test_ten_thousand_keys_get_a_bounded_problem(client: FlaskClient, path: str,
                                                  body: dict[str, Any]) -> None:
    """10,000 unknown keys (house rules, nested house rules, fields, a list's items): a
    422 under 64 KB listing a bounded share of the errors, and nothing stored."""
    problem = _bounded(client, path, json.dumps(body).encode())
    assert problem["reason"] in ("validation_error", "invalid_rules"), problem["reason"]
    assert len(problem.get("errors", [])) <= 100
    assert client.get("/v1/matches").get_json()["matches"] == []


@pytest.mark.parametrize("path", ["/v1/matches", "/v1/variants/egyptian-v2/check",
                                  "/v1/tournaments", "/v1/webhooks"])
def test_a_body_of_megabytes_is_refused_unread(client: FlaskClient, path: str) -> None:
    """A 5 MB body (one long string, or 200,000 keys) is a short 413 problem."""
    long = json.dumps({"players": PLAYERS, "rules": {"x": "a" * 5_000_000}}).encode()
    keys = json.dumps({f"k{n}": n for n in range(200_000)}).encode()
    for data in (long, keys):
        assert len(data) > 2_000_000
        assert _bounded(client, path, data)["reason"] == "payload_too_large"
