"""The PostgreSQL version listener: NOTIFY wakes waiters; a lost listener reconnects."""

from __future__ import annotations

import threading
import time
import uuid

import psycopg
import pytest

from service.live.listener import CHANNEL, VersionListener
from tests.conftest import libpq_url


@pytest.fixture
def dsn(pg_direct_url: str) -> str:
    """A libpq URL of the test database itself (LISTEN needs a session: no pooler)."""
    return libpq_url(pg_direct_url)


def _until(condition, seconds: float = 10.0) -> bool:  # noqa: ANN001
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return False


def _notify(dsn: str, payload: str) -> None:
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, payload))


def test_notify_updates_the_board_and_wakes_a_waiter(dsn: str) -> None:
    """A version NOTIFYed by any connection reaches the listener and ends a wait at once."""
    listener = VersionListener(dsn)
    assert _until(lambda: listener.live)
    match = str(uuid.uuid4())
    listener.saw(match, 3)
    woke: list[float] = []

    def waiter() -> None:
        started = time.monotonic()
        listener.wait(match, 3, 20)
        woke.append(time.monotonic() - started)

    t = threading.Thread(target=waiter)
    t.start()
    time.sleep(0.2)
    _notify(dsn, f"{match}:4")
    t.join(20)
    assert listener.version(match) == 4
    assert woke and woke[0] < 5
    _notify(dsn, f"{match}:2")  # a late, older version never wins
    time.sleep(0.3)
    assert listener.version(match) == 4


def test_a_lost_listener_reconnects_and_forgets_what_it_may_have_missed(dsn: str) -> None:
    """When the listening connection dies the listener stops answering from memory, then
    reconnects with an empty map (a new epoch)."""
    listener = VersionListener(dsn)
    assert _until(lambda: listener.live)
    match = str(uuid.uuid4())
    listener.saw(match, 7)
    epoch = listener.epoch
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                     "WHERE application_name = 'basra-listen'")
    assert _until(lambda: listener.epoch > epoch, 15)
    assert listener.live
    assert listener.version(match) is None
