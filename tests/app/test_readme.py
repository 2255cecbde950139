"""The README's curl walk-through, run as printed against a live server."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.servers import ROOT, gunicorn


def walk_through() -> str:
    """The shell block under "A whole match with curl", verbatim."""
    readme = (ROOT / "README.md").read_text()
    section = readme.split("### A whole match with curl\n", 1)[1]
    match = re.search(r"```sh\n(.*?)```", section, re.S)
    assert match, "the README has no walk-through block"
    return match.group(1)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("readme")
    with gunicorn(f"sqlite:///{folder / 'basra.sqlite3'}", workers=2) as base:
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
