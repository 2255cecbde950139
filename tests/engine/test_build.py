"""Which engine build the tests run on: pure Python, or the mypyc build `make test` also
tests (`BASRA_ENGINE_BUILD`, see the Makefile's `compiled`)."""

from __future__ import annotations

import os

import service.engine.board
import service.engine.captures
import service.engine.sums


def test_the_engine_under_test_is_the_build_asked_for() -> None:
    """A compiled run must not quietly test the pure engine, nor the other way round."""
    compiled = bool(os.environ.get("BASRA_ENGINE_BUILD"))
    for module in (service.engine.board, service.engine.captures, service.engine.sums):
        assert module.__file__ is not None
        assert module.__file__.endswith(".py") != compiled, module.__file__
