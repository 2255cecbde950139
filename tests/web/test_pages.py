"""The pages the service serves (issue 53, item 7): /play sends the same security headers
as /console (no other site may frame it, scripts and styles only from here)."""

from __future__ import annotations

import re

import pytest
from flask.testing import FlaskClient

from service.web.assets import PAGE_HEADERS


@pytest.mark.parametrize("path", ["/play", "/console"])
def test_every_page_sends_the_security_headers(client: FlaskClient, path: str) -> None:
    r = client.get(path)
    assert r.status_code == 200 and r.mimetype == "text/html"
    assert {name: r.headers.get(name) for name in PAGE_HEADERS} == PAGE_HEADERS
    assert r.headers["X-Frame-Options"] == "DENY"
    policy = r.headers["Content-Security-Policy"]
    assert "default-src 'self'" in policy and "frame-ancestors 'none'" in policy
    assert "unsafe-inline" not in policy and "script-src" not in policy


def test_play_and_console_send_the_same_headers(client: FlaskClient) -> None:
    play, console = client.get("/play"), client.get("/console")
    assert {n: play.headers.get(n) for n in PAGE_HEADERS} == {
        n: console.headers.get(n) for n in PAGE_HEADERS}


def test_play_loads_its_screens_as_modules_each_served_and_short(client: FlaskClient) -> None:
    """Issue 55, item 4: the client is one module a screen; every module the page loads
    (its module script, then each import in turn) is served as JavaScript, none over 500
    lines."""
    page = client.get("/play").get_data(as_text=True)
    found = re.findall(r'<script type="module" src="(/play/[\w.]+\.js)"></script>', page)
    assert found == ["/play/app.js"]
    seen: dict[str, int] = {}
    while found:
        path = found.pop()
        if path in seen:
            continue
        r = client.get(path)
        assert r.status_code == 200 and r.mimetype == "text/javascript", path
        text = r.get_data(as_text=True)
        seen[path] = text.count("\n")
        found += [f"/play/{name}" for name in re.findall(r'^import .* from "\./([\w.]+\.js)";$',
                                                          text, re.M)]
    assert {"/play/lobby.js", "/play/table.js", "/play/review.js", "/play/social.js",
            "/play/tournaments.js", "/play/players.js", "/play/state.js"} <= set(seen)
    assert max(seen.values()) <= 500, seen
