"""Blocks (issue 42, item 4): a player blocks another with their own token (or the
server key); quick play and rated matching never seat the two together, neither joins
the other's table, and unblocking lifts it."""

from __future__ import annotations

from typing import Any

from flask.testing import FlaskClient

from tests.client import auth
from tests.tournaments.helpers import mint


def _quick(client: FlaskClient, token: str, **body: Any) -> str:
    r = client.post("/v1/matches/quick", headers=auth(token),
                    json={"variant": "egyptian-v2", **body})
    assert r.status_code in (200, 201), r.get_json()
    return str(r.get_json()["id"])


def test_quick_play_never_seats_a_player_with_someone_either_blocked(
    client: FlaskClient,
) -> None:
    ana, bo, cy = mint(client, "ana"), mint(client, "bo"), mint(client, "cy")
    r = client.put("/v1/players/ana/blocks/bo", headers=auth(ana))
    assert r.status_code == 200 and r.get_json()["player_id"] == "bo"
    assert client.put("/v1/players/ana/blocks/bo", headers=auth(ana)).status_code == 200
    for rated in (False, True):
        waiting = _quick(client, bo, rated=rated)
        mine = _quick(client, ana, rated=rated)  # bo blocked by ana: a table of her own
        assert mine != waiting
        assert _quick(client, cy, rated=rated) == waiting  # cy is blocked by nobody
        assert client.post("/v1/matches/quick/cancel", headers=auth(ana),
                           json={}).status_code == 200
    # the block holds the other way too: bo, blocked, does not join ana's table
    waiting = _quick(client, ana)
    assert _quick(client, bo) != waiting
    joined = client.post(f"/v1/matches/{waiting}/join", headers=auth(bo), json={})
    assert joined.status_code == 409 and joined.get_json()["reason"] == "player_blocked"
    assert client.delete("/v1/players/ana/blocks/bo", headers=auth(ana)).status_code == 204
    client.post("/v1/matches/quick/cancel", headers=auth(bo), json={})
    assert _quick(client, bo) == waiting  # unblocked: matched again


def test_blocks_are_listed_to_their_player_and_nobody_else(client: FlaskClient) -> None:
    ana, bo = mint(client, "ana"), mint(client, "bo")
    for known in ("cy", "dee"):
        mint(client, known)
    for other in ("cy", "bo", "dee"):
        assert client.put(f"/v1/players/ana/blocks/{other}", headers=auth(ana)).status_code == 200
    page = client.get("/v1/players/ana/blocks", headers=auth(ana),
                      query_string={"limit": 2}).get_json()
    assert [b["player_id"] for b in page["blocks"]] == ["bo", "cy"] and page["next"] == "cy"
    rest = client.get("/v1/players/ana/blocks", headers=auth(ana),
                      query_string={"after": page["next"]}).get_json()
    assert [b["player_id"] for b in rest["blocks"]] == ["dee"] and rest["next"] is None
    server = client.get("/v1/players/ana/blocks").get_json()  # the keyless local server
    assert len(server["blocks"]) == 3
    for method in ("get", "put", "delete"):
        url = "/v1/players/ana/blocks" + ("" if method == "get" else "/cy")
        r = client.open(url, method=method.upper(), headers=auth(bo))
        assert r.status_code == 403 and r.get_json()["reason"] == "not_this_player"
    mine = client.put("/v1/players/ana/blocks/ana", headers=auth(ana))
    assert mine.status_code == 409 and mine.get_json()["reason"] == "player_blocked"
    unknown = client.put("/v1/players/ana/blocks/nobody", headers=auth(ana))
    assert unknown.status_code == 404 and unknown.get_json()["reason"] == "player_not_found"
    bad = client.put("/v1/players/ana/blocks/bad%20id", headers=auth(ana))
    assert bad.status_code == 422 and bad.get_json()["errors"][0]["field"] == "other"
    assert len(client.get("/v1/players/ana/blocks").get_json()["blocks"]) == 3


def test_a_block_tells_the_hooks_wired_once_and_social_ends_friendships_through_them(
    client: FlaskClient, monkeypatch: Any,
) -> None:
    """Players touch no friendship row: social hears of a block through the hook
    ``create_app`` wired (issue 55), and a repeated block tells nobody again."""
    from service.players import blocks
    from service.social import friends

    assert friends.unfriend in blocks._hooks
    heard: list[tuple[int, str, str]] = []
    monkeypatch.setattr(blocks, "_hooks", (*blocks._hooks, lambda *told: heard.append(told)))
    ana = mint(client, "ana")
    mint(client, "bo")
    for _ in range(2):
        assert client.put("/v1/players/ana/blocks/bo", headers=auth(ana)).status_code == 200
    assert [told[1:] for told in heard] == [("ana", "bo")]
