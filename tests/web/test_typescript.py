"""A TypeScript client generated the usual way reads the contract as written: openapi-typescript
(default options) over openapi.yaml, then ``tsc --strict`` over a small client
(``tests/web/typescript/``) whose minimal bodies must pass and whose refused ones must fail."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.process  # starts processes: the process stage

HERE = Path(__file__).resolve().parent / "typescript"
ROOT = HERE.parents[2]
TOOLS = ROOT / "build" / "typescript"
"""Where the pinned npm tools are installed once (npm's own cache does the rest)."""


def _tools() -> Path:
    """The folder holding openapi-typescript and tsc at the versions package.json pins."""
    npm = shutil.which("npm")
    if npm is None:
        pytest.fail("npm is needed (make system installs node and npm)")
    wanted = (HERE / "package.json").read_text()
    stamp = TOOLS / "package.json"
    if not (stamp.exists() and stamp.read_text() == wanted
            and (TOOLS / "node_modules" / ".bin" / "tsc").exists()):
        TOOLS.mkdir(parents=True, exist_ok=True)
        stamp.write_text(wanted)
        subprocess.run([npm, "install", "--no-audit", "--no-fund", "--loglevel=error"],
                       cwd=TOOLS, check=True, capture_output=True, timeout=300)
    return TOOLS / "node_modules" / ".bin"


def test_a_generated_typescript_client_type_checks(tmp_path: Path) -> None:
    """``{"players": [{"name": "ana"}, {"bot": "greedy"}]}`` and ``{"card": "8S"}`` are
    valid bodies as generated; a body without players or card, or with a number for a
    card, is a type error; the stream's events and the webhooks' messages have types."""
    bin_ = _tools()
    for name in ("client.ts", "refused.ts", "tsconfig.json"):
        shutil.copy(HERE / name, tmp_path / name)
    subprocess.run([str(bin_ / "openapi-typescript"), str(ROOT / "openapi.yaml"), "-o",
                    str(tmp_path / "api.d.ts")], check=True, capture_output=True, timeout=120)
    checked = subprocess.run([str(bin_ / "tsc"), "-p", str(tmp_path)], capture_output=True,
                             text=True, timeout=300)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    pinned = json.loads((HERE / "package.json").read_text())["devDependencies"]
    assert pinned["openapi-typescript"].startswith("7.")
