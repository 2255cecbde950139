"""Lone surrogates (``\\ud800``, which UTF-8 cannot encode) and bytes that are no UTF-8,
anywhere a client can put them on any route: a 4xx problem, never a 500."""

from __future__ import annotations

import re

from flask import Flask

from tests.conftest import api_key

SEGMENT = "a%ED%A0%80b"
"""A path segment or query value whose bytes are a UTF-8-encoded lone surrogate."""
QUERY = "&".join(f"{name}=%ED%B0%80" for name in (
    "player", "variant", "status", "since", "until", "cursor", "q", "level", "after",
    "limit", "pool", "wait"))
BODIES = (
    # a lone surrogate as the value of every field a route may read, and as a key
    '{"name": "\\ud800", "player_id": "\\udfff", "to": "\\ud83d", "text": "\\udc00",'
    ' "url": "https://x\\ud800.example/", "events": ["\\ud800"], "reason": "\\ud800",'
    ' "players": [{"name": "\\ud800"}, {"player_id": "\\udbff"}], "variant": "\\ud800",'
    ' "rules": {"\\ud800": 1}, "system": "\\ud800", "card": "\\ud800", "bot": "\\ud800",'
    ' "starts_at": "\\ud800", "words": ["\\ud800"], "role": "\\ud800", "key": "\\ud800"}',
    '{"\\udfff": "\\ud800"}',
    '["\\ud800"]',
)


def test_lone_surrogates_on_every_route_are_never_a_500(app: Flask) -> None:
    """Every route and method, with a server key: a surrogate in each path parameter, in
    the usual query parameters, and in a JSON body's values and keys."""
    key = api_key(app, "acme")
    client = app.test_client()
    failed = []
    rules = [rule for rule in app.url_map.iter_rules() if rule.rule.startswith("/v1/")]
    assert len(rules) > 40
    for rule in rules:
        path = re.sub(r"<[^>]+>", SEGMENT, rule.rule)
        for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"}):
            for body in (BODIES if method != "GET" else (None,)):
                r = client.open(f"{path}?{QUERY}", method=method, data=body, headers=key,
                                content_type="application/json")
                if r.status_code >= 500:
                    failed.append((method, rule.rule, body and body[:30], r.status_code))
                elif r.status_code >= 400:
                    assert r.content_type == "application/problem+json", (method, rule.rule)
    assert failed == []
