"""Matches between strangers: open seats and join, leave, quick play, rematch, abort."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from flask import Flask
from flask.testing import FlaskClient

from tests.client import auth, play, view
from tests.conftest import make_app

OPEN_TABLE = {"players": [{"name": "alice", "player_id": "a-1"}, {"open": True}]}


def _open_table(client: FlaskClient) -> tuple[str, str]:
    r = client.post("/v1/matches", json=OPEN_TABLE)
    assert r.status_code == 201, r.get_json()
    body = r.get_json()
    assert body["seats"][1] == {"seat": 1, "name": None, "token": None, "open": True,
                                "bot": None, "player_id": None}
    return body["id"], body["seats"][0]["token"]


def test_two_strangers_join_by_id_and_play_to_the_end(client: FlaskClient) -> None:
    """A table with an open seat waits (no cards shown, no moves); the friend who joins
    gets a seat token; the match deals and is played to the end."""
    match, alice = _open_table(client)
    waiting = view(client, match, alice)
    assert waiting["status"] == "waiting" and waiting["floor"] == [] and waiting["hand"] == []
    assert waiting["legal_moves"] == [] and waiting["seats"][1]["open"] is True
    listed = client.get("/v1/matches?status=waiting").get_json()["matches"]
    assert [m["id"] for m in listed] == [match]
    r = play(client, match, alice, "AC")
    assert r.status_code == 409 and r.get_json()["reason"] == "match_not_started"
    r = client.post(f"/v1/matches/{match}/join", json={"name": "bob", "player_id": "b-2"})
    assert r.status_code == 201, r.get_json()
    joined = r.get_json()
    assert joined["seat"] == 1 and len(joined["token"]) >= 40 and joined["id"] == match
    assert joined["state"]["status"] == "active" and len(joined["state"]["hand"]) == 4
    tokens = {0: alice, 1: joined["token"]}
    r = client.post(f"/v1/matches/{match}/join", json={"name": "carol"})
    assert r.status_code == 409 and r.get_json()["reason"] == "no_open_seat"
    state = view(client, match)
    plays = 0
    while state["status"] == "active":
        seat = state["turn"]
        move = view(client, match, tokens[seat])["legal_moves"][0]
        r = play(client, match, tokens[seat], move["card"], move["capture"])
        assert r.status_code == 201, r.get_json()
        state, plays = r.get_json()["state"], plays + 1
    assert state["status"] == "finished" and state["end_reason"] == "target_score"
    log = client.get(f"/v1/matches/{match}/moves").get_json()
    assert [m["kind"] for m in log["moves"]][:1] == ["join"]
    assert log["version"] == plays + 1 == len(log["moves"])


def test_leave_reopens_a_seat_of_a_waiting_match_only(client: FlaskClient) -> None:
    match, alice = _open_table(client)
    bob = client.post(f"/v1/matches/{match}/join", json={"name": "bob"}).get_json()
    # a two-seat table is full and dealt: leaving is too late, resigning is not
    r = client.post(f"/v1/matches/{match}/leave", headers=auth(bob["token"]))
    assert r.status_code == 409 and r.get_json()["reason"] == "wrong_match_status"
    four = client.post("/v1/matches", json={"variant": "egyptian-4p", "players": [
        {"name": "a"}, {"open": True}, {"open": True}, {"open": True}]}).get_json()
    c = client.post(f"/v1/matches/{four['id']}/join", json={"name": "c"}).get_json()
    assert c["seat"] == 1
    r = client.post(f"/v1/matches/{four['id']}/leave", headers=auth(c["token"]))
    assert r.status_code == 200 and r.get_json()["seats"][1]["open"] is True
    assert client.get(f"/v1/matches/{four['id']}", headers=auth(c["token"])).status_code == 403
    again = client.post(f"/v1/matches/{four['id']}/join", json={"name": "d"}).get_json()
    assert again["seat"] == 1


def test_a_long_poll_on_a_waiting_table_wakes_when_someone_joins(app: Flask) -> None:
    client = app.test_client()
    match, alice = _open_table(client)
    etag = client.get(f"/v1/matches/{match}", headers=auth(alice)).headers["ETag"]
    result: dict[str, object] = {}

    def poll() -> None:
        started = time.monotonic()
        r = app.test_client().get(f"/v1/matches/{match}?wait=10",
                                  headers={**auth(alice), "If-None-Match": etag})
        result["status"], result["seconds"] = r.status_code, time.monotonic() - started
        result["body"] = r.get_json()

    poller = threading.Thread(target=poll)
    poller.start()
    time.sleep(0.4)
    assert client.post(f"/v1/matches/{match}/join", json={"name": "bob"}).status_code == 201
    poller.join(15)
    assert result["status"] == 200 and result["seconds"] < 5  # type: ignore[operator]
    assert result["body"]["status"] == "active"  # type: ignore[index]


def test_racing_quick_play_callers_pair_up(app: Flask) -> None:
    """Six callers at once with the same rules end up in three full matches, never in
    half-empty tables side by side; other rules get a table of their own."""
    barrier = threading.Barrier(6)
    seated: list[dict] = []

    def quick(i: int) -> None:
        c = app.test_client()
        barrier.wait()
        r = c.post("/v1/matches/quick", json={"name": f"p{i}", "rules": {"target_score": 61}})
        assert r.status_code == 201, r.get_json()
        seated.append(r.get_json())

    threads = [threading.Thread(target=quick, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert len(seated) == 6
    by_match: dict[str, list[int]] = {}
    for s in seated:
        by_match.setdefault(s["id"], []).append(s["seat"])
    assert sorted(sorted(v) for v in by_match.values()) == [[0, 1]] * 3
    client = app.test_client()
    for match in by_match:
        assert view(client, match)["status"] == "active"
    other = client.post("/v1/matches/quick", json={"name": "z"}).get_json()
    assert other["id"] not in by_match and other["state"]["status"] == "waiting"


def test_rematch_rotates_the_seats_and_both_views_point_at_it(client: FlaskClient) -> None:
    match, alice = _open_table(client)
    bob = client.post(f"/v1/matches/{match}/join", json={"name": "bob"}).get_json()["token"]
    r = client.post(f"/v1/matches/{match}/rematch", headers=auth(alice))
    assert r.status_code == 409  # not finished yet
    client.post(f"/v1/matches/{match}/resign", headers=auth(bob))
    finished = client.get(f"/v1/matches/{match}")
    first = client.post(f"/v1/matches/{match}/rematch", headers=auth(alice))
    assert first.status_code == 201, first.get_json()
    follow = first.get_json()
    assert follow["seat"] == 1 and follow["state"]["status"] == "waiting"
    assert view(client, match)["rematch"] == follow["id"]
    # a watcher of the finished match holding its last ETag learns of the rematch
    r = client.get(f"/v1/matches/{match}", headers={"If-None-Match": finished.headers["ETag"]})
    assert r.status_code == 200 and r.get_json()["rematch"] == follow["id"]
    assert r.get_json()["end_reason"] == "resigned"
    second = client.post(f"/v1/matches/{match}/rematch", headers=auth(bob)).get_json()
    assert second["id"] == follow["id"] and second["seat"] == 0
    state = view(client, follow["id"], second["token"])
    assert state["status"] == "active" and state["rules"]["target_score"] == 101
    assert [s["name"] for s in state["seats"]] == ["bob", "alice"]


def test_abort_before_playing_and_not_after(client: FlaskClient) -> None:
    match, alice = _open_table(client)
    bob = client.post(f"/v1/matches/{match}/join", json={"name": "bob"}).get_json()["token"]
    move = view(client, match, alice)["legal_moves"][0]
    assert play(client, match, alice, move["card"], move["capture"]).status_code == 201
    r = client.post(f"/v1/matches/{match}/abort", headers=auth(alice))
    assert r.status_code == 409  # alice has played
    r = client.post(f"/v1/matches/{match}/abort", headers=auth(bob))
    assert r.status_code == 200
    state = r.get_json()["state"]
    assert state["status"] == "aborted" and state["end_reason"] == "aborted"
    assert state["winner"] is None and r.get_json()["move"] is None
    r = play(client, match, bob, view(client, match, bob)["hand"][0])
    assert r.status_code == 409 and r.get_json()["reason"] == "match_finished"


def test_a_table_nobody_fills_is_aborted(backend: str, tmp_path: Path) -> None:
    """A waiting match that does not fill within BASRA_WAITING_MINUTES is left out of
    waiting listings at once, aborted by a join that comes too late (409), and by the
    worker's next pass; a read changes nothing."""
    from service import worker

    app = make_app(backend, tmp_path, BASRA_WAITING_MINUTES=0.5 / 60)  # half a second
    client = app.test_client()
    match, alice = _open_table(client)
    other, _ = _open_table(client)
    etag = client.get(f"/v1/matches/{other}").headers["ETag"]
    time.sleep(0.7)
    assert client.get("/v1/matches?status=waiting").get_json()["matches"] == []
    assert client.get(f"/v1/matches/{other}",  # a read
                      headers={"If-None-Match": etag}).status_code == 304
    r = client.post(f"/v1/matches/{match}/join", json={"name": "late"})
    assert r.status_code == 409 and r.get_json()["reason"] == "no_open_seat"
    state = view(client, match)
    assert state["status"] == "aborted" and state["end_reason"] == "aborted"
    with app.app_context():
        worker.run_once()
    assert view(client, other)["status"] == "aborted"
    assert client.get("/v1/matches?status=waiting").get_json()["matches"] == []


def test_the_worker_aborts_tables_nobody_fills(backend: str, tmp_path: Path) -> None:
    from service import worker

    app = make_app(backend, tmp_path, BASRA_WAITING_MINUTES=0.5 / 60)
    client = app.test_client()
    match, _ = _open_table(client)
    time.sleep(0.7)
    with app.app_context():
        worker.run_once()
    assert view(client, match)["status"] == "aborted"


def _token(client: FlaskClient, player: str) -> dict[str, str]:
    r = client.post(f"/v1/players/{player}/tokens", json={"name": player.title()})
    assert r.status_code == 201, r.get_json()
    return auth(r.get_json()["token"])


def test_quick_play_asked_twice_answers_the_same_table(client: FlaskClient) -> None:
    """A player asking quick play again while they wait gets the table they wait at
    (same variant), seated under the token's name, with a new seat token (the first
    stops working, the player token keeps working); another variant is another table;
    anonymous callers (no player) still pair up."""
    ana = _token(client, "ana")
    first = client.post("/v1/matches/quick", headers=ana, json={})
    again = client.post("/v1/matches/quick", headers=ana, json={})
    assert first.status_code == again.status_code == 201, again.get_json()
    assert again.get_json()["id"] == first.get_json()["id"]
    assert again.get_json()["seat"] == first.get_json()["seat"] == 0
    table = first.get_json()["id"]
    assert client.get(f"/v1/matches/{table}", headers=auth(first.get_json()["token"])) \
        .status_code == 403
    assert client.get(f"/v1/matches/{table}", headers=auth(again.get_json()["token"])) \
        .status_code == 200
    seated = client.get(f"/v1/matches/{table}", headers=ana).get_json()
    assert seated["seats"][0]["name"] == "Ana" and seated["status"] == "waiting"
    other = client.post("/v1/matches/quick", headers=ana, json={"variant": "egyptian-v1"})
    assert other.get_json()["id"] != table
    bo = client.post("/v1/matches/quick", headers=_token(client, "bo"), json={})
    assert bo.get_json()["id"] == table and bo.get_json()["state"]["status"] == "active"


def test_a_player_leaves_the_quick_play_queue_in_one_call(client: FlaskClient) -> None:
    """POST /v1/matches/quick/cancel: the player's waiting tables (of a variant, or all)
    are left; a second call leaves none; no player is 401 player_required."""
    ana = _token(client, "ana")
    tables = [client.post("/v1/matches/quick", headers=ana, json={"variant": v})
              .get_json()["id"] for v in ("egyptian-v2", "egyptian-v1")]
    one = client.post("/v1/matches/quick/cancel", headers=ana, json={"variant": "egyptian-v1"})
    assert one.status_code == 200 and one.get_json() == {"left": [tables[1]]}
    rest = client.post("/v1/matches/quick/cancel", headers=ana, json={})
    assert rest.get_json() == {"left": [tables[0]]}
    assert client.post("/v1/matches/quick/cancel", headers=ana, json={}).get_json() == \
        {"left": []}
    seats = client.get(f"/v1/matches/{tables[0]}").get_json()["seats"]
    assert seats[0]["open"] is True
    nobody = client.post("/v1/matches/quick/cancel", json={})
    assert nobody.status_code == 401 and nobody.get_json()["reason"] == "player_required"
