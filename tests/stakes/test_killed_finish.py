"""A process killed in the middle of a staked finish (issue 57, Done means): the result
and its settlement commit together or not at all. A child process resigns a seat of a
staked match and is killed with SIGKILL once the finish's statement has run but before
it commits (on PostgreSQL the one statement that saves the match with its settlement;
on SQLite after the settlement's transfers are inserted, its balances not yet), and
once it has committed: killed before, the match goes on and no coin has moved, and a
finish afterwards settles it once; killed after, both are there."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from service.coins import accounts
from tests.client import auth, tokens, view
from tests.conftest import make_app
from tests.servers import ROOT, process_stage
from tests.stakes.conftest import balance, currency, grant, holds, staked, transfers, wallet

pytestmark = [pytest.mark.process, pytest.mark.usefixtures("ledger_checked")]


def _killed_at(url: str, match_id: str, token: str, point: str) -> None:
    """Run the finisher child until it stops at ``point``, then kill it with -9."""
    process_stage()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "BASRA_ACCESS_LOG": ""}
    child = subprocess.Popen([sys.executable, "-m", "tests.stakes.finisher", url, match_id,
                              token, point], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True, start_new_session=True)
    try:
        assert child.stdout is not None
        line = child.stdout.readline().strip()
        assert line == "READY", f"the finisher said {line!r}"
    finally:
        os.killpg(child.pid, signal.SIGKILL)
        child.wait(10)


@pytest.mark.parametrize("where", ["sqlite", "postgres"])
def test_a_finish_killed_before_its_commit_leaves_neither_result_nor_settlement(
        where: str, tmp_path: Path) -> None:
    app = make_app(where, tmp_path)
    client = app.test_client()
    currency(app)
    grant(app, "ana", 50)
    grant(app, "bo", 50)
    match = staked(client, 50, "ana", "bo").get_json()
    _killed_at(app.config["SQLALCHEMY_DATABASE_URI"], match["id"], tokens(match)[1], "written")
    state = view(client, match["id"])
    assert state["status"] == "active" and state["version"] == 0
    assert wallet(app, "ana", "bo") == [0, 0]
    assert holds(app, match["id"]) == {"ana": "held", "bo": "held"}
    assert balance(app, accounts.table(match["id"])) == 100
    assert sorted(t[0] for t in transfers(app, match["id"])) == ["hold", "hold"]
    r = client.post(f"/v1/matches/{match['id']}/resign", headers=auth(tokens(match)[1]))
    assert r.status_code == 200 and r.get_json()["state"]["winner"] == 0
    assert wallet(app, "ana", "bo") == [100, 0]
    assert holds(app, match["id"]) == {"ana": "settled", "bo": "settled"}


@pytest.mark.parametrize("where", ["sqlite", "postgres"])
def test_a_finish_killed_after_its_commit_keeps_both(where: str, tmp_path: Path) -> None:
    app = make_app(where, tmp_path)
    client = app.test_client()
    currency(app)
    grant(app, "ana", 50)
    grant(app, "bo", 50)
    match = staked(client, 50, "ana", "bo").get_json()
    _killed_at(app.config["SQLALCHEMY_DATABASE_URI"], match["id"], tokens(match)[1],
               "committed")
    state = view(client, match["id"])
    assert state["status"] == "finished" and state["winner"] == 0
    assert wallet(app, "ana", "bo") == [100, 0]
    assert holds(app, match["id"]) == {"ana": "settled", "bo": "settled"}
    again = client.post(f"/v1/matches/{match['id']}/resign", headers=auth(tokens(match)[1]))
    assert again.status_code == 409 and wallet(app, "ana", "bo") == [100, 0]
