"""A finished match's review: asked for at the first read (a unit of `expensive`), made by
the worker's step, kept; a seat sees its own plays, the server every play."""

from __future__ import annotations

from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.reviews import service as reviews
from service.settings import settings_of
from tests.client import auth, play, tokens, view
from tests.conftest import api_key, make_app


def _finished_against_greedy(client: FlaskClient) -> tuple[str, str]:
    """A match of ann against the greedy bot played to its end (ann plays her first legal
    move each time): its id and ann's token."""
    r = client.post("/v1/matches", json={"players": [{"name": "ann"}, {"bot": "greedy"}]})
    assert r.status_code == 201, r.get_json()
    match, token = r.get_json()["id"], tokens(r.get_json())[0]
    state = view(client, match, token)
    while state["status"] == "active":
        move = state["legal_moves"][0]
        answer = play(client, match, token, move["card"], move["capture"])
        assert answer.status_code == 201, answer.get_json()
        state = answer.get_json()["state"]
    return match, token


def _make_all(app: Flask) -> int:
    made = 0
    with app.app_context():
        while reviews.make_next(settings_of(app)):
            made += 1
    return made


def test_a_review_is_asked_for_made_by_the_worker_and_kept(app: Flask,
                                                           client: FlaskClient) -> None:
    match, token = _finished_against_greedy(client)
    first = client.get(f"/v1/matches/{match}/review", headers=auth(token))
    assert first.status_code == 202 and first.headers["Retry-After"] == "1"
    assert first.get_json()["status"] == "pending" and first.get_json()["plays"] == []
    assert client.get(f"/v1/matches/{match}/review").status_code == 202  # asked once
    assert _make_all(app) == 1

    mine = client.get(f"/v1/matches/{match}/review", headers=auth(token))
    assert mine.status_code == 200, mine.get_json()
    body = mine.get_json()
    assert body["status"] == "ready" and body["seat"] == 0 and body["ready_at"]
    plays = body["plays"]
    assert plays and {p["seat"] for p in plays} == {0}
    log = [m for m in client.get(f"/v1/matches/{match}/moves").get_json()["moves"]
           if m["kind"] == "play"]
    for p in plays:  # each review is of the play the log holds at its index
        assert (log[p["index"]]["seat"], log[p["index"]]["card"]) == (0, p["card"])
        assert p["points_lost"] >= 0 and p["grade"] in (
            "forced", "best", "good", "inaccuracy", "mistake", "blunder")
        assert (p["grade"] == "best") == (p["points_lost"] < 0.05 and p["grade"] != "forced")
    [summary] = body["seats"]
    assert summary["plays"] == len(plays)
    assert abs(summary["points_lost"] - sum(p["points_lost"] for p in plays)) < 0.05

    every = client.get(f"/v1/matches/{match}/review").get_json()  # the server: all plays
    assert every["seat"] is None and {p["seat"] for p in every["plays"]} == {0, 1}
    assert len(every["plays"]) == len(log)
    assert {p["seat"]: p["played_by"] for p in every["plays"]} == {0: "player", 1: "bot"}
    assert [s["seat"] for s in every["seats"]] == [0]  # a bot's plays are nobody's lesson
    assert _make_all(app) == 0  # kept: never made twice


def test_a_review_needs_a_finished_match_and_a_seat_or_the_server(keyed: Flask) -> None:
    server = api_key(keyed, "fe")
    browser = {**api_key(keyed, "fe", "https://fe.example"), "Origin": "https://fe.example"}
    client = keyed.test_client()
    client.environ_base["HTTP_X_API_KEY"] = server["X-API-Key"]
    match, token = _finished_against_greedy(client)
    r = client.get(f"/v1/matches/{match}/review", headers=browser)
    assert r.status_code == 401 and r.get_json()["reason"] == "missing_token"
    active = client.post("/v1/matches", json={"players": [{"name": "a"}, {"name": "b"}]},
                         headers=server).get_json()
    r = client.get(f"/v1/matches/{active['id']}/review", headers=server)
    assert r.status_code == 409 and r.get_json()["reason"] == "match_not_finished"
    other = api_key(keyed, "other")  # another front end's key: not found
    assert client.get(f"/v1/matches/{match}/review", headers=other).status_code == 404
    assert client.get(f"/v1/matches/{match}/review",
                      headers={**browser, **auth(token)}).status_code == 202
    assert _make_all(keyed) == 1


def test_asking_spends_the_expensive_budget(tmp_path: Path) -> None:
    app = make_app("sqlite", tmp_path, BASRA_RATE_LIMITS="on", BASRA_LIMIT_EXPENSIVE="1/minute")
    client = app.test_client()
    first, _ = _finished_against_greedy(client)
    second, _ = _finished_against_greedy(client)
    assert client.get(f"/v1/matches/{first}/review").status_code == 202
    assert client.get(f"/v1/matches/{first}/review").status_code == 202  # already asked
    r = client.get(f"/v1/matches/{second}/review")
    assert r.status_code == 429 and "Retry-After" in r.headers
    assert client.get(f"/v1/matches/{first}/review").headers["Retry-After"] == "1"
    assert _make_all(app) == 1  # the refused one was never asked for




def test_a_review_that_cannot_be_made_is_given_up_after_three_takes(
        app: Flask, client: FlaskClient, monkeypatch: pytest.MonkeyPatch) -> None:
    match, token = _finished_against_greedy(client)
    assert client.get(f"/v1/matches/{match}/review", headers=auth(token)).status_code == 202

    def broken(*_: object, **__: object) -> dict[str, object]:
        raise RuntimeError("the helper fell over")

    monkeypatch.setattr(reviews.helpers, "review", broken)
    assert _make_all(app) == reviews.ATTEMPTS  # taken again at once, three times in all
    r = client.get(f"/v1/matches/{match}/review", headers=auth(token))
    assert r.status_code == 200 and r.get_json()["status"] == "failed"
    assert r.get_json()["plays"] == []
