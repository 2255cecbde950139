"""GET /v1/bots: the ladder of bot levels, each rated on the players' scale, and the
level nearest a player's rating."""

from __future__ import annotations

from flask.testing import FlaskClient

from service.engine.bots import LADDER, POLICIES


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


def test_every_ladder_level_can_sit_at_a_table(client: FlaskClient) -> None:
    for level in LADDER:
        r = client.post("/v1/matches", json={"players": [{"name": "ann"}, {"bot": level}]})
        assert r.status_code == 201, (level, r.get_json())
        assert r.get_json()["seats"][1]["bot"] == level
