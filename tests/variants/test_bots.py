"""GET /v1/bots: the ladder of bot levels, each rated on the players' scale, and the
level nearest a player's rating."""

from __future__ import annotations

from flask.testing import FlaskClient

from service.engine.bots import LADDER, POLICIES
from service.players.ratings import MODEL, skill_display
from tests.client import auth, tokens
from tests.players.test_ratings import _rated


def test_the_ladder_climbs_from_beginner_to_expert_in_measured_steps(client: FlaskClient) -> None:
    r = client.get("/v1/bots")
    assert r.status_code == 200, r.get_json()
    body = r.get_json()
    ladder = body["ladder"]
    assert [step["level"] for step in ladder] == list(LADDER) and len(ladder) >= 5
    displays = [step["rating"]["display"] for step in ladder]
    assert displays == sorted(displays) and len(set(displays)) == len(displays)
    assert ladder[0]["against_below"] is None
    for step in ladder[1:]:  # each step won 60-80% of its matches against the one below
        against = step["against_below"]
        assert 0.6 <= against["win_rate"] <= 0.8 and against["matches"] >= 1000, step
        assert against["low"] < against["win_rate"] < against["high"]
    assert {level["level"] for level in body["others"]} == set(POLICIES) - set(LADDER)
    assert all(level["rating"] is None for level in body["others"])
    assert {level["level"]: level["searching"] for level in ladder}["expert"] is True
    assert body["nearest"] is None


def test_a_bot_of_the_players_strength(client: FlaskClient) -> None:
    ladder = client.get("/v1/bots").get_json()["ladder"]
    for step in ladder:
        r = client.get(f"/v1/bots?mu={step['rating']['mu'] + 0.1}")
        assert r.get_json()["nearest"] == step["level"]
    assert client.get("/v1/bots?mu=-50").get_json()["nearest"] == ladder[0]["level"]
    assert client.get("/v1/bots?mu=150").get_json()["nearest"] == ladder[-1]["level"]
    for bad in ("strong", "1e9", "nan"):
        r = client.get(f"/v1/bots?mu={bad}")
        assert r.status_code == 422 and r.get_json()["errors"][0]["field"] == "mu", bad


def test_one_scale_a_new_player_reads_the_ladder_on(client: FlaskClient) -> None:
    """Issue 54, item 6: a level weaker than a new player (its mu below a new player's 25)
    shows a lower number than a new player's 1500, a stronger one a higher; the numbers
    climb with the levels, each its skill at a new player's uncertainty."""
    created = _rated(client, "ana", "bo")
    seat = client.get(f"/v1/matches/{created['id']}").get_json()["turn"]
    over = client.post(f"/v1/matches/{created['id']}/resign", headers=auth(tokens(created)[seat]))
    new_player = over.get_json()["state"]["rating_changes"][0]["before"]
    assert (new_player["mu"], new_player["display"]) == (MODEL.mu, 1500)
    ladder = {step["level"]: step["rating"] for step in client.get("/v1/bots").get_json()["ladder"]}
    assert ladder["random"]["display"] < new_player["display"] < ladder["expert"]["display"]
    for rating in ladder.values():
        assert rating["display"] == skill_display(rating["mu"])
        assert (rating["display"] < 1500) == (rating["mu"] < new_player["mu"])
    displays = [ladder[level]["display"] for level in LADDER]
    assert displays == sorted(set(displays))
    nearest = client.get(f"/v1/bots?mu={new_player['mu']}").get_json()["nearest"]
    assert min(ladder, key=lambda level: abs(ladder[level]["display"] - 1500)) == nearest


def test_every_ladder_level_can_sit_at_a_table(client: FlaskClient) -> None:
    for level in LADDER:
        r = client.post("/v1/matches", json={"players": [{"name": "ann"}, {"bot": level}]})
        assert r.status_code == 201, (level, r.get_json())
        assert r.get_json()["seats"][1]["bot"] == level
