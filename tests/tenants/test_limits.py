"""Rate limits (README "Running in production"): per tenant key, per address without one,
separate budgets, 429 problems with Retry-After, Redis storage when configured."""

from __future__ import annotations

import time
import types
from pathlib import Path

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from service.tenants import limits
from service.tenants import service as tenants
from tests.client import auth, tokens
from tests.conftest import make_app
from tests.servers import own_redis

PLAYERS = {"players": [{"name": "a"}, {"name": "b"}]}


def _limited(backend: str, tmp_path: Path, **settings: object) -> Flask:
    return make_app(backend, tmp_path, BASRA_RATE_LIMITS="on", BASRA_LIMIT_CREATES="3/minute",
                    BASRA_LIMIT_EXPENSIVE="2/minute", BASRA_KEY_CACHE_SECONDS=0, **settings)


def test_a_spent_budget_is_429_with_retry_after(backend: str, tmp_path: Path) -> None:
    """The fourth create in a minute is a 429 problem with Retry-After (each answer says
    what is left of the budget); another client address, and another tenant's key, each
    have a budget of their own; reads are a separate budget."""
    app = _limited(backend, tmp_path)
    client = app.test_client()
    answers = [client.post("/v1/matches", json=PLAYERS) for _ in range(3)]
    assert [a.status_code for a in answers] == [201, 201, 201]
    assert [(a.headers["X-RateLimit-Limit"], a.headers["X-RateLimit-Remaining"])
            for a in answers] == [("3", "2"), ("3", "1"), ("3", "0")]
    assert not [a for a in answers if "Retry-After" in a.headers]  # only a refusal has one
    r = client.post("/v1/matches", json=PLAYERS)
    assert r.status_code == 429 and r.content_type == "application/problem+json"
    assert r.get_json()["reason"] == "rate_limited"
    assert 0 < int(r.headers["Retry-After"]) <= 60
    assert client.get("/v1/matches").status_code == 200  # reads: their own budget
    other = app.test_client()
    other.environ_base["REMOTE_ADDR"] = "192.0.2.7"
    assert other.post("/v1/matches", json=PLAYERS).status_code == 201
    with app.app_context():
        key = {"X-API-Key": tenants.create_key("acme", [])}
    assert client.post("/v1/matches", json=PLAYERS, headers=key).status_code == 201


def test_a_server_keys_budget_is_scaled_for_all_its_players(backend: str,
                                                          tmp_path: Path) -> None:
    """One server key signs in and seats all of its front end's players: its budgets are
    BASRA_LIMIT_SERVER_SCALE times one caller's (the load test's 300 sign-ins met 429s at
    60 a minute); a browser key of the same front end keeps one caller's."""
    app = _limited(backend, tmp_path, BASRA_LIMIT_SERVER_SCALE=2)
    client = app.test_client()
    with app.app_context():
        server = {"X-API-Key": tenants.create_key("acme", [])}
        browser = {"X-API-Key": tenants.create_key("acme-web", ["https://acme.example"]),
                   "Origin": "https://acme.example"}
    answers = [client.post("/v1/matches", json=PLAYERS, headers=server) for _ in range(7)]
    assert [a.status_code for a in answers] == [201] * 6 + [429]
    assert answers[0].headers["X-RateLimit-Limit"] == "6"
    visitor = [client.post("/v1/matches", json=PLAYERS, headers=browser) for _ in range(4)]
    assert [a.status_code for a in visitor] == [201, 201, 201, 429]


def test_expert_hints_have_their_own_small_budget(backend: str, tmp_path: Path) -> None:
    """Hints of every searching level spend the expensive budget; greedy hints do not."""
    app = _limited(backend, tmp_path)
    client = app.test_client()
    created = client.post("/v1/matches", json=PLAYERS).get_json()
    url = f"/v1/matches/{created['id']}/hint"
    seat = client.get(f"/v1/matches/{created['id']}").get_json()["turn"]
    headers = auth(tokens(created)[seat])
    assert [client.get(url + f"?level={level}", headers=headers).status_code
            for level in ("expert-2026", "expert-search", "expert")] == [200, 200, 429]
    assert client.get(url + "?level=greedy", headers=headers).status_code == 200


def test_budgets_live_in_redis_when_configured(tmp_path: Path) -> None:
    """With REDIS_URL, budgets are kept in Redis (shared by every instance): two apps, as
    two instances, spend one budget."""
    url = "redis://127.0.0.1:6379/15"
    try:
        redis.Redis.from_url(url).flushdb()
    except redis.RedisError:
        pytest.skip("no Redis at 127.0.0.1:6379")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = _limited("sqlite", tmp_path / "a", REDIS_URL=url)
    assert first.test_client().post("/v1/matches", json=PLAYERS).status_code == 201
    assert list(redis.Redis.from_url(url).scan_iter(match="*/basra/*"))
    second = _limited("sqlite", tmp_path / "b", REDIS_URL=url)
    statuses = [second.test_client().post("/v1/matches", json=PLAYERS).status_code
                for _ in range(3)]
    assert statuses == [201, 201, 429]
    redis.Redis.from_url(url).flushdb()


def test_with_limits_off_nothing_is_counted_or_checked(
    backend: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """BASRA_RATE_LIMITS=off: past every budget, no 429 and no rate-limit headers, and
    Flask-Limiter is not even asked (its check worked out, every request, that no limit
    applied)."""
    app = make_app(backend, tmp_path, BASRA_RATE_LIMITS="off", BASRA_LIMIT_CREATES="1/minute")

    def asked(*args: object, **kwargs: object) -> None:
        raise AssertionError("the limiter was asked with limits off")

    monkeypatch.setattr(limits.limiter, "_check_request_limit", asked)
    client = app.test_client()
    answers = [client.post("/v1/matches", json=PLAYERS) for _ in range(3)]
    assert [a.status_code for a in answers] == [201, 201, 201]
    assert not [k for a in answers for k, _ in a.headers.items() if k.startswith("X-RateLimit")]
    assert client.get(f"/v1/matches/{answers[0].get_json()['id']}").status_code == 200


def test_a_budgeted_request_asks_the_limiter_once(
    backend: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With limits on, a move is checked against its budget once, by its route: not again
    before dispatch for application-wide limits, of which there are none."""
    checks: list[bool] = []
    check = limits.limiter._check_request_limit

    def counted(self: object, callable_name: str | None = None,
                in_middleware: bool = True) -> None:
        checks.append(in_middleware)
        check(callable_name=callable_name, in_middleware=in_middleware)

    # set before the app exists, so a before-request hook would be this bound method too
    monkeypatch.setattr(limits.limiter, "_check_request_limit",
                        types.MethodType(counted, limits.limiter))
    app = _limited(backend, tmp_path)
    client = app.test_client()
    created = client.post("/v1/matches", json=PLAYERS).get_json()
    seat = created["state"]["turn"]
    checks.clear()
    hand = client.get(f"/v1/matches/{created['id']}", headers=auth(tokens(created)[seat]))
    move = client.post(f"/v1/matches/{created['id']}/moves",
                       json={"card": hand.get_json()["hand"][0]},
                       headers=auth(tokens(created)[seat]))
    assert move.status_code == 201, move.get_json()
    assert checks == [False, False]  # the read's and the move's, each by its decorator


def _timed(client: FlaskClient, method: str, path: str, **kwargs: object) -> tuple[int, float]:
    started = time.monotonic()
    answer = client.open(path, method=method, **kwargs)
    return answer.status_code, time.monotonic() - started


@pytest.mark.process
@pytest.mark.parametrize("failure", ["stopped", "frozen"])
def test_a_stopped_or_frozen_redis_makes_limits_per_process_not_errors(
    failure: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Redis is optional at run time: stopped or frozen (SIGSTOP), every budgeted request
    still answers (no 500, no hang past Redis's short timeouts), the budgets go on being
    spent in this process's memory, and /readyz says so; Redis back, it counts again."""
    # the limiter is one per process, as in production: a store another test's app saw
    # die is not this one's
    monkeypatch.setattr(limits.limiter, "_storage_dead", False)
    with own_redis() as server:
        app = _limited("sqlite", tmp_path, REDIS_URL=server.url)
        client = app.test_client()
        assert client.get("/readyz").get_json() == {"status": "ready", "rate_limits": "redis"}
        assert client.post("/v1/matches", json=PLAYERS).status_code == 201
        server.freeze() if failure == "frozen" else server.proc.kill()
        timed = [_timed(client, "POST", "/v1/matches", json=PLAYERS) for _ in range(4)]
        # counted in memory from then on: a budget of its own, spent as before
        assert [status for status, _ in timed] == [201, 201, 201, 429]
        assert max(seconds for _, seconds in timed) < 2.0
        ready = client.get("/readyz")
        assert ready.status_code == 200
        assert ready.get_json() == {"status": "ready", "rate_limits": "memory"}
        status, seconds = _timed(client, "GET", "/v1/matches")
        assert status == 200 and seconds < 2.0
        if failure == "frozen":
            server.thaw()
            assert client.get("/readyz").get_json()["rate_limits"] == "redis"


def test_redis_lost_between_the_check_and_the_headers_is_no_500(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Redis dying after a request's budget was checked and before its X-RateLimit headers
    are read (the soak's Redis restart found it): the request still answers, without those
    headers, rather than a 500."""
    monkeypatch.setattr(limits.limiter, "_storage_dead", False)  # another test's store
    app = _limited("sqlite", tmp_path)
    client = app.test_client()
    assert client.post("/v1/matches", json=PLAYERS).status_code == 201

    calls = []

    def lost(*_args: object, **_kwargs: object) -> None:
        calls.append(1)
        raise redis.exceptions.ConnectionError("Connection refused")

    # every limiter of its kind: the one counting this app's budgets reads its window here
    monkeypatch.setattr(type(limits.limiter.limiter), "get_window_stats", lost)
    answer = client.post("/v1/matches", json=PLAYERS)
    assert calls and answer.status_code == 201
    assert answer.headers.get("X-RateLimit-Remaining") is None


def _play_against_the_computer(client: FlaskClient, created: dict) -> tuple[list[int], float]:
    """Play the person's seat (0) to the end as fast as the answers come, each move on the
    view the last answer gave (as /play does): every move's status, and the seconds."""
    token = tokens(created)[0]
    mine = client.get(f"/v1/matches/{created['id']}", headers=auth(token)).get_json()
    statuses: list[int] = []
    started = time.monotonic()
    while mine["status"] == "active":
        assert mine["turn"] == 0, mine
        answer = client.post(f"/v1/matches/{created['id']}/moves",
                             json=mine["legal_moves"][0], headers=auth(token))
        statuses.append(answer.status_code)
        if answer.status_code != 201:
            break
        mine = answer.get_json()["state"]
    return statuses, time.monotonic() - started


@pytest.mark.parametrize(("variant", "bots"), [
    ("egyptian-v2", ["expert"]),
    ("egyptian-4p", ["expert", "expert-search", "expert-2026"])])
def test_a_whole_game_against_the_experts_meets_no_429_under_the_defaults(
        backend: str, tmp_path: Path, variant: str, bots: list[str]) -> None:
    """Rate limits on, every budget at its default: a person playing the experts as fast
    as the answers come (searches made short, so faster than a person could) plays the
    whole match with no 429: the match covers its bots' replies (the expensive budget, 30
    a minute, ran out after 30 of them before)."""
    app = make_app(backend, tmp_path, BASRA_RATE_LIMITS="on", BASRA_BOT_CPU_MS=5,
                   BASRA_BOT_PROCESSES=0)
    client = app.test_client()
    created = client.post("/v1/matches", json={
        "variant": variant, "players": [{"name": "a"}, *({"bot": b} for b in bots)]})
    assert created.status_code == 201, created.get_json()
    statuses, _ = _play_against_the_computer(client, created.get_json())
    # past the 30 searches the expensive budget held: each move is answered by every bot
    assert len(statuses) * len(bots) > 40 and set(statuses) == {201}, statuses[-3:]


def test_a_flood_of_searches_is_still_limited(backend: str, tmp_path: Path) -> None:
    """Under the default budgets, searches nobody's move asked for still run out: the 31st
    expert hint in a minute is a 429. And the searches a match covers spend the mover's
    ``moves`` budget, so moving in many matches against experts at once is bounded too:
    with 8 moves a minute, a move and its three experts' replies spend 4."""
    app = make_app(backend, tmp_path, BASRA_RATE_LIMITS="on", BASRA_BOT_CPU_MS=5,
                   BASRA_BOT_PROCESSES=0)
    client = app.test_client()
    created = client.post("/v1/matches", json=PLAYERS).get_json()
    seat = created["state"]["turn"]
    url = f"/v1/matches/{created['id']}/hint?level=expert"
    hints = [client.get(url, headers=auth(tokens(created)[seat])).status_code
             for _ in range(31)]
    assert hints == [200] * 30 + [429]

    (tmp_path / "moves").mkdir()
    app = make_app(backend, tmp_path / "moves", BASRA_RATE_LIMITS="on", BASRA_BOT_CPU_MS=5,
                   BASRA_BOT_PROCESSES=0, BASRA_LIMIT_MOVES="8/minute")
    client = app.test_client()
    four = {"variant": "egyptian-4p", "players": [{"name": "a"}] + [{"bot": "expert"}] * 3}
    matches = [client.post("/v1/matches", json=four).get_json() for _ in range(3)]
    statuses = []
    for created in matches:  # one move in each: each replied to by three experts
        token = tokens(created)[0]
        mine = client.get(f"/v1/matches/{created['id']}", headers=auth(token)).get_json()
        statuses.append(client.post(f"/v1/matches/{created['id']}/moves",
                                    json=mine["legal_moves"][0], headers=auth(token)).status_code)
    assert statuses == [201, 201, 429]
