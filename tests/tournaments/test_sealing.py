"""Sealing is one rule where data leaves: while a duplicate round goes on, a finished
table's result reaches no player of another table (their token), by any listing,
record, total or standing; its own players and the front end's server see it; once the
round ends, records, ratings and standings count it."""

from __future__ import annotations

import json
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from tests.client import auth
from tests.conftest import api_key
from tests.tournaments.helpers import entered, read, resign, work

PLAYERS = ["p0", "p1", "p2", "p3"]


def _play_table(client: FlaskClient, table: dict[str, Any], tokens: dict[str, str]) -> None:
    """A table played to its end, each seat playing its first legal move."""
    match, seats = table["match_id"], table["players"]
    while True:
        state = client.get(f"/v1/matches/{match}", headers=auth(tokens[seats[0]])).get_json()
        if state["status"] != "active":
            return
        token = tokens[seats[state["turn"]]]
        move = client.get(f"/v1/matches/{match}", headers=auth(token)).get_json()["legal_moves"][0]
        r = client.post(f"/v1/matches/{match}/moves", headers=auth(token),
                        json={"card": move["card"], "capture": move["capture"]})
        assert r.status_code == 201, r.get_json()


def _listed(client: FlaskClient, url: str, match: str, token: str | None) -> dict[str, Any]:
    r = client.get(url, headers=auth(token))
    assert r.status_code == 200, r.get_json()
    [found] = [m for m in r.get_json()["matches"] if m["id"] == match]
    return found  # type: ignore[no-any-return]


def _hidden(summary: dict[str, Any]) -> bool:
    """A listing's line as the table's spectators see it: as dealt."""
    return (summary["scores"] == [0, 0] and summary["winner"] is None
            and summary["draw"] is False and summary["end_reason"] is None
            and summary["version"] == 0 and summary["rating_changes"] is None)


def _one_table_done(app: Flask, client: FlaskClient) -> dict[str, Any]:
    """A rated duplicate round of two tables, one played to its end, the other not
    started: the tournament's id, the finished match (as its seat sees it), one of its
    players and a player of the other table, with everyone's tokens."""
    tid, tokens = entered(client, PLAYERS, system="duplicate", rounds=1, rated=True)
    work(app)
    done, waiting = read(client, tid)["rounds"][0]["pairings"]
    _play_table(client, done, tokens)
    player = done["players"][0]
    as_it_is = client.get(f"/v1/matches/{done['match_id']}",
                          headers=auth(tokens[player])).get_json()
    # a deal can end 0-0 (even cards, no basra): the version and the end tell it from dealt
    assert as_it_is["status"] == "finished" and as_it_is["version"] > 0
    assert as_it_is["end_reason"] == "deals"
    return {"tournament": tid, "match": done["match_id"], "as_it_is": as_it_is,
            "player": player, "other": tokens[waiting["players"][0]], "tokens": tokens,
            "waiting": waiting}


def test_the_history_listing_shows_a_sealed_table_as_dealt(app: Flask,
                                                            client: FlaskClient) -> None:
    s = _one_table_done(app, client)
    url = "/v1/matches?status=finished"
    assert _hidden(_listed(client, url, s["match"], s["other"]))
    # its own players, and the front end's server (this keyless client), see it as it is
    for token in (s["tokens"][s["player"]], None):
        listed = _listed(client, url, s["match"], token)
        assert listed["scores"] == s["as_it_is"]["scores"]
        assert listed["version"] == s["as_it_is"]["version"]
        assert listed["end_reason"] == "deals"


def test_a_players_matches_show_a_sealed_table_as_dealt(app: Flask,
                                                        client: FlaskClient) -> None:
    s = _one_table_done(app, client)
    assert _hidden(_listed(client, f"/v1/players/{s['player']}/matches", s["match"],
                           s["other"]))


def test_a_players_record_leaves_a_sealed_table_out(app: Flask, client: FlaskClient) -> None:
    s = _one_table_done(app, client)
    record = client.get(f"/v1/players/{s['player']}", headers=auth(s["other"])).get_json()
    assert record["totals"]["matches"] == 0 and record["totals"]["points"] == 0
    assert record["totals"]["basras"] == 0 and record["ratings"] == []


def test_a_tournament_shows_no_result_of_a_sealed_table(app: Flask,
                                                        client: FlaskClient) -> None:
    s = _one_table_done(app, client)
    tour = read(client, s["tournament"], auth(s["other"]))
    [seen] = [t for t in tour["rounds"][0]["pairings"] if t["match_id"] == s["match"]]
    assert seen["status"] == "finished" and seen["winner"] is None and seen["draw"] is False
    assert all(row["games"] == 0 and row["points"] == 0 for row in tour["standings"])


def test_a_sealed_table_counts_once_its_round_ends(app: Flask, client: FlaskClient) -> None:
    s = _one_table_done(app, client)
    _play_table(client, s["waiting"], s["tokens"])
    work(app)
    tour = read(client, s["tournament"], auth(s["other"]))
    assert tour["status"] == "finished"
    assert all(row["games"] == 1 for row in tour["standings"])
    listed = _listed(client, "/v1/matches?status=finished", s["match"], s["other"])
    assert listed["scores"] == s["as_it_is"]["scores"] and listed["end_reason"] == "deals"
    assert len(listed["rating_changes"]) == 2
    record = client.get(f"/v1/players/{s['player']}", headers=auth(s["other"])).get_json()
    assert record["totals"]["matches"] == 1
    assert record["totals"]["points"] == s["as_it_is"]["scores"][0]
    assert [r["games"] for r in record["ratings"]] == [1]
    view = client.get(f"/v1/matches/{s['match']}").get_json()  # a spectator's
    assert view["rating_changes"] == listed["rating_changes"]


def test_a_round_unseals_around_a_player_erased_from_a_finished_table(
    app: Flask, client: FlaskClient,
) -> None:
    """Issue 53 (second read): an erased player's sealed table is rated without them as
    its round ends (no crash, no rating or record for their pseudonym); their opponent is
    rated for the result."""
    s = _one_table_done(app, client)
    assert client.delete(f"/v1/players/{s['player']}").status_code == 200
    _play_table(client, s["waiting"], s["tokens"])
    work(app)
    tour = read(client, s["tournament"], auth(s["other"]))
    assert tour["status"] == "finished"
    view = client.get(f"/v1/matches/{s['match']}").get_json()
    erased = view["seats"][0]["player_id"]
    assert erased.startswith("erased-")
    opponent = view["seats"][1]["player_id"]
    assert [c["player_id"] for c in view["rating_changes"]] == [opponent]
    assert [r["games"] for r in client.get(f"/v1/players/{opponent}").get_json()["ratings"]] \
        == [1]
    assert client.get(f"/v1/players/{erased}").status_code == 404


def test_a_round_unseals_around_a_player_erased_from_a_table_in_play(
    app: Flask, client: FlaskClient,
) -> None:
    """The erased player's table is forfeited under the seal; the round ends once the
    other table is played, and a cancel unseals too."""
    tid, tokens = entered(client, PLAYERS, system="duplicate", rounds=1, rated=True)
    work(app)
    first, second = read(client, tid)["rounds"][0]["pairings"]
    assert client.delete(f"/v1/players/{first['players'][0]}").status_code == 200
    _play_table(client, second, tokens)
    work(app)
    tour = read(client, tid)
    assert tour["status"] == "finished"
    forfeited = client.get(f"/v1/matches/{first['match_id']}").get_json()
    assert forfeited["status"] == "finished"
    assert [c["player_id"] for c in forfeited["rating_changes"]] == [first["players"][1]]
    # a cancel of a round whose erased player's table is sealed answers too
    tid, tokens = entered(client, ["q0", "q1", "q2", "q3"], system="duplicate", rounds=1,
                          rated=True)
    work(app)
    first, _ = read(client, tid)["rounds"][0]["pairings"]
    _play_table(client, first, tokens)
    assert client.delete(f"/v1/players/{first['players'][1]}").status_code == 200
    r = client.post(f"/v1/tournaments/{tid}/cancel")
    assert r.status_code == 200, r.get_json()


def _keyed_round(keyed: Flask) -> dict[str, Any]:
    """A duplicate round of two tables on an app that requires keys (the client sends
    the server key): the first table resigned after four plays, the other not started;
    a browser key's headers, the server key's, and the first table as its seat sees it."""
    server = api_key(keyed, "fe")
    browser = {**api_key(keyed, "fe", "https://fe.example"), "Origin": "https://fe.example"}
    client = keyed.test_client()
    client.environ_base["HTTP_X_API_KEY"] = server["X-API-Key"]
    tid, tokens = entered(client, PLAYERS, system="duplicate", rounds=1)
    work(keyed)
    done, waiting = read(client, tid)["rounds"][0]["pairings"]
    match = done["match_id"]
    dealt = client.get(f"/v1/matches/{match}", headers=browser)
    for _ in range(4):
        state = client.get(f"/v1/matches/{match}",
                           headers=auth(tokens[done["players"][0]])).get_json()
        token = tokens[done["players"][state["turn"]]]
        move = client.get(f"/v1/matches/{match}", headers=auth(token)).get_json()["legal_moves"][0]
        assert client.post(f"/v1/matches/{match}/moves", headers=auth(token), json={
            "card": move["card"], "capture": move["capture"]}).status_code == 201
    seat0 = tokens[done["players"][0]]
    r = client.post(f"/v1/matches/{match}/resign", headers=auth(seat0))
    assert r.status_code == 200, r.get_json()
    assert client.post(f"/v1/matches/{match}/rematch", headers=auth(seat0)).status_code in (
        200, 201)
    as_it_is = client.get(f"/v1/matches/{match}", headers=auth(seat0)).get_json()
    assert as_it_is["end_reason"] == "resigned" and as_it_is["rematch"]
    return {"client": client, "browser": browser, "server": server, "match": match,
            "dealt": dealt, "as_it_is": as_it_is, "tokens": tokens, "waiting": waiting,
            "other": tokens[waiting["players"][0]], "tournament": tid}


def test_a_browser_key_sees_a_sealed_table_frozen_as_dealt(keyed: Flask) -> None:
    """To a browser key, a sealed table that was played and resigned is the table as
    dealt: in play, version 0, no end or rematch, its ETag the one it had when dealt,
    its log empty at version 0, its stream silent; no guessed version answers 304."""
    s = _keyed_round(keyed)
    client, browser, match = s["client"], s["browser"], s["match"]
    r = client.get(f"/v1/matches/{match}", headers=browser)
    seen = r.get_json()
    assert r.headers["ETag"] == s["dealt"].headers["ETag"] == '"0-spectator"'
    assert seen == s["dealt"].get_json()
    assert seen["status"] == "active" and seen["version"] == 0 and seen["behind"] == 0
    assert seen["sealed"] is True and seen["end_reason"] is None and seen["rematch"] is None
    assert seen["scores"] == [0, 0] and seen["last_move"] is None and seen["deadline"] is None
    for guess in range(s["as_it_is"]["version"] + 2):
        probe = client.get(f"/v1/matches/{match}",
                           headers={**browser, "If-None-Match": f'"{guess}-spectator"'})
        assert probe.status_code == (304 if guess == 0 else 200), guess
    waited = client.get(f"/v1/matches/{match}?wait=0.3",
                        headers={**browser, "If-None-Match": '"0-spectator"'})
    assert waited.status_code == 304  # the whole wait: its end does not show
    log = client.get(f"/v1/matches/{match}/moves", headers=browser)
    assert log.get_json()["moves"] == [] and log.get_json()["version"] == 0
    assert log.get_json()["status"] == "active" and log.headers["ETag"] == '"0-log"'
    # a stream resumed at the version shown has nothing new to send
    r = client.get(f"/v1/matches/{match}/events", buffered=False,
                   headers={**browser, "Last-Event-ID": "0"})
    assert next(iter(r.response)).startswith(b": heartbeat")
    r.close()
    r = client.get(f"/v1/matches/{match}/events", buffered=False, headers=browser)
    first = next(c for c in r.response if b"event: state" in c).decode()
    r.close()
    assert first.startswith("id: 0\n") and '"version":0' in first


def test_the_server_key_sees_a_sealed_table_as_it_is(keyed: Flask) -> None:
    s = _keyed_round(keyed)
    client, match = s["client"], s["match"]
    for path in ("", "/events"):
        r = client.get(f"/v1/matches/{match}{path}", headers=s["server"], buffered=False)
        body = next(c for c in r.response if b"{" in c).decode() if path else r.get_data(
            as_text=True)
        r.close()
        data = json.loads(body.split("data: ", 1)[-1])
        for field in ("status", "version", "scores", "winner", "end_reason", "rematch"):
            assert data[field] == s["as_it_is"][field], (path, field)
        assert data["behind"] == 0 and data["seed"] is None


def test_a_sealed_tables_chat_is_closed_to_players_watching(keyed: Flask) -> None:
    """Where players watching may chat, a player of another table can neither read nor
    say anything at a sealed table, though its own seats can."""
    s = _keyed_round(keyed)
    client, match = s["client"], s["match"]
    r = client.put("/v1/chat/settings", json={"mode": "phrases", "spectators": True})
    assert r.status_code == 200, r.get_json()
    mine = client.post(f"/v1/matches/{match}/chat", json={"phrase": "hello"},
                       headers={**s["browser"], **auth(_seat_token(s))})
    assert mine.status_code == 201, mine.get_json()
    outsider = {**s["browser"], **auth(s["other"])}
    r = client.get(f"/v1/matches/{match}/chat", headers=outsider)
    assert r.status_code == 403 and r.get_json()["reason"] == "not_at_table"
    r = client.post(f"/v1/matches/{match}/chat", json={"phrase": "hello"}, headers=outsider)
    assert r.status_code == 403 and r.get_json()["reason"] == "not_at_table"
    # the other table's own chat is open to them
    assert client.get(f"/v1/matches/{s['waiting']['match_id']}/chat",
                      headers=outsider).status_code == 200


def _seat_token(s: dict[str, Any]) -> str:
    """A player token of the sealed table's first seat."""
    player = s["as_it_is"]["seats"][0]["player_id"]
    return str(s["tokens"][player])


def test_a_sealed_table_shows_itself_once_its_round_ends(keyed: Flask) -> None:
    s = _keyed_round(keyed)
    client, browser, match = s["client"], s["browser"], s["match"]
    waiting = s["waiting"]
    resign(client, waiting["match_id"], s["tokens"][waiting["players"][0]])
    work(keyed)
    r = client.get(f"/v1/matches/{match}", headers={**browser, "If-None-Match": '"0-spectator"'})
    assert r.status_code == 200
    seen = r.get_json()
    assert seen["sealed"] is False and seen["status"] == "finished"
    assert seen["version"] == s["as_it_is"]["version"] and seen["end_reason"] == "resigned"
    r = client.get(f"/v1/matches/{match}/events", buffered=False,
                   headers={**browser, "Last-Event-ID": "0"})
    first = next(c for c in r.response if b"event: state" in c).decode()
    r.close()
    assert first.startswith(f"id: {seen['version']}\n")
