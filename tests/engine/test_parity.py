"""The compiled engine and the pure Python play the same matches: the digest of
:mod:`tests.engine.parity` (every variant's positions, legal moves, snapshots and each
ladder level's choice, a simulated run) is the same from both builds. ``make test`` runs
this in place of every engine test run twice; ``make test-pure`` (and CI) still runs
them all on the pure Python."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from service.engine import build
from tests.servers import ROOT

pytestmark = pytest.mark.process  # two Python processes, one a build


def _digest(which: str) -> dict[str, object]:
    env = {**os.environ, "BASRA_ENGINE_BUILD": which}
    if which == "":
        env.pop("BASRA_ENGINE_BUILD")
    ran = subprocess.run([sys.executable, "-m", "tests.engine.parity"], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=300)
    assert ran.returncode == 0, ran.stderr[-3000:]
    return json.loads(ran.stdout.strip().splitlines()[-1])


def test_the_compiled_and_the_pure_engine_play_the_same_matches() -> None:
    try:
        current = (build.DEFAULT / build.DIGEST).read_text().strip() == build.sources_digest()
    except OSError:
        current = False
    if not current:  # no C compiler: the pure Python is all there is
        pytest.skip("no current compiled build to compare with (`make compiled`)")
    compiled, pure = _digest(""), _digest("pure")
    assert str(compiled["build"]).startswith("compiled"), compiled
    assert str(pure["build"]).startswith("pure Python"), pure
    assert compiled["positions"] == pure["positions"] and int(pure["positions"]) > 1000
    assert compiled["digest"] == pure["digest"], (compiled, pure)
