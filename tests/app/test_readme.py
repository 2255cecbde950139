"""The docs' curl walk-through and the README's taste of the API, run as printed against a
live server."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.servers import ROOT, gunicorn, request

pytestmark = [pytest.mark.process, pytest.mark.long]  # processes; first: 30 s or more


def shell_block(page: str, heading: str) -> str:
    """The first shell block under ``heading`` of ``page``, verbatim."""
    text = (ROOT / page).read_text()
    assert heading + "\n" in text, f"{page} has no {heading!r}"
    match = re.search(r"```sh\n(.*?)```", text.split(heading + "\n", 1)[1], re.S)
    assert match, f"{page} has no shell block under {heading!r}"
    return match.group(1)


def walk_through() -> str:
    """The shell block under "A whole match with curl" of the front-end guide."""
    return shell_block("docs/front-ends.md", "## A whole match with curl")


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> str:
    return f"sqlite:///{tmp_path_factory.mktemp('readme') / 'basra.sqlite3'}"


@pytest.fixture(scope="module")
def server(database: str) -> Iterator[str]:
    with gunicorn(database, workers=2) as base:
        yield base


def test_the_curl_walk_through_plays_a_whole_match(server: str, tmp_path: Path) -> None:
    """Every step answers as the README says: the first card is one from alice's hand, the
    long poll wakes on bob's move, the match ends, the seed matches the commitment."""
    for tool in ("curl", "jq", "xxd", "sha256sum"):
        assert shutil.which(tool), f"{tool} is needed (.ci/run installs it)"
    started = time.monotonic()
    run = subprocess.run(["bash", "-euo", "pipefail", "-c", walk_through()], cwd=tmp_path,
                         env={**os.environ, "API": server}, capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    first_view, alice_move, bob_move, woken = (json.loads(line) for line in lines[:4])
    assert first_view["turn"] == 0 and len(first_view["hand"]) == 4
    assert alice_move is not None and alice_move["seat"] == 0
    assert alice_move["card"] in first_view["hand"]
    assert bob_move is not None and bob_move["seat"] == 1
    # alice's long poll answered with bob's move (not a 304 after 25 s)
    assert woken["version"] == 2 and woken["last_move"] == bob_move
    end, log, digest = json.loads(lines[-3]), json.loads(lines[-2]), lines[-1]
    assert end["status"] == "finished" and end["winner"] in (0, 1) and end["rounds"] >= 1
    assert log["seed"] and digest == log["commitment"]
    assert time.monotonic() - started < 300


def test_the_front_page_taste_plays_a_move_against_the_computer(server: str,
                                                                 tmp_path: Path) -> None:
    """The README's taste of the API: alice's first view, then her move with the expert's
    reply in the same answer."""
    block = shell_block("README.md", "## A taste of the API")
    block = block.replace("API=http://127.0.0.1:8000\n", "")  # the test server's address
    run = subprocess.run(["bash", "-euo", "pipefail", "-c", block], cwd=tmp_path,
                         env={**os.environ, "API": server}, capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    view, answer = (json.loads(line) for line in run.stdout.splitlines())
    assert len(view["hand"]) == 4 and view["turn"] == 0  # a leading bot has played
    assert answer["move"]["seat"] == 0 and answer["move"]["card"] in view["hand"]
    assert answer["replies"] and all(r["seat"] == 1 for r in answer["replies"])


def test_the_players_walk_through_meets_at_rated_quick_play(server: str, database: str,
                                                            tmp_path: Path) -> None:
    """The players' guide as printed, with a server key made by `basra keys create`: both
    players' tokens alone seat them at one rated table, Ana's stream says it started and
    that it is her turn, her move is taken and Bo sees it."""
    made = subprocess.run([sys.executable, "-m", "service.cli", "keys", "create", "studio"],
                          env={**os.environ, "DATABASE_URL": database}, cwd=ROOT, check=True,
                          capture_output=True, text=True).stdout
    key = next(word for word in made.split() if word.startswith("bk_"))
    block = shell_block("docs/players.md", "## A player's side with curl")
    run = subprocess.run(["bash", "-euo", "pipefail", "-c", block], cwd=tmp_path,
                         env={**os.environ, "API": server, "SERVER_KEY": key},
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    ana, bo, *events, move, bo_view = run.stdout.splitlines()
    ana, bo, move, bo_view = (json.loads(line) for line in (ana, bo, move, bo_view))
    # one table: Ana waited at it in seat 0, Bo's call filled it
    assert ana == {"id": bo["id"], "seat": 0, "status": "waiting"}
    assert bo == {"id": ana["id"], "seat": 1, "status": "active"}
    assert events == ["event: match.started", "event: match.turn"]
    assert move is not None and move["seat"] == 0  # the answer of an accepted move
    assert bo_view == {"turn": 1, "last_move": move}
    status, rated, _ = request(server, "GET", f"/v1/matches/{ana['id']}",
                               headers={"X-API-Key": key})
    assert status == 200 and rated["rated"] is True
    assert [seat["player_id"] for seat in rated["seats"]] == ["u-17", "u-18"]
