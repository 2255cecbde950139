"""Whole matches, views, moves and errors through the HTTP API (SQLite and PostgreSQL)."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.engine import deck_for_round, format_cards, parse_card, replay
from service.engine.codec import move_from_parts
from tests.client import auth, create, play, play_to_end, stored, tokens, view
from tests.helpers import conformance_cases, conformance_setup, deck_with

CASES = conformance_cases()


def test_create_match_returns_tokens_location_and_commitment(client: FlaskClient) -> None:
    """POST /v1/matches: 201, Location, one token per seat, the seed's commitment."""
    r = client.post("/v1/matches", json={
        "variant": "egyptian-v2", "players": [{"name": "alice", "player_id": "u1"}, {"name": "bob"}],
    })
    assert r.status_code == 201
    body = r.get_json()
    assert r.headers["Location"] == f"/v1/matches/{body['id']}"
    assert [s["seat"] for s in body["seats"]] == [0, 1]
    assert all(len(s["token"]) >= 40 for s in body["seats"])
    assert len(body["commitment"]) == 64
    state = body["state"]
    assert state["status"] == "active" and state["version"] == 0 and state["turn"] == 0
    assert "hand" not in state and state["seed"] is None
    assert state["seats"][0] == {"seat": 0, "team": 0, "name": "alice", "player_id": "u1", "bot": None,
                                 "open": False}


def test_seat_view_shows_only_its_own_hand(client: FlaskClient) -> None:
    """GET with a seat token: that seat's hand and, on its turn, its legal moves."""
    created = create(client)
    toks = tokens(created)
    v0, v1 = view(client, created["id"], toks[0]), view(client, created["id"], toks[1])
    assert len(v0["hand"]) == 4 and len(v1["hand"]) == 4
    assert set(v0["hand"]).isdisjoint(v1["hand"])
    assert v0["legal_moves"] and not v1["legal_moves"]
    assert {m["card"] for m in v0["legal_moves"]} == set(v0["hand"])
    assert v0["hand_counts"] == [4, 4] and v0["stock_count"] == 40 and len(v0["floor"]) == 4


@pytest.mark.parametrize("variant", ["egyptian-v1", "egyptian-v2", "egyptian-4p", "pagat"])
def test_whole_match_through_http(client: FlaskClient, app: Flask, variant: str) -> None:
    """A match plays to the end over HTTP; the finished log reveals the seed, which matches
    the commitment and re-derives every deck; the log replays to the stored snapshot."""
    players = 4 if variant == "egyptian-4p" else 2
    created = create(client, variant, players=players, rules={"target_score": 40})
    final = play_to_end(client, created, pick=1)
    assert final["status"] == "finished" and final["winner"] in (0, 1)
    assert max(final["scores"]) >= 40
    assert final["scores"] == [sum(r["points"][t] for r in final["rounds"]) for t in (0, 1)]
    log = client.get(f"/v1/matches/{created['id']}/moves").get_json()
    assert log["status"] == "finished" and len(log["moves"]) == final["version"]
    seed = bytes.fromhex(log["seed"])
    assert hashlib.sha256(seed).hexdigest() == created["commitment"]
    first_round = [m for m in log["moves"] if m["round"] == 1]
    dealt = set(format_cards(deck_for_round(seed, 1)[: 4 * players]))
    assert {m["card"] for m in first_round[: 4 * players]} <= dealt
    _, state, log = stored(app, created["id"])
    moves = [move_from_parts(r.seat, r.card, r.captured) for r in log]
    assert replay(state.rules, state.seed, state.decks, moves) == state


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_conformance_cases_through_the_api(client: FlaskClient, case: dict[str, Any]) -> None:
    """Shared rule cases played over HTTP with explicit decks and house rules."""
    rules, deck = conformance_setup(case)
    overrides = {"floor_size": rules.floor_size, "initial_floor": {"return_to_deck": []},
                 **(case.get("rules") or {})}
    created = create(client, case["variant"], rules=overrides, decks=[format_cards(deck)])
    assert created["state"]["explicit_decks"] is True
    toks = tokens(created)
    seat_view = view(client, created["id"], toks[0])
    play_card = str(parse_card(case["play"]))
    offered = sorted(sorted(m["capture"]) for m in seat_view["legal_moves"] if m["card"] == play_card)
    assert offered == sorted(sorted(str(parse_card(c)) for c in cap) for cap in case["captures"])
    r = play(client, created["id"], toks[0], play_card.lower())
    assert r.status_code == 201
    assert (r.get_json()["move"]["basra"] or "none") == case["basra"]


def _current_round_only(body: Any, current: int) -> Any:
    """The body minus the rule settings (which name 7D and J as words) and minus plays of
    earlier rounds (their cards are back in the new round's deck)."""
    if isinstance(body, dict):
        if "captured" in body and body.get("round") != current:
            return None
        return {k: _current_round_only(v, current) for k, v in body.items() if k != "rules"}
    if isinstance(body, list):
        return [_current_round_only(v, current) for v in body]
    return body


def test_hidden_information_never_leaks(client: FlaskClient, app: Flask) -> None:
    """No response before the end shows another seat's hand, the stock, or the seed."""
    created = create(client, "egyptian-v2", rules={"target_score": 30})
    match_id = created["id"]
    checked = 0

    def scan(seat: int, body: dict[str, Any]) -> None:
        nonlocal checked
        match, state, _ = stored(app, match_id)
        seed_hex = match.seed.hex()
        if state.finished:
            return
        text = str(_current_round_only(body, state.round))
        secret = {str(c) for s, h in enumerate(state.hands) if s != seat for c in h}
        secret |= {str(c) for c in state.stock}
        leaked = [c for c in secret if f"'{c}'" in text]
        assert not leaked, f"seat {seat} saw {leaked}"
        assert seed_hex not in text
        checked += 1

    play_to_end(client, created, on_response=scan)
    spectator = client.get(f"/v1/matches/{match_id}/moves").get_json()
    assert spectator["seed"] is not None
    assert checked > 50


def test_etag_and_if_none_match_give_304(client: FlaskClient) -> None:
    """A strong ETag per version and viewer; If-None-Match with it gives 304."""
    created = create(client)
    toks = tokens(created)
    url = f"/v1/matches/{created['id']}"
    r = client.get(url, headers=auth(toks[0]))
    etag = r.headers["ETag"]
    assert etag == '"0-s0"'
    assert client.get(url, headers={**auth(toks[0]), "If-None-Match": etag}).status_code == 304
    assert client.get(url, headers={"If-None-Match": etag}).status_code == 200  # spectator differs
    move = r.get_json()["legal_moves"][0]
    assert play(client, created["id"], toks[0], move["card"], move["capture"]).status_code == 201
    r2 = client.get(url, headers={**auth(toks[0]), "If-None-Match": etag})
    assert r2.status_code == 200 and r2.headers["ETag"] == '"1-s0"'


def test_if_match_with_a_stale_version_is_412_and_changes_nothing(client: FlaskClient) -> None:
    """If-Match names the version a move was decided on; a stale one gives 412."""
    created = create(client)
    toks = tokens(created)
    move = view(client, created["id"], toks[0])["legal_moves"][0]
    r = play(client, created["id"], toks[0], move["card"], move["capture"], If_Match='"7-s0"')
    assert r.status_code == 412 and r.get_json()["reason"] == "version_mismatch"
    assert view(client, created["id"])["version"] == 0
    r = play(client, created["id"], toks[0], move["card"], move["capture"], If_Match='"0-s0"')
    assert r.status_code == 201


def test_idempotent_retry_returns_the_first_response(client: FlaskClient) -> None:
    """A retry with the same Idempotency-Key and body returns the first response and applies
    nothing; the same key with another body is an error."""
    created = create(client)
    toks = tokens(created)
    move = view(client, created["id"], toks[0])["legal_moves"][0]
    first = play(client, created["id"], toks[0], move["card"], move["capture"], Idempotency_Key="k-1")
    again = play(client, created["id"], toks[0], move["card"], move["capture"], Idempotency_Key="k-1")
    assert first.status_code == again.status_code == 201
    assert first.get_json() == again.get_json()
    assert first.headers["ETag"] == again.headers["ETag"] == '"1-s0"'
    assert view(client, created["id"])["version"] == 1
    other = view(client, created["id"], toks[0])["hand"]
    r = play(client, created["id"], toks[0], other[0], Idempotency_Key="k-1")
    assert r.status_code == 422 and r.get_json()["reason"] == "idempotency_key_reused"
    assert view(client, created["id"])["version"] == 1


def test_a_used_idempotency_key_with_another_legal_move_is_refused(client: FlaskClient) -> None:
    """The seat's key answered its first move: the key with another body is an error even
    when that body is a legal move by then (the seat on turn again), and nothing more is
    applied."""
    created = create(client)
    toks = tokens(created)
    first = view(client, created["id"], toks[0])["legal_moves"][0]
    r = play(client, created["id"], toks[0], first["card"], first["capture"], Idempotency_Key="k-1")
    assert r.status_code == 201
    reply = view(client, created["id"], toks[1])["legal_moves"][0]
    assert play(client, created["id"], toks[1], reply["card"], reply["capture"]).status_code == 201
    again = view(client, created["id"], toks[0])["legal_moves"][0]
    r = play(client, created["id"], toks[0], again["card"], again["capture"], Idempotency_Key="k-1")
    assert r.status_code == 422 and r.get_json()["reason"] == "idempotency_key_reused"
    assert view(client, created["id"])["version"] == 2
    r = play(client, created["id"], toks[0], again["card"], again["capture"], Idempotency_Key="k-2")
    assert r.status_code == 201 and r.get_json()["state"]["version"] == 3


def test_move_errors_are_problems_with_reasons_and_change_nothing(client: FlaskClient) -> None:
    """401/403 for tokens, 404 for unknown matches, 409 with a reason for illegal moves,
    422 naming the field for bad input; the stored match never changes."""
    deck = deck_with("8S 2D 3D 4D", "5H 6H 9C 10C", "AC 7S KD 8H")
    created = create(client, "egyptian-v1", decks=[format_cards(deck)])
    match_id = created["id"]
    toks = tokens(created)

    def problem(r: Any, status: int, reason: str) -> dict[str, Any]:
        assert r.status_code == status, r.get_json()
        assert r.content_type == "application/problem+json"
        body = r.get_json()
        assert body["reason"] == reason and body["status"] == status
        assert body["type"] and body["title"] and body["detail"]
        return body  # type: ignore[no-any-return]

    problem(client.post(f"/v1/matches/{match_id}/moves", json={"card": "8S"}), 401, "missing_token")
    problem(play(client, match_id, "not-a-token", "8S"), 403, "invalid_token")
    problem(play(client, "no-such-match", toks[0], "8S"), 404, "match_not_found")
    problem(play(client, match_id, toks[1], "5H"), 409, "not_your_turn")
    problem(play(client, match_id, toks[0], "KS"), 409, "card_not_in_hand")
    body = problem(play(client, match_id, toks[0], "8S", ["8H"]), 409, "illegal_capture")
    assert "8S cannot take 8H" in body["detail"]
    body = problem(play(client, match_id, toks[0], "8Z"), 422, "validation_error")
    assert body["errors"][0]["field"] == "card"
    body = problem(play(client, match_id, toks[0], "8S", ["8H", "XX"]), 422, "validation_error")
    assert body["errors"][0]["field"] == "capture[1]"
    r = client.post(f"/v1/matches/{match_id}/moves", data="{", headers={
        **auth(toks[0]), "Content-Type": "application/json"})
    assert r.status_code in (400, 422) and r.content_type == "application/problem+json"
    assert view(client, match_id)["version"] == 0
    r = play(client, match_id, toks[0], "8s", ["ac", "7s", "8h"])
    assert r.status_code == 201 and sorted(r.get_json()["move"]["captured"]) == ["7S", "8H", "AC"]
    assert client.post(f"/v1/matches/{match_id}/resign", headers=auth(toks[1])).status_code == 200
    problem(play(client, match_id, toks[1], "2D"), 409, "match_finished")


def test_create_match_rejects_bad_input_naming_the_field(client: FlaskClient) -> None:
    """Bad create requests are 422 problems naming what is wrong; nothing is stored."""
    cases = [
        ({"variant": "nope", "players": [{"name": "a"}, {"name": "b"}]}, "unknown_variant", None),
        ({"players": [{"name": "a"}, {"name": "b"}], "rules": {"capture": {"mode": "x"}}},
         "invalid_rules", "rules.capture.mode"),
        ({"players": [{"name": "a"}]}, "validation_error", "players"),
        ({"players": [{"name": "a"}, {"player_id": "x"}]}, "validation_error", "players[1].name"),
        ({"players": [{"name": "a"}, {"name": "b"}, {"name": "c"}]}, "wrong_player_count", "players"),
        ({"players": [{"name": "a"}, {"name": "b"}], "decks": [["AC"] * 52]}, "invalid_deck", None),
        ({"players": [{"name": "a"}, {"name": "b"}], "decks": [["AC"]]}, "validation_error", "decks[0]"),
    ]
    for body, reason, field in cases:
        r = client.post("/v1/matches", json=body)
        assert r.status_code == 422, (body, r.get_json())
        problem = r.get_json()
        assert problem["reason"] == reason, problem
        if field:
            assert field in [e["field"] for e in problem["errors"]], problem
    assert client.get("/v1/matches").get_json()["matches"] == []


def test_resign_ends_the_match_for_the_other_team(client: FlaskClient) -> None:
    """POST /resign: the match finishes, the other team wins, the seed is revealed."""
    created = create(client)
    toks = tokens(created)
    r = client.post(f"/v1/matches/{created['id']}/resign", headers=auth(toks[0]))
    assert r.status_code == 200
    body = r.get_json()
    assert body["move"] is None and body["replies"] == []  # the same envelope as a move
    state = body["state"]
    assert state["status"] == "finished" and state["winner"] == 1 and state["seed"]
    assert state["end_reason"] == "resigned"
    log = client.get(f"/v1/matches/{created['id']}/moves").get_json()
    assert log["moves"][-1]["kind"] == "resign"
    entry = client.get("/v1/matches").get_json()["matches"][0]
    assert entry["end_reason"] == "resigned" and entry["rounds"] == 1


def test_variants_and_house_rule_check(client: FlaskClient) -> None:
    """GET /v1/variants lists the four variants with settings and hash; the check endpoint
    validates house rules without creating a match."""
    listing = client.get("/v1/variants").get_json()["variants"]
    assert [v["name"] for v in listing] == ["egyptian-4p", "egyptian-v1", "egyptian-v2", "pagat"]
    v1 = client.get("/v1/variants/egyptian-v1").get_json()
    assert v1["rules"]["scoring"]["most_cards_tie"] == "carry_over" and len(v1["rules_hash"]) == 64
    assert client.get("/v1/variants/nope").status_code == 404
    ok = client.post("/v1/variants/egyptian-v1/check", json={"rules": {"target_score": 61}})
    assert ok.status_code == 200 and ok.get_json()["rules"]["target_score"] == 61
    bad = client.post("/v1/variants/egyptian-v1/check", json={"rules": {"jack": {"sweep": True}}})
    assert bad.status_code == 422
    assert bad.get_json()["errors"] == [{"field": "rules.jack.sweep", "message": bad.get_json()["errors"][0]["message"]}]
    assert "unknown setting" in bad.get_json()["detail"]


def test_health_and_readiness(client: FlaskClient) -> None:
    """/healthz says the process is up; /readyz that the database answers."""
    assert client.get("/healthz").get_json() == {"status": "ok"}
    assert client.get("/readyz").get_json() == {"status": "ready"}


def test_cors_exposes_etag_location_and_link(client: FlaskClient) -> None:
    """Browser front ends on other origins can read ETag, Location and Link."""
    r = client.get("/v1/variants", headers={"Origin": "https://game.example"})
    assert r.headers["Access-Control-Allow-Origin"] in ("*", "https://game.example")
    exposed = {h.strip().lower() for h in r.headers["Access-Control-Expose-Headers"].split(",")}
    assert {"etag", "location", "link"} <= exposed
    pre = client.options("/v1/matches/x/moves", headers={
        "Origin": "https://game.example", "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "Authorization, If-Match, Idempotency-Key"})
    assert pre.status_code == 200
    assert "if-match" in pre.headers["Access-Control-Allow-Headers"].lower()


def test_oversized_requests_are_refused_with_a_problem(client: FlaskClient) -> None:
    """A body over the size limit is a 413 problem, not a crash."""
    r = client.post("/v1/matches", data=b"{" + b" " * 300_000 + b"}",
                    headers={"Content-Type": "application/json"})
    assert r.status_code == 413
    assert r.content_type == "application/problem+json"
    assert r.get_json()["reason"] == "payload_too_large"
