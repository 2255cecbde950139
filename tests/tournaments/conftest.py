"""The tournament tests' webhook receiver (the webhooks tests' own)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.webhooks.test_webhooks import Receiver


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    yield r
    r.server.shutdown()
