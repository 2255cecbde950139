"""The database primary killed in the middle of staked finishes (issue 57, Done means),
in the Patroni test's set-up (tests/storage/test_failover.py: three nodes, synchronous
replication, the leader killed with SIGKILL): finishes run on many staked tables while
the primary dies; after the failover every table is either finished with its pot paid
once, or still in play with its stakes held (its result and its settlement committed
together or not at all), every finish acknowledged is there, a finish retried after the
failover settles once, and ``basra ledger check`` finds nothing on the new primary."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from typing import Any

import pytest
from sqlalchemy import func, select

from service import create_app
from service.coins import accounts, check, ledger
from service.coins import service as coins
from service.coins.enums import HoldStatus, TransferKind
from service.coins.models import CoinHold, CoinTransfer
from service.storage.base import utcnow
from service.storage.db import db, transaction
from service.tenants.models import LOCAL_TENANT
from tests.servers import ROOT, gunicorn, patroni_cluster, request

pytestmark = [pytest.mark.process, pytest.mark.long]

TABLES = 60
STAKE = 10
FINISHERS = 4


def _resign(base: str, match_id: str, token: str) -> int:
    """A seat resigns; the answer's status (0: the connection was cut)."""
    try:
        return request(base, "POST", f"/v1/matches/{match_id}/resign", token=token)[0]
    except OSError:
        return 0


def test_killing_the_primary_mid_finish_commits_each_result_with_its_settlement() -> None:
    with patroni_cluster() as pg, gunicorn(pg.url, workers=2) as base:
        app = create_app({"SQLALCHEMY_DATABASE_URI": pg.url, "BASRA_RATE_LIMITS": "off",
                          "BASRA_LISTEN": False})
        with app.app_context():
            coins.put_currency(LOCAL_TENANT, "COINS", "Coins")
            with transaction(write=True):
                ledger.post(LOCAL_TENANT, [
                    ledger.Transfer("COINS", accounts.MINT, accounts.player(f"k{n}"), STAKE,
                                    TransferKind.GRANT) for n in range(2 * TABLES)], utcnow())
        tables: list[tuple[str, str]] = []  # (match id, the loser's seat token)
        for n in range(TABLES):
            status, made, _ = request(base, "POST", "/v1/matches", {
                "players": [{"name": f"k{2 * n}", "player_id": f"k{2 * n}"},
                            {"name": f"k{2 * n + 1}", "player_id": f"k{2 * n + 1}"}],
                "stake": {"currency": "COINS", "amount": STAKE}})
            assert status == 201, made
            tables.append((made["id"], next(s["token"] for s in made["seats"] if s["seat"] == 1)))

        answers: dict[str, list[int]] = {match_id: [] for match_id, _ in tables}
        queue = list(tables)
        lock = threading.Lock()
        killed = threading.Event()
        sending: set[int] = set()
        """The finishers whose resignation is under way."""
        in_flight: list[str] = []
        """The tables whose resignation was under way when the primary was killed."""

        def finisher(me: int) -> None:
            """Resign tables one after another; each refused one is retried until it is
            answered."""
            while True:
                with lock:
                    if not queue:
                        return
                    match_id, token = queue.pop(0)
                deadline = time.monotonic() + 120
                while time.monotonic() < deadline:
                    with lock:
                        sending.add(me)
                        under_way = not killed.is_set()
                    status = _resign(base, match_id, token)
                    with lock:
                        sending.discard(me)
                        if under_way and killed.is_set():
                            in_flight.append(match_id)
                    answers[match_id].append(status)
                    if status in (200, 409):
                        break
                    time.sleep(0.2)  # 503 while no primary, or cut: again

        leader = pg.leader()
        threads = [threading.Thread(target=finisher, args=(n,)) for n in range(FINISHERS)]
        for t in threads:
            t.start()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:  # a quarter settled, and finishes under way
            with lock:
                if sum(200 in a for a in answers.values()) >= TABLES // 4 and sending:
                    killed.set()
                    break
            time.sleep(0.001)
        pg.kill(leader)
        for t in threads:
            t.join(180)
        assert not any(t.is_alive() for t in threads), f"finishes never came back\n{pg.tail()}"

        with app.app_context():
            db.engine.dispose()  # the pool's connections were to the dead primary
            breaches = check.run()
            with transaction():
                holds = dict(db.session.execute(
                    select(CoinHold.match_pk, func.count()).where(
                        CoinHold.status == HoldStatus.SETTLED).group_by(CoinHold.match_pk)
                ).all())
                pots = dict(db.session.execute(
                    select(CoinTransfer.match_pk, func.sum(CoinTransfer.amount)).where(
                        CoinTransfer.kind == TransferKind.POT).group_by(CoinTransfer.match_pk)
                ).all())
            db.engine.dispose()
        views: dict[str, Any] = {m: request(base, "GET", f"/v1/matches/{m}")[1]
                                 for m, _ in tables}
        cli = subprocess.run([sys.executable, "-m", "service.cli", "ledger", "check"],
                             cwd=ROOT, env={**os.environ, "DATABASE_URL": pg.url},
                             capture_output=True, text=True, timeout=120)

    print(f"under way at the kill: {in_flight}; answers other than one 200: "
          f"{ {m: a for m, a in answers.items() if a != [200]} }")
    assert not breaches, "\n".join(map(str, breaches))
    assert cli.returncode == 0, cli.stdout + cli.stderr
    assert in_flight, "the kill met no finish under way"
    for match_id, said in answers.items():
        assert said[-1] in (200, 409), (match_id, said)
        assert views[match_id]["status"] == "finished" and views[match_id]["winner"] == 0, \
            "every finish answered (at once or after the failover) is there"
    assert len(pots) == TABLES and set(pots.values()) == {2 * STAKE}, "each pot paid once"
    assert len(holds) == TABLES and set(holds.values()) == {2}
