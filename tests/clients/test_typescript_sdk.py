"""The TypeScript SDK (``clients/typescript``) built as its README says (types generated
from openapi.yaml, then ``tsc``) and its Node tests run against a live server: a whole
match played through it, the match and player streams reconnecting across cut and hung
connections without losing or repeating an event, ETag polls seeing 304, a move retried
with its Idempotency-Key applied once, a create whose answer was lost retried with its
key making one match, refusals as typed problems with their reason, and two players'
coins at a staked quick-play table (held, settled, in their wallets and ledgers)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.servers import ROOT, gunicorn

pytestmark = [pytest.mark.process, pytest.mark.long]  # processes; first: 30 s or more

SDK = ROOT / "clients" / "typescript"
WORK = ROOT / "build" / "typescript-sdk"
"""Where the SDK is copied, installed (``npm ci``, once per package-lock.json) and built:
two folders below the root, as clients/typescript is, so ``npm run generate`` reads the
same ../../openapi.yaml; the source tree gets no node_modules or dist from a test run."""
SOURCES = ("package.json", "package-lock.json", "tsconfig.json", "tsconfig.test.json",
           "src", "test")
NODE_TESTS = 14
"""The tests in clients/typescript/test/*.test.ts: every one must run and pass."""


def _npm() -> str:
    npm = shutil.which("npm")
    if npm is None:
        pytest.fail("npm is needed (make system installs node and npm)")
    return npm


def _workspace(npm: str) -> Path:
    """A fresh copy of the SDK's sources in WORK, its packages installed as locked."""
    WORK.mkdir(parents=True, exist_ok=True)
    for name in ("src", "test", "dist", "dist-test"):
        shutil.rmtree(WORK / name, ignore_errors=True)
    for name in SOURCES:
        source = SDK / name
        if source.is_dir():  # without a generated api.d.ts of the source tree's own
            shutil.copytree(source, WORK / name, ignore=shutil.ignore_patterns("api.d.ts"))
        else:
            shutil.copy(source, WORK / name)
    lock = (SDK / "package-lock.json").read_text()
    stamp = WORK / "node_modules" / ".installed-from-lock"
    if not (stamp.exists() and stamp.read_text() == lock
            and (WORK / "node_modules" / ".bin" / "tsc").exists()):
        installed = subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
                                   cwd=WORK, capture_output=True, text=True, timeout=300)
        assert installed.returncode == 0, installed.stdout + installed.stderr
        stamp.write_text(lock)
    return WORK


def test_the_typescript_sdk_builds_and_plays_against_a_live_server(tmp_path: Path) -> None:
    """``npm run build`` generates the types and compiles the SDK; ``npm test`` passes
    every Node test against gunicorn on SQLite (heartbeats every second, so a hung
    stream is noticed within the tests' idle timeout of 3 s)."""
    npm = _npm()
    work = _workspace(npm)
    built = subprocess.run([npm, "run", "build"], cwd=work, capture_output=True, text=True,
                           timeout=300)
    assert built.returncode == 0, built.stdout + built.stderr
    for name in ("index.js", "index.d.ts", "client.js", "streams.js", "api.d.ts"):
        assert (work / "dist" / name).exists(), name
    assert "export interface paths" in (work / "src" / "api.d.ts").read_text()

    with gunicorn(f"sqlite:///{tmp_path / 'basra.sqlite3'}", workers=2,
                  BASRA_HEARTBEAT_SECONDS="1", BASRA_POLL_INTERVAL="0.05") as base:
        ran = subprocess.run([npm, "test"], cwd=work, env={**os.environ, "BASRA_URL": base},
                             capture_output=True, text=True, timeout=300)
    report = ran.stdout[-30_000:] + ran.stderr[-5_000:]
    assert ran.returncode == 0, report
    passed = re.search(r"^(?:#|ℹ) pass (\d+)$", ran.stdout, re.M)
    failed = re.search(r"^(?:#|ℹ) fail (\d+)$", ran.stdout, re.M)
    assert passed and failed, report
    assert (int(passed.group(1)), int(failed.group(1))) == (NODE_TESTS, 0), report
