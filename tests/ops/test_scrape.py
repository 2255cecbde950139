"""/metrics behind a token, and bounded whatever clients send (README "Operating it")."""

from __future__ import annotations

import secrets
from pathlib import Path

from tests.conftest import make_app


def test_the_scrape_asks_for_its_token_when_one_is_set(tmp_path: Path) -> None:
    """With BASRA_METRICS_TOKEN, /metrics is a 401 problem without the token or with a
    wrong one, and the exposition with it; without the setting it stays open."""
    token = secrets.token_urlsafe(16)
    client = make_app("sqlite", tmp_path, BASRA_METRICS_TOKEN=token).test_client()
    for headers in ({}, {"Authorization": "Bearer nope"}, {"Authorization": token}):
        r = client.get("/metrics", headers=headers)
        assert r.status_code == 401 and r.content_type == "application/problem+json"
        assert "basra_http_requests" not in r.get_data(as_text=True)
    r = client.get("/metrics", headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 200 and "basra_http_requests" in r.get_data(as_text=True)
    (tmp_path / "open").mkdir()
    assert make_app("sqlite", tmp_path / "open").test_client().get("/metrics").status_code == 200


def test_made_up_paths_add_no_series(tmp_path: Path) -> None:
    """Every path no route matches is counted under one `unmatched` route: 200 random
    paths do not grow the scrape by a line."""
    client = make_app("sqlite", tmp_path).test_client()
    client.get("/nowhere")
    before = client.get("/metrics").get_data(as_text=True).count("\n")
    for _ in range(200):
        assert client.get(f"/{secrets.token_hex(8)}").status_code == 404
    text = client.get("/metrics").get_data(as_text=True)
    assert text.count("\n") - before <= 4  # the /metrics route's own series, once
    assert 'route="unmatched"' in text
