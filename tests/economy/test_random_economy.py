"""Thousands of economy operations in random order (issue 57, Done means): grants (and a
grant sent again with its Idempotency-Key) and coins taken back, staked tables made, finished, aborted, forfeited (a suspension) and
voided, tournaments with an entry fee created, joined, left, cancelled and played to
their end by the worker, each through the API as a front end sends it. After every step
the ledger's checker runs and the coins in players' wallets, escrows and the house are
exactly what the mint issued: nothing made or lost, whatever the order.

Hypothesis's stateful testing draws the operations from a fixed seed (``derandomize``),
so a failure is the same run again; it is not shrunk (the run would take minutes), the
steps that led to it are printed. The test fails too if the run never did one of the
operations (a change to the mix that starves one shows)."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)
from sqlalchemy import func, select, update

from service import worker
from service.coins import accounts, check, ledger
from service.coins.models import CoinAccount
from service.storage.base import utcnow
from service.storage.db import backend, db, transaction
from service.tenants import service as tenants
from service.tournaments.models import Tournament
from tests.client import auth
from tests.conftest import api_key

PLAYERS = [f"eco{n}" for n in range(8)]
CODE = "COINS"
EXAMPLES = 16
"""Runs of the machine, each a front end of its own (swarm testing enables a different
mix of operations in each), about 1,500 steps and 2,000 operations in all."""
STEPS = 100
"""The most steps a run takes (hypothesis draws how many, averaging close to it)."""
RUN = settings(max_examples=EXAMPLES, stateful_step_count=STEPS, derandomize=True,
               database=None, deadline=None, phases=[Phase.generate],
               suppress_health_check=list(HealthCheck))

player = st.sampled_from(PLAYERS)
amount = st.integers(1, 120)
index = st.integers(0, 10**6)
"""A pick among what is there (taken modulo its length)."""


class FrontEnd:
    """A front end of its own for each run (its server key on every request), so the
    checker after each step reads that run's ledger, not every run's before it."""

    def __init__(self, client: FlaskClient, key: dict[str, str]) -> None:
        self.client, self.key = client, key

    def _send(self, method: str, path: str, headers: dict[str, str] | None = None,
              **body: Any) -> Any:
        return self.client.open(path, method=method, headers={**self.key, **(headers or {})},
                                **body)

    def get(self, path: str, **kw: Any) -> Any:
        return self._send("GET", path, **kw)

    def post(self, path: str, **kw: Any) -> Any:
        return self._send("POST", path, **kw)

    def put(self, path: str, **kw: Any) -> Any:
        return self._send("PUT", path, **kw)

    def delete(self, path: str, **kw: Any) -> Any:
        return self._send("DELETE", path, **kw)


class Economy(RuleBasedStateMachine):
    """A front end's economy driven through the API: what it sends, in random order."""

    app: Flask
    issued: list[int]
    """What the run's mint has issued so far (grants less what was taken back), and how
    many runs there were."""
    done: Counter[str]
    """How often each operation was answered with a change (what the run exercised)."""

    def __init__(self) -> None:
        super().__init__()
        self.issued[1] += 1
        name = f"economy-{self.issued[1]}"
        self.api = FrontEnd(self.app.test_client(), api_key(self.app, name))
        with self.app.app_context():
            self.tenant = tenants.tenant_pk(name)
        assert self.api.put(f"/v1/currencies/{CODE}", json={"name": "Coins"}).status_code \
            in (200, 201)
        for p in PLAYERS:  # each known to the front end, with some coins
            assert self.api.post(f"/v1/players/{p}/tokens", json={"name": p}).status_code == 201
            assert self._transfer(f"start-{p}", {"to": p, "amount": 100}).status_code == 201
        self.issued[0] = 100 * len(PLAYERS)
        self.playing: list[tuple[str, dict[int, str]]] = []
        """Staked matches that may be in play: id and each seat's token."""
        self.won: list[str] = []
        """Staked matches ended by a resignation, a void's candidates."""
        self.scheduled: list[str] = []
        self.running: list[str] = []
        self.keys = 0
        self.last_grant: tuple[str, dict[str, Any], str] | None = None

    def _answered(self, r: Any, operation: str, *refusals: int) -> bool:
        """Whether the request changed something; a refusal must be one of ``refusals``."""
        if r.status_code in (200, 201):
            self.done[operation] += 1
            return True
        assert r.status_code in refusals, (operation, r.status_code, r.get_json())
        self.done[f"{operation} refused"] += 1
        return False

    # --- the front end's coins ----------------------------------------------------------

    def _transfer(self, key: str, body: dict[str, Any]) -> Any:
        return self.api.post("/v1/transfers", headers={"Idempotency-Key": key},
                                json={"currency": CODE, "reason": "random", **body})

    @rule(who=player, coins=st.integers(1, 300))
    def grant(self, who: str, coins: int) -> None:
        self.keys += 1
        key = f"grant-{self.keys}"
        if self._answered(r := self._transfer(key, {"to": who, "amount": coins}), "grant"):
            self.issued[0] += coins
            self.last_grant = (key, {"to": who, "amount": coins}, r.get_json()["id"])

    @precondition(lambda self: self.last_grant is not None)
    @rule()
    def grant_retried(self) -> None:
        """The front end sends its last grant again (a lost answer): paid once."""
        assert self.last_grant is not None
        key, body, paid = self.last_grant
        r = self._transfer(key, body)
        assert r.status_code in (200, 201) and r.get_json()["id"] == paid, r.get_json()
        self.done["grant retried"] += 1

    @rule(who=player, coins=amount)
    def take_back(self, who: str, coins: int) -> None:
        self.keys += 1
        r = self._transfer(f"take-{self.keys}", {"from": who, "amount": coins})
        if self._answered(r, "take", 409):
            self.issued[0] -= coins

    # --- staked tables ------------------------------------------------------------------

    @rule(players=st.lists(player, min_size=2, max_size=2, unique=True), stake=amount)
    def stake(self, players: list[str], stake: int) -> None:
        r = self.api.post("/v1/matches", json={
            "players": [{"name": p, "player_id": p} for p in players],
            "stake": {"currency": CODE, "amount": stake}})
        # refused: short of coins, in debt, or suspended a moment ago
        if self._answered(r, "stake", 403, 409):
            body = r.get_json()
            self.playing.append((body["id"], {s["seat"]: s["token"] for s in body["seats"]}))

    @precondition(lambda self: self.playing)
    @rule(pick=index, loser=st.integers(0, 1))
    def finish(self, pick: int, loser: int) -> None:
        match_id, tokens = self.playing.pop(pick % len(self.playing))
        r = self.api.post(f"/v1/matches/{match_id}/resign", headers=auth(tokens[loser]))
        if self._answered(r, "finish", 403, 409):  # forfeited meanwhile
            self.won.append(match_id)

    @precondition(lambda self: self.playing)
    @rule(pick=index)
    def abort(self, pick: int) -> None:
        match_id, tokens = self.playing.pop(pick % len(self.playing))
        r = self.api.post(f"/v1/matches/{match_id}/abort", headers=auth(tokens[0]))
        self._answered(r, "abort", 403, 409)

    @precondition(lambda self: self.won)
    @rule(pick=index)
    def void(self, pick: int) -> None:
        match_id = self.won.pop(pick % len(self.won))
        r = self.api.post(f"/v1/matches/{match_id}/void", json={"reason": "collusion"})
        self._answered(r, "void")

    @precondition(lambda self: self.playing or self.scheduled or self.running)
    @rule(who=player)
    def suspended_with_forfeit(self, who: str) -> None:
        """A suspension that forfeits the player's matches and withdraws them from every
        tournament, lifted at once."""
        r = self.api.put(f"/v1/players/{who}/suspension",
                            json={"reason": "cheating", "forfeit": True})
        if self._answered(r, "forfeit", 404):  # 404: never seen yet
            assert self.api.delete(f"/v1/players/{who}/suspension").status_code == 204

    # --- tournaments with an entry fee --------------------------------------------------

    @precondition(lambda self: len(self.scheduled) + len(self.running) < 5)
    @rule(fee=st.integers(1, 60), system=st.sampled_from(["swiss", "arena"]),
          prizes=st.sampled_from([[100], [50, 30, 20], [60, 40], [33, 33, 33], [70]]),
          entrants=st.lists(player, unique=True, max_size=len(PLAYERS)))
    def tournament(self, fee: int, system: str, prizes: list[int],
                   entrants: list[str]) -> None:
        """A tournament with an entry fee created, and some players joining it at once."""
        shape: dict[str, Any] = ({"rounds": 1} if system == "swiss"
                                 else {"duration_minutes": 5})
        r = self.api.post("/v1/tournaments", json={
            "name": "Random", "system": system, **shape, "min_players": 2,
            "starts_at": (datetime.now(UTC) + timedelta(hours=1)).isoformat(),
            "clock": {"move_seconds": 60, "timeout": "forfeit"},
            "entry_fee": {"currency": CODE, "amount": fee}, "prizes": prizes})
        assert self._answered(r, "tournament")
        self.scheduled.append(tid := r.get_json()["id"])
        for who in entrants:
            self._join(tid, who)

    def _any(self, pick: int) -> str:
        both = self.scheduled + self.running
        return both[pick % len(both)]

    @precondition(lambda self: self.scheduled or self.running)
    @rule(pick=index, who=player)
    def join(self, pick: int, who: str) -> None:
        self._join(self._any(pick), who)

    def _join(self, tid: str, who: str) -> None:
        r = self.api.post(f"/v1/tournaments/{tid}/join", json={"player_id": who})
        self._answered(r, "join", 403, 409)  # short of the fee, closed, suspended

    @precondition(lambda self: self.scheduled or self.running)
    @rule(pick=index, who=player)
    def withdraw(self, pick: int, who: str) -> None:
        r = self.api.post(f"/v1/tournaments/{self._any(pick)}/withdraw",
                             json={"player_id": who})
        self._answered(r, "withdraw", 403, 409)

    @precondition(lambda self: self.scheduled or self.running)
    @rule(pick=index)
    def cancel(self, pick: int) -> None:
        tid = self._any(pick)
        # 409: a worker's pass (another tournament's start) finished it meanwhile
        self._answered(self.api.post(f"/v1/tournaments/{tid}/cancel"), "cancel", 409)
        self._forget(tid)

    def _forget(self, tid: str) -> None:
        for kept in (self.scheduled, self.running):
            if tid in kept:
                kept.remove(tid)

    def _set(self, tid: str, **values: Any) -> None:
        with self.app.app_context(), transaction(write=True):
            db.session.execute(update(Tournament).where(Tournament.id == tid).values(**values))

    def _worker(self) -> None:
        with self.app.app_context():
            worker.run_once()

    @precondition(lambda self: self.scheduled)
    @rule(pick=index)
    def start(self, pick: int) -> None:
        """Its start comes: the worker starts it (or cancels it below its minimum)."""
        tid = self.scheduled.pop(pick % len(self.scheduled))
        self._set(tid, starts_at=utcnow())
        self._worker()
        status = self.api.get(f"/v1/tournaments/{tid}").get_json()["status"]
        self.done[f"start: {status}"] += 1
        if status == "running":
            self.running.append(tid)

    @precondition(lambda self: self.running)
    @rule(pick=index, game=index)
    def tournament_game(self, pick: int, game: int) -> None:
        """A game of a running tournament resigned by its second player."""
        playing = self._playing(self.running[pick % len(self.running)])
        if playing:
            self._resign(playing[game % len(playing)])

    def _playing(self, tid: str) -> list[dict[str, Any]]:
        t = self.api.get(f"/v1/tournaments/{tid}").get_json()
        games = [p for r in (t["rounds"] or []) for p in r["pairings"]] + (t["pairings"] or [])
        return [p for p in games if p["status"] == "playing"]

    def _resign(self, game: dict[str, Any]) -> None:
        loser = game["players"][1]
        r = self.api.post(f"/v1/players/{loser}/tokens", json={})
        if not self._answered(r, "token", 403):  # suspended a moment ago
            return
        r = self.api.post(f"/v1/matches/{game['match_id']}/resign",
                          headers=auth(r.get_json()["token"]))
        self._answered(r, "tournament game", 403, 409)

    @precondition(lambda self: self.running)
    @rule(pick=index)
    def end(self, pick: int) -> None:
        """Its end comes: a Swiss's last games resigned, an arena's end brought to now,
        then the worker's pass finishes it and pays the prizes."""
        tid = self.running[pick % len(self.running)]
        if self.api.get(f"/v1/tournaments/{tid}").get_json()["system"] == "arena":
            self._set(tid, ends_at=utcnow())
        else:
            for game in self._playing(tid):
                self._resign(game)
        self._worker()
        status = self.api.get(f"/v1/tournaments/{tid}").get_json()["status"]
        self.done[f"end: {status}"] += 1
        if status == "finished":
            self._forget(tid)

    def teardown(self) -> None:
        """The run's tournaments not over are cancelled (the front end holds at most
        20 at once; the next run starts afresh), their fees given back."""
        for tid in self.scheduled + self.running:
            self._answered(self.api.post(f"/v1/tournaments/{tid}/cancel"), "cancel", 409)
        self.scheduled, self.running = [], []
        self.nothing_made_or_lost()

    # --- after every step ---------------------------------------------------------------

    @invariant()
    def nothing_made_or_lost(self) -> None:
        with self.app.app_context():
            with transaction():  # the checker's reads and the sums on one snapshot
                if backend() == "postgresql":
                    db.session.connection(
                        execution_options={"isolation_level": "REPEATABLE READ"})
                breaches = check.check(self.tenant)
                held = db.session.execute(select(func.sum(CoinAccount.balance)).where(
                    CoinAccount.tenant_pk == self.tenant, CoinAccount.currency == CODE,
                    CoinAccount.account != accounts.MINT)).scalar_one()
                mint = ledger.balance(self.tenant, CODE, accounts.MINT)
            db.session.remove()
        assert not breaches, "\n".join(map(str, breaches))
        assert (held or 0) == self.issued[0] == -(mint or 0)


@pytest.mark.long  # handed out first: the core's tail is then short tests
@pytest.mark.usefixtures("ledger_checked")
def test_thousands_of_operations_in_random_order_make_and_lose_nothing(app: Flask) -> None:
    Economy.app = app
    Economy.issued = [0, 0]
    Economy.done = Counter()
    run_state_machine_as_test(Economy, settings=RUN)
    print(dict(Economy.done))
    for operation in ("grant", "grant retried", "take", "stake", "finish", "abort", "void",
                      "forfeit", "join", "withdraw", "cancel", "tournament game",
                      "end: finished"):
        assert Economy.done[operation] > 0, f"the run never did {operation!r}"
