"""Which build of the engine runs: the mypyc build that ``make install`` compiles into
``build/compiled`` when a C compiler is there, or this folder's pure Python.

The compiled build holds only extension modules (the compiled engine modules and
mypyc's shared library); :func:`prefer_compiled` puts its folder in front of the
engine package's path, so those modules load from it and the rest from here. It is
used only while it matches the sources it was compiled from (a digest written at build
time): after an edit to the engine, the pure Python runs until the next ``make``.
``BASRA_ENGINE_BUILD=pure`` asks for pure Python; ``BASRA_ENGINE_BUILD=DIR`` for the
build in ``DIR``.
"""

from __future__ import annotations

import hashlib
import os
import sys
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT = HERE.parents[1] / "build" / "compiled"
DIGEST = "SOURCES"
"""The file in a build that names the digest of the sources it was compiled from."""

description = "pure Python"
"""Which build runs, in words (``basra --version``, ``basra simulate``)."""


def sources_digest(folder: Path = HERE) -> str:
    """SHA-256 over the engine's Python sources (its subpackages' too), by path and
    content."""
    digest = hashlib.sha256()
    for source in sorted(folder.rglob("*.py")):
        name = source.relative_to(folder).as_posix()
        digest.update(name.encode() + b"\0" + source.read_bytes() + b"\0")
    return digest.hexdigest()


_chosen: list[Path | None] = []
"""The build's folder of engine modules once chosen (None: pure Python)."""


def _choose() -> Path | None:
    """The compiled build's engine folder when it is there and current, else None (and
    :data:`description` saying which runs, and why)."""
    global description
    asked = os.environ.get("BASRA_ENGINE_BUILD", "")
    if asked == "pure":
        description = "pure Python (BASRA_ENGINE_BUILD=pure)"
        return None
    build = Path(asked) if asked else DEFAULT
    engine = build / "service" / "engine"
    try:
        built_from = (build / DIGEST).read_text().strip()
    except OSError:
        description = "pure Python (no compiled build: `make install` makes one with a C compiler)"
        return None
    if built_from != sources_digest():
        description = "pure Python (the compiled build is older than the sources: `make compiled`)"
        return None
    if not any((engine / f"board{suffix}").is_file() for suffix in EXTENSION_SUFFIXES):
        description = "pure Python (the compiled build is for another Python: `make compiled`)"
        return None
    if str(build) not in sys.path:
        sys.path.append(str(build))  # mypyc's shared library is a top-level module
    description = f"compiled with mypyc ({build})"
    return engine


def prefer_compiled(path: list[str], package: str = "") -> list[str]:
    """The ``__path__`` of the engine package (or of its subpackage ``package``), the
    compiled build's folder first when it is there and current. Called by each package
    before it imports its modules."""
    if not _chosen:
        _chosen.append(_choose())
    engine = _chosen[0]
    if engine is None:
        return path
    return [str(engine / package if package else engine), *path]


if __name__ == "__main__":  # the digest a new build records (the Makefile's `compiled`)
    print(sources_digest())
