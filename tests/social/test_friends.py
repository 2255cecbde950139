"""Friends (issue 43, item 1): a request, accepted by asking back, ended by either; both
players vouched for; refused between players who block each other, ended by a block;
bounded; each change an event on both players' streams."""

from __future__ import annotations

from pathlib import Path

from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select

from service.players.models import PlayerEvent
from service.storage.db import db
from tests.client import auth
from tests.conftest import make_app
from tests.tournaments.helpers import mint


def _events(app: Flask, player: str) -> list[str]:
    with app.app_context():
        kinds = db.session.execute(select(PlayerEvent.type).where(
            PlayerEvent.player_id == player).order_by(PlayerEvent.pk)).scalars().all()
        db.session.remove()
    return list(kinds)


def _list(client: FlaskClient, token: str, player: str, **query: object) -> dict[str, object]:
    r = client.get(f"/v1/players/{player}/friends", headers=auth(token), query_string=query)
    assert r.status_code == 200, r.get_json()
    return r.get_json()  # type: ignore[no-any-return]


def test_a_request_accepted_by_asking_back_and_ended_by_either(
    app: Flask, client: FlaskClient,
) -> None:
    ana, bo = mint(client, "ana"), mint(client, "bo")
    asked = client.put("/v1/players/ana/friends/bo", headers=auth(ana))
    assert asked.status_code == 200 and asked.get_json()["state"] == "requested"
    assert client.put("/v1/players/ana/friends/bo", headers=auth(ana)).get_json()["state"] \
        == "requested"  # again: no change
    assert [(f["player_id"], f["state"]) for f in _list(client, bo, "bo")["friends"]] \
        == [("ana", "asked")]
    accepted = client.put("/v1/players/bo/friends/ana", headers=auth(bo))
    assert accepted.status_code == 200 and accepted.get_json()["state"] == "friends"
    for token, player, other in ((ana, "ana", "bo"), (bo, "bo", "ana")):
        assert [(f["player_id"], f["state"]) for f in _list(client, token, player)["friends"]] \
            == [(other, "friends")]
    assert _events(app, "ana") == ["friend.requested", "friend.accepted"]
    assert _events(app, "bo") == ["friend.requested", "friend.accepted"]
    assert client.delete("/v1/players/bo/friends/ana", headers=auth(bo)).status_code == 204
    assert _list(client, ana, "ana")["friends"] == []
    assert _events(app, "ana")[-1] == "friend.removed"


def test_blocks_refuse_and_end_friendships_and_only_the_player_acts(
    client: FlaskClient,
) -> None:
    ana, bo, cy = mint(client, "ana"), mint(client, "bo"), mint(client, "cy")
    client.put("/v1/players/ana/friends/bo", headers=auth(ana))
    client.put("/v1/players/bo/friends/ana", headers=auth(bo))
    assert client.put("/v1/players/bo/blocks/ana", headers=auth(bo)).status_code == 200
    assert _list(client, ana, "ana")["friends"] == []  # the block ended it
    refused = client.put("/v1/players/ana/friends/bo", headers=auth(ana))
    assert refused.status_code == 409 and refused.get_json()["reason"] == "player_blocked"
    other = client.put("/v1/players/ana/friends/cy", headers=auth(bo))
    assert other.status_code == 403 and other.get_json()["reason"] == "not_this_player"
    unknown = client.put("/v1/players/ana/friends/nobody", headers=auth(ana))
    assert unknown.status_code == 404
    me = client.put("/v1/players/ana/friends/ana", headers=auth(ana))
    assert me.status_code == 409
    assert _list(client, cy, "cy")["friends"] == []


def test_requests_are_bounded_and_listed_by_page(backend: str, tmp_path: Path) -> None:
    app = make_app(backend, tmp_path, BASRA_FRIEND_REQUESTS_MAX=3)
    client = app.test_client()
    ana = mint(client, "ana")
    for other in ("bo", "cy", "dee", "ed"):
        mint(client, other)
    for other in ("bo", "cy", "dee"):
        assert client.put(f"/v1/players/ana/friends/{other}", headers=auth(ana)).status_code \
            == 200
    over = client.put("/v1/players/ana/friends/ed", headers=auth(ana))
    assert over.status_code == 409 and over.get_json()["reason"] == "too_many_friends"
    page = _list(client, ana, "ana", limit=2)
    assert [f["player_id"] for f in page["friends"]] == ["bo", "cy"] and page["next"] == "cy"
    rest = _list(client, ana, "ana", after="cy")
    assert [f["player_id"] for f in rest["friends"]] == ["dee"] and rest["next"] is None
