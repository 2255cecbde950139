"""Which engine build runs: the mypyc build `make install` compiles when it matches the
sources, pure Python otherwise or when asked (`BASRA_ENGINE_BUILD=pure`, as `make
test-pure` runs the engine's tests); see ``service/engine/build.py``."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import service.engine.board
import service.engine.captures
import service.engine.sums
from service.engine import build
from tests.servers import ROOT


def _current_build_exists() -> bool:
    try:
        return (build.DEFAULT / build.DIGEST).read_text().strip() == build.sources_digest()
    except OSError:
        return False


def test_the_engine_under_test_is_the_build_asked_for() -> None:
    """A compiled run must not quietly test the pure engine, nor the other way round."""
    asked = os.environ.get("BASRA_ENGINE_BUILD", "")
    compiled = asked != "pure" and (bool(asked) or _current_build_exists())
    for module in (service.engine.board, service.engine.captures, service.engine.sums):
        assert module.__file__ is not None
        assert module.__file__.endswith(".py") != compiled, module.__file__
    assert build.description.startswith("compiled" if compiled else "pure Python")


def _which_loads(build_dir: Path) -> str:
    code = "import service.engine.board as m, service.engine.build as b; print(m.__file__); print(b.description)"
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, text=True,
                          capture_output=True,
                          env={**os.environ, "BASRA_ENGINE_BUILD": str(build_dir)}).stdout


@pytest.mark.process
def test_a_build_older_than_the_sources_is_not_used(tmp_path: Path) -> None:
    """A build whose recorded digest is not the sources' (an engine file edited since):
    the pure Python loads, and says why; the same build with the right digest loads."""
    if not _current_build_exists():
        # without a C compiler there is no build to age: the pure engine runs, and says so
        assert build.description.startswith("pure Python")
        return
    copy = tmp_path / "compiled"
    shutil.copytree(build.DEFAULT, copy)
    (copy / build.DIGEST).write_text("0" * 64)
    stale = _which_loads(copy)
    assert stale.splitlines()[0].endswith("board.py")
    assert "older than the sources" in stale
    (copy / build.DIGEST).write_text(build.sources_digest())
    assert not _which_loads(copy).splitlines()[0].endswith(".py")
