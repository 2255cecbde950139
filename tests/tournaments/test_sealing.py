"""Sealing is one rule where data leaves: while a duplicate round goes on, a finished
table's result reaches no player of another table (their token), by any listing,
record, total or standing; its own players and the front end's server see it; once the
round ends, records, ratings and standings count it."""

from __future__ import annotations

from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from tests.client import auth
from tests.tournaments.helpers import entered, read, work

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
