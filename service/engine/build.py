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
    """SHA-256 over the engine's Python sources, by name and content."""
    digest = hashlib.sha256()
    for source in sorted(folder.glob("*.py")):
        digest.update(source.name.encode() + b"\0" + source.read_bytes() + b"\0")
    return digest.hexdigest()


def prefer_compiled(path: list[str]) -> list[str]:
    """The engine package's ``__path__``, the compiled build's folder first when it is
    there and current (and :data:`description` saying which runs, and why). Called once,
    by the package before it imports its modules."""
    global description
    asked = os.environ.get("BASRA_ENGINE_BUILD", "")
    if asked == "pure":
        description = "pure Python (BASRA_ENGINE_BUILD=pure)"
        return path
    build = Path(asked) if asked else DEFAULT
    engine = build / "service" / "engine"
    try:
        built_from = (build / DIGEST).read_text().strip()
    except OSError:
        description = "pure Python (no compiled build: `make install` makes one with a C compiler)"
        return path
    if built_from != sources_digest():
        description = "pure Python (the compiled build is older than the sources: `make compiled`)"
        return path
    if not any((engine / f"board{suffix}").is_file() for suffix in EXTENSION_SUFFIXES):
        description = "pure Python (the compiled build is for another Python: `make compiled`)"
        return path
    if str(build) not in sys.path:
        sys.path.append(str(build))  # mypyc's shared library is a top-level module
    description = f"compiled with mypyc ({build})"
    return [str(engine), *path]


if __name__ == "__main__":  # the digest a new build records (the Makefile's `compiled`)
    print(sources_digest())
