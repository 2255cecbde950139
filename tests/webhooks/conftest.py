"""The webhooks tests' local receiver, for every file here."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.webhooks.test_webhooks import Receiver


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    """A webhook receiver on a free port of this machine, stopped after the test."""
    r = Receiver()
    yield r
    r.server.shutdown()
