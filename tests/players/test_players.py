"""Players vouched for by their front end (issue "Players", item 1): player tokens minted
with a server key (or signed by the front end's own server), accepted wherever a seat
token is, and required wherever a browser key names a player."""

from __future__ import annotations

import time
from datetime import datetime, timedelta
from typing import Any

import jwt
import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import update

from service.matches.models import Seat
from service.players import service as players
from service.players.models import Player
from service.storage.db import db
from service.tenants import service as tenants
from tests.client import auth
from tests.conftest import api_key

BROWSER = "https://play.acme.example"


def _front_end(app: Flask, name: str = "acme") -> tuple[dict[str, str], dict[str, str]]:
    """A front end's server key and browser key (one tenant)."""
    return api_key(app, name), api_key(app, name, BROWSER)


def _mint(client: FlaskClient, server: dict[str, str], player_id: str = "u-17",
          **body: Any) -> dict[str, Any]:
    r = client.post(f"/v1/players/{player_id}/tokens", headers=server, json=body)
    assert r.status_code == 201, r.get_json()
    return r.get_json()  # type: ignore[no-any-return]


def _secret(app: Flask, name: str) -> str:
    with app.app_context():
        return players.player_secret(tenants.tenant_pk(name))


def test_a_server_key_mints_a_signed_token_with_the_documented_claims(keyed: Flask) -> None:
    client = keyed.test_client()
    server, _ = _front_end(keyed)
    before = time.time()
    minted = _mint(client, server, name="Ana", ttl_seconds=600)
    assert minted["player_id"] == "u-17" and minted["name"] == "Ana"
    claims = jwt.decode(minted["token"], _secret(keyed, "acme"), algorithms=["HS256"],
                        audience="acme", issuer="basra")
    assert claims["sub"] == "u-17" and claims["name"] == "Ana"
    # iat to the millisecond (a sign-out refuses the tokens issued before it), exp whole
    assert before - 1 <= claims["iat"] <= time.time() + 0.001
    assert claims["exp"] - int(claims["iat"]) == 600
    expires = datetime.fromisoformat(minted["expires_at"])
    assert expires.utcoffset() == timedelta(0) and int(expires.timestamp()) == claims["exp"]
    with keyed.app_context():
        row = db.session.query(Player).one()
        assert (row.player_id, row.name) == ("u-17", "Ana")


def test_a_browser_key_never_mints(keyed: Flask) -> None:
    client = keyed.test_client()
    _, browser = _front_end(keyed)
    r = client.post("/v1/players/u-17/tokens", headers={**browser, "Origin": BROWSER}, json={})
    assert r.status_code == 403 and r.get_json()["reason"] == "server_key_required"
    with keyed.app_context():
        assert db.session.query(Player).count() == 0


def test_the_keyless_local_front_end_may_mint(client: FlaskClient) -> None:
    """make serve's default (keys optional): a request without a key speaks for the local
    front end, a development server, where anyone may mint."""
    minted = _mint(client, {}, "dev-1")
    view = client.post("/v1/matches", headers=auth(minted["token"]), json={
        "players": [{"name": "me", "player_id": "dev-1"}, {"bot": "random"}]})
    assert view.status_code == 201, view.get_json()


@pytest.mark.parametrize(("player_id", "body"), [
    ("u-17", {"ttl_seconds": 59}), ("u-17", {"ttl_seconds": 86_401}),
    ("u-17", {"name": ""}), ("a b", {}), ("x" * 129, {}), ("ü", {}),
])
def test_bad_mint_requests_are_422_naming_the_field(keyed: Flask, player_id: str,
                                                    body: dict[str, Any]) -> None:
    client = keyed.test_client()
    server, _ = _front_end(keyed)
    r = client.post(f"/v1/players/{player_id}/tokens", headers=server, json=body)
    assert r.status_code == 422, r.get_json()
    fields = {e["field"] for e in r.get_json()["errors"]}
    assert fields & {"ttl_seconds", "name", "player_id"}
    with keyed.app_context():
        assert db.session.query(Player).count() == 0


def _create(client: FlaskClient, headers: dict[str, str], *players_: dict[str, Any]) -> Any:
    return client.post("/v1/matches", headers=headers, json={"players": list(players_)})


def test_a_player_token_acts_for_the_players_seat(keyed: Flask) -> None:
    """A browser key with the player's token seats the player; the token then reads the
    seat's view and plays its moves, and the seat token keeps working too."""
    client = keyed.test_client()
    server, browser = _front_end(keyed)
    token = _mint(client, server, "u-17", name="Ana")["token"]
    r = _create(client, {**browser, **auth(token)}, {"name": "Ana", "player_id": "u-17"},
                {"bot": "greedy"})
    assert r.status_code == 201, r.get_json()
    match_id, seat_token = r.get_json()["id"], r.get_json()["seats"][0]["token"]
    # the create answer names each seat's player and bot, as the views do
    assert [(s["player_id"], s["bot"]) for s in r.get_json()["seats"]] == \
        [("u-17", None), (None, "greedy")]
    mine = client.get(f"/v1/matches/{match_id}", headers={**browser, **auth(token)})
    assert mine.status_code == 200 and mine.get_json()["seat"] == 0
    assert len(mine.get_json()["hand"]) == 4
    assert mine.headers["ETag"] == f'"{mine.get_json()["version"]}-s0"'
    move = mine.get_json()["legal_moves"][0]
    played = client.post(f"/v1/matches/{match_id}/moves", headers={**browser, **auth(token)},
                         json=move)
    assert played.status_code == 201 and played.get_json()["move"]["seat"] == 0
    by_seat_token = client.get(f"/v1/matches/{match_id}", headers={**browser, **auth(seat_token)})
    assert by_seat_token.status_code == 200 and by_seat_token.get_json()["seat"] == 0


def test_a_browser_key_naming_a_player_without_the_token_is_refused(keyed: Flask) -> None:
    client = keyed.test_client()
    server, browser = _front_end(keyed)
    other = _mint(client, server, "u-99")["token"]
    for headers in (browser, {**browser, **auth(other)}):
        r = _create(client, headers, {"name": "Ana", "player_id": "u-17"}, {"bot": "random"})
        assert r.status_code == 403 and r.get_json()["reason"] == "player_unverified"
        assert r.get_json()["errors"][0]["field"] == "player_id"
    assert client.get("/v1/matches", headers=browser).get_json()["matches"] == []
    table = _create(client, browser, {"name": "host"}, {"open": True}).get_json()["id"]
    r = client.post(f"/v1/matches/{table}/join", headers=browser,
                    json={"name": "Ana", "player_id": "u-17"})
    assert r.status_code == 403 and r.get_json()["reason"] == "player_unverified"
    r = client.post("/v1/matches/quick", headers=browser, json={"name": "Ana", "player_id": "u-17"})
    assert r.status_code == 403 and r.get_json()["reason"] == "player_unverified"


def test_a_server_key_vouches_for_any_of_its_players(keyed: Flask) -> None:
    """A front end's server names its player with no token; that player's token, minted
    later, acts for the seat."""
    client = keyed.test_client()
    server, browser = _front_end(keyed)
    r = _create(client, server, {"name": "Ana", "player_id": "u-17"}, {"bot": "random"})
    assert r.status_code == 201, r.get_json()
    match_id = r.get_json()["id"]
    token = _mint(client, server, "u-17")["token"]
    view = client.get(f"/v1/matches/{match_id}", headers={**browser, **auth(token)})
    assert view.status_code == 200 and view.get_json()["seat"] == 0
    stranger = _mint(client, server, "u-99")["token"]
    r = client.get(f"/v1/matches/{match_id}", headers={**browser, **auth(stranger)})
    assert r.status_code == 403 and r.get_json()["reason"] == "invalid_token"


def test_a_seat_named_without_proof_is_not_the_players(keyed: Flask) -> None:
    """A seat whose player_id was never proven (a match made before players were
    vouched for) does not answer that player's token."""
    client = keyed.test_client()
    server, browser = _front_end(keyed)
    match_id = _create(client, server, {"name": "Ana", "player_id": "u-17"},
                       {"bot": "random"}).get_json()["id"]
    with keyed.app_context():
        db.session.execute(update(Seat).values(vouched=False))
        db.session.commit()
    token = _mint(client, server, "u-17")["token"]
    r = client.post(f"/v1/matches/{match_id}/resign", headers={**browser, **auth(token)})
    assert r.status_code == 403 and r.get_json()["reason"] == "invalid_token"


def test_a_player_token_alone_takes_a_seat_at_join_and_quick_play(keyed: Flask) -> None:
    client = keyed.test_client()
    server, browser = _front_end(keyed)
    ana = _mint(client, server, "u-17", name="Ana")["token"]
    bo = _mint(client, server, "u-18", name="Bo")["token"]
    table = _create(client, browser, {"name": "host"}, {"open": True}).get_json()["id"]
    joined = client.post(f"/v1/matches/{table}/join", headers={**browser, **auth(ana)},
                         json={"name": "Ana"})
    assert joined.status_code == 201, joined.get_json()
    seats = joined.get_json()["state"]["seats"]
    assert (seats[1]["player_id"], seats[1]["name"]) == ("u-17", "Ana")
    first = client.post("/v1/matches/quick", headers={**browser, **auth(ana)}, json={"name": "Ana"})
    second = client.post("/v1/matches/quick", headers={**browser, **auth(bo)}, json={"name": "Bo"})
    assert first.status_code == second.status_code == 201
    assert first.get_json()["id"] == second.get_json()["id"]
    quick = second.get_json()["id"]
    view = client.get(f"/v1/matches/{quick}", headers={**browser, **auth(bo)})
    assert view.status_code == 200 and view.get_json()["seat"] == 1


def _signed(secret: str, **claims: Any) -> str:
    now = int(time.time())
    base = {"iss": "basra", "aud": "acme", "sub": "u-17", "iat": now, "exp": now + 300}
    return jwt.encode({**base, **claims}, secret, algorithm="HS256")


def test_a_front_ends_server_may_sign_its_own_tokens(keyed: Flask) -> None:
    client = keyed.test_client()
    server, browser = _front_end(keyed)
    token = _signed(_secret(keyed, "acme"), name="Ana")
    r = _create(client, {**browser, **auth(token)}, {"name": "Ana", "player_id": "u-17"},
                {"bot": "random"})
    assert r.status_code == 201, r.get_json()


def test_expired_forged_foreign_and_long_lived_tokens_are_401(keyed: Flask) -> None:
    client = keyed.test_client()
    server, browser = _front_end(keyed)
    other_server, _ = _front_end(keyed, "globex")
    secret = _secret(keyed, "acme")
    now = int(time.time())
    foreign = _mint(client, other_server, "u-17")["token"]  # globex's player u-17
    cases = {
        "expired": _signed(secret, iat=now - 600, exp=now - 120),
        "forged": _signed("not the front end's secret, but as long as one"),
        "another front end's": foreign,
        "for another audience": _signed(secret, aud="globex"),
        "living over a day": _signed(secret, exp=now + 90_000),
        "without exp": jwt.encode({"iss": "basra", "aud": "acme", "sub": "u-17", "iat": now},
                                  secret, algorithm="HS256"),
        "unsigned": jwt.encode({"iss": "basra", "aud": "acme", "sub": "u-17", "iat": now,
                                "exp": now + 60}, None, algorithm="none"),
        "a bad player id": _signed(secret, sub="a b"),
    }
    for what, token in cases.items():
        r = _create(client, {**browser, **auth(token)}, {"name": "Ana", "player_id": "u-17"},
                    {"bot": "random"})
        assert r.status_code == 401, (what, r.get_json())
        foreign = what in ("another front end's", "for another audience")
        assert r.get_json()["reason"] == ("wrong_front_end" if foreign
                                          else "invalid_player_token"), what
        assert "Bearer" in r.headers["WWW-Authenticate"]
        if foreign:  # it names the token's front end
            assert "'globex'" in r.get_json()["detail"]
    assert client.get("/v1/matches", headers=server).get_json()["matches"] == []


def test_a_player_token_alone_is_its_front_ends(keyed: Flask) -> None:
    """With keys required, a request carrying only a player token is its front end's
    (the token names it): the player reads their record, plays quick play as
    themselves (their name from the token), and reads only their front end's matches;
    what takes the server key stays refused; a token naming no front end here, or a
    forged one, is 401."""
    client = keyed.test_client()
    server, _ = _front_end(keyed)
    other_server, _ = _front_end(keyed, "globex")
    hidden = _create(client, other_server, {"name": "a"}, {"name": "b"}).get_json()["id"]
    token = auth(_mint(client, server, "ali", name="Ali")["token"])
    assert client.get("/v1/players/ali", headers=token).status_code == 200
    quick = client.post("/v1/matches/quick", headers=token, json={})
    assert quick.status_code == 201, quick.get_json()
    view = client.get(f"/v1/matches/{quick.get_json()['id']}", headers=token).get_json()
    assert view["seats"][0]["player_id"] == "ali" and view["seats"][0]["name"] == "Ali"
    assert client.get(f"/v1/matches/{hidden}", headers=token).status_code == 404
    minted = client.post("/v1/players/badr/tokens", headers=token, json={})
    assert minted.status_code == 403 and minted.get_json()["reason"] == "server_key_required"
    # the keyless local front end is none where keys are required, token or not
    local = _signed(_secret(keyed, "local"), aud="local")
    for bad in (_signed(_secret(keyed, "acme"), aud="initech"),
                _signed("not the front end's secret, but as long as one"), local):
        r = client.get("/v1/players/ali", headers=auth(bad))
        assert r.status_code == 401 and r.get_json()["reason"] == "invalid_player_token"
    assert client.get("/v1/players/ali").status_code == 401  # neither key nor token
