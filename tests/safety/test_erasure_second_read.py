"""What a second hostile read of erasure found (issue 53, item 2): a report's text about
the erased player is kept in no webhook message; the erasure tells only
``player.erased``; an erased entrant stands as "Erased player"; an erased id answers as
an unknown one and names no new row."""

from __future__ import annotations

from datetime import datetime

from flask import Flask
from flask.testing import FlaskClient

from tests.client import auth
from tests.conftest import api_key
from tests.safety.test_erasure_events import _hooked, _messages
from tests.tournaments.helpers import entered, mint, read, work

BROWSER = "https://play.acme.example"


def _match(client: FlaskClient, *players: str) -> dict[str, object]:
    r = client.post("/v1/matches", json={"players": [
        {"name": p.upper(), "player_id": p} for p in players]})
    assert r.status_code == 201, r.get_json()
    return r.get_json()  # type: ignore[no-any-return]


def test_a_kept_report_message_loses_the_text_about_the_erased_player(
        app: Flask, client: FlaskClient) -> None:
    _hooked(app, client, ["report.created"])
    bo = mint(client, "bo")
    mint(client, "ff-gone-42")
    created = _match(client, "bo", "ff-gone-42")
    r = client.post("/v1/reports", headers=auth(bo), json={
        "match_id": created["id"], "player_id": "ff-gone-42", "reason": "abuse",
        "text": "Fiona Gonewith aka ff-gone-42 said frobozz"})
    assert r.status_code == 201, r.get_json()
    assert client.delete("/v1/players/ff-gone-42").status_code == 200
    ((kind, data),) = _messages(app)
    assert kind == "report.created" and data["reporter"] == "bo"
    assert data["player_id"].startswith("erased-") and data["text"] == "(erased)"


def test_an_erasure_tells_only_player_erased(app: Flask, client: FlaskClient) -> None:
    _hooked(app, client, ["player.signed_out", "player.suspended", "player.erased"])
    mint(client, "ana")
    assert client.delete("/v1/players/ana").status_code == 200
    assert _messages(app) == [("player.erased", {"player_id": "ana", "matches": 0})]


def test_an_erased_entrant_stands_as_erased_player(app: Flask, client: FlaskClient) -> None:
    tid, _ = entered(client, ["ana", "cy"], rounds=1)
    work(app)
    assert client.delete("/v1/players/ana").status_code == 200  # their game forfeited
    running = read(client, tid)["standings"]
    assert {s["name"] for s in running} == {"Erased player", "CY"}
    work(app, 2)
    tour = read(client, tid)
    assert tour["status"] == "finished"
    assert {s["name"] for s in tour["standings"]} == {"Erased player", "CY"}


def _erased(keyed: Flask, *erased: str) -> tuple[FlaskClient, dict[str, str], dict[str, str],
                                                 dict[str, str]]:
    """A front end (server and browser keys) whose players ``erased`` were minted, then
    erased; bo's token, minted and kept."""
    client = keyed.test_client()
    server, browser = api_key(keyed, "acme"), api_key(keyed, "acme", BROWSER)
    minted = {p: mint(client, p, server) for p in ("bo", *erased)}
    for player in erased:
        r = client.delete(f"/v1/players/{player}", headers=server)
        assert r.status_code == 200, r.get_json()
    return client, server, browser, minted


def _answer(r: object) -> tuple[int, str | None]:
    status, body = r.status_code, r.get_json()  # type: ignore[attr-defined]
    return status, body.get("reason") if isinstance(body, dict) else None


def test_an_erased_id_answers_as_one_never_known(keyed: Flask) -> None:
    """To a browser key and to another player's token, every route naming the erased id
    answers as it does an id that never existed: nobody learns it existed, or when it
    was erased."""
    client, _, browser, minted = _erased(keyed, "ana")
    bo = auth(minted["bo"])
    for path in ("/v1/players/{}", "/v1/players/{}/matches",
                 "/v1/players/{}/ratings/egyptian-v2",
                 "/v1/leaderboards/egyptian-v2?around={}"):
        for headers in (browser, bo):
            erased = client.get(path.format("ana"), headers=headers)
            assert _answer(erased) == (404, "player_not_found"), (path, erased.get_json())
            assert _answer(client.get(path.format("nobody"), headers=headers)) == \
                _answer(erased), path


def test_no_new_row_names_the_erased_id(keyed: Flask) -> None:
    """A friend request, a block, a challenge or a party invite naming the erased id is
    refused as one naming an unknown id, and nothing is written."""
    client, _, _, minted = _erased(keyed, "ana")
    bo = auth(minted["bo"])
    party = client.post("/v1/parties", headers=bo)
    assert party.status_code == 201, party.get_json()
    asks = [("PUT", "/v1/players/bo/friends/{}", None), ("PUT", "/v1/players/bo/blocks/{}", None),
            ("POST", "/v1/challenges", {"to": "{}"}),
            ("POST", f"/v1/parties/{party.get_json()['id']}/invite", {"player_id": "{}"})]
    for method, path, body in asks:
        for who in ("ana", "nobody"):
            r = client.open(path.format(who), method=method, headers=bo, json=None if body
                            is None else {k: v.format(who) for k, v in body.items()})
            assert _answer(r) == (404, "player_not_found"), (path, who, r.get_json())
    assert client.get("/v1/players/bo/friends", headers=bo).get_json()["friends"] == []
    assert client.get("/v1/players/bo/blocks", headers=bo).get_json()["blocks"] == []
    assert client.get("/v1/players/bo/challenges", headers=bo).get_json()["challenges"] == []
    members = client.get(f"/v1/parties/{party.get_json()['id']}", headers=bo).get_json()
    assert [m["player_id"] for m in members["members"]] == ["bo"]


def test_the_listing_marks_an_erased_id_and_vouching_again_makes_a_new_player(
        keyed: Flask) -> None:
    """The server key's listing shows an erased id as erased, never as an ordinary
    player; a server key seating it, or minting its token, makes a new player (the old
    tokens stay refused)."""
    client, server, browser, minted = _erased(keyed, "ana", "cy")
    found = client.get("/v1/players", headers=server).get_json()["players"]
    assert [(p["player_id"], p["erased"], p["suspended"], p["name"]) for p in found] == [
        ("ana", True, False, None), ("bo", False, False, "BO"), ("cy", True, False, None)]
    erased_at = datetime.fromisoformat(found[0]["created_at"])
    # a sign-out is no vouching: the id stays erased
    assert client.post("/v1/players/cy/tokens/revoke", headers=server).status_code == 200
    assert _answer(client.get("/v1/players/cy", headers=browser)) == (404, "player_not_found")
    made = client.post("/v1/matches", headers=server, json={"players": [
        {"name": "Ana", "player_id": "ana"}, {"name": "Bo", "player_id": "bo"}]})
    assert made.status_code == 201, made.get_json()
    cy = mint(client, "cy", server)
    for player in ("ana", "cy"):
        again = client.get(f"/v1/players/{player}", headers=browser)
        assert again.status_code == 200, again.get_json()
        assert again.get_json()["totals"]["matches"] == 0
        assert datetime.fromisoformat(again.get_json()["created_at"]) > erased_at
        old = client.get("/v1/players/bo", headers=auth(minted[player]))
        assert _answer(old) == (401, "token_revoked")
    assert client.get("/v1/players/cy", headers=auth(cy)).status_code == 200
    found = client.get("/v1/players", headers=server).get_json()["players"]
    assert [(p["player_id"], p["erased"]) for p in found] == [
        ("ana", False), ("bo", False), ("cy", False)]
    assert [p["name"] for p in found] == ["Ana", "Bo", "CY"]
