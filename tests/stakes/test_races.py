"""Every settlement exactly once: two instances racing the same staked finish, two voids
racing (and a void retried), a player racing two seats with coins for one. The match's
version guard saves a finish once; the settlement rides that save, so it is paid once.
Each test ends with the ledger's checker (a table paid twice is a breach)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service import create_app
from service.coins import accounts
from service.matches import moving
from service.storage.db import db
from tests.client import auth, play, tokens, view
from tests.conftest import BASE_CONFIG, PG_SETTINGS
from tests.stakes.conftest import balance, currency, grant, staked, token, transfers, wallet

pytestmark = pytest.mark.usefixtures("ledger_checked")


@pytest.fixture
def other(app: Flask) -> Iterator[Flask]:
    """A second instance of the service on the same database (its own pool)."""
    url = app.config["SQLALCHEMY_DATABASE_URI"]
    second = create_app({**BASE_CONFIG, "SQLALCHEMY_DATABASE_URI": url,
                         **(PG_SETTINGS if url.startswith("postgresql") else {})})
    yield second
    with second.app_context():
        db.engine.dispose()


def _together(*calls: Callable[[], Any]) -> list[Any]:
    """Run the calls at once, each in a thread; their results in order."""
    results: list[Any] = [None] * len(calls)

    def run(i: int) -> None:
        results[i] = calls[i]()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return results


def _to_last_move(client: FlaskClient, match: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """Play a one-deal match up to its last move: the seat to play and that move."""
    toks = tokens(match)
    while True:
        state = view(client, match["id"])
        seat = state["turn"]
        mine = view(client, match["id"], toks[seat])
        move = mine["legal_moves"][0]
        if state["stock_count"] == 0 and sum(state["hand_counts"]) == 1:
            return seat, move
        assert play(client, match["id"], toks[seat], move["card"],
                    move["capture"]).status_code == 201


def test_two_instances_racing_the_same_finish_settle_it_once(
        app: Flask, other: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    """The last move sent to two instances at once, both worked out on the same
    version before either saves: one finishes the match and settles the table, the other
    is refused, and the pot is paid once."""
    client = app.test_client()
    currency(app)
    grant(app, "ana", 100)
    grant(app, "bo", 100)
    match = staked(client, 40, "ana", "bo", rules={"max_rounds": 1}).get_json()
    seat, move = _to_last_move(client, match)
    both = threading.Barrier(2)
    finish = moving._finish

    def raced(*args: Any, **kwargs: Any) -> Any:
        both.wait(10)  # each worked its finish out on the same version
        return finish(*args, **kwargs)

    monkeypatch.setattr(moving, "_finish", raced)
    token_ = tokens(match)[seat]
    answers = _together(*(lambda c=c: play(c, match["id"], token_, move["card"],
                                           move["capture"]).status_code
                          for c in (app.test_client(), other.test_client())))
    assert sorted(answers)[0] == 201 and sorted(answers)[1] in (409, 412), answers
    final = view(client, match["id"])
    assert final["status"] == "finished"
    kinds = [t[0] for t in transfers(app, match["id"])]
    if final["draw"]:
        assert kinds.count("release") == 2 and wallet(app, "ana", "bo") == [100, 100]
    else:
        assert kinds.count("pot") == 1
        assert sorted(wallet(app, "ana", "bo")) == [60, 140]
    assert balance(app, accounts.table(match["id"])) == 0


def test_two_voids_racing_reverse_the_settlement_once(app: Flask, other: Flask) -> None:
    """A void sent to two instances at once: one voids (and reverses the settlement), the
    other is refused with 409 match_voided; a retry later is refused too; the coins end
    where they were before the match."""
    client = app.test_client()
    currency(app)
    grant(app, "ana", 30)
    grant(app, "bo", 30)
    match = staked(client, 30, "ana", "bo").get_json()
    client.post(f"/v1/matches/{match['id']}/resign", headers=auth(tokens(match)[0]))
    assert wallet(app, "ana", "bo") == [0, 60]
    url = f"/v1/matches/{match['id']}/void"
    answers = _together(*(lambda c=c: c.post(url, json={"reason": "race"})
                          for c in (app.test_client(), other.test_client())))
    statuses = sorted(r.status_code for r in answers)
    assert statuses == [200, 409], [r.get_json() for r in answers]
    assert [r.get_json()["reason"] for r in answers if r.status_code == 409] == ["match_voided"]
    assert wallet(app, "ana", "bo") == [30, 30]
    retry = client.post(url, json={"reason": "retry"})
    assert retry.status_code == 409 and wallet(app, "ana", "bo") == [30, 30]
    assert [t[0] for t in transfers(app, match["id"])].count("refund_pot") == 1


def test_a_player_racing_for_two_seats_with_coins_for_one_holds_one(
        app: Flask, other: Flask) -> None:
    """Two waiting staked tables, one player with coins for one stake joining both at
    once: one seat taken and held, the other refused (409 insufficient_funds) with no
    seat taken; never a balance below zero."""
    client = app.test_client()
    currency(app)
    for p in ("ana", "bo", "cy"):
        grant(app, p, 10)
    tables = [client.post("/v1/matches", json={
        "players": [{"name": p, "player_id": p}, {"open": True}],
        "stake": {"currency": "COINS", "amount": 10}}).get_json()["id"] for p in ("ana", "bo")]
    cy = token(client, "cy")
    answers = _together(*(lambda c=c, t=t: c.post(f"/v1/matches/{t}/join", headers=cy,
                                                  json={}).get_json()
                          for c, t in zip((app.test_client(), other.test_client()), tables,
                                          strict=True)))
    reasons = sorted(a.get("reason", "seated") for a in answers)
    assert reasons == ["insufficient_funds", "seated"], answers
    assert wallet(app, "cy") == [0]
    open_seats = [view(client, t)["seats"][1]["open"] for t in tables]
    assert sorted(open_seats) == [False, True]
