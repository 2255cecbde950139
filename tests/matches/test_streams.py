"""The events stream of a match through the test client (test_events.py streams
through gunicorn): where it ends."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import cast

from flask.testing import FlaskClient

from tests.client import auth, create, tokens, view
from tests.conftest import make_app


def _chunks(client: FlaskClient, match_id: str, last_event_id: int) -> list[bytes]:
    """What the stream resumed after ``last_event_id`` sends, up to 10 chunks (a stream
    that goes on sends heartbeats for ever)."""
    r = client.get(f"/v1/matches/{match_id}/events", buffered=False,
                   headers={"Last-Event-ID": str(last_event_id)})
    assert r.status_code == 200
    chunks = cast(list[bytes], list(itertools.islice(r.response, 10)))
    r.close()
    return chunks


def test_resuming_a_finished_match_at_its_last_version_ends_at_once(
    backend: str, tmp_path: Path,
) -> None:
    """Last-Event-ID naming the final version of a finished match: nothing is owed, and
    the stream ends (it once sent heartbeats for ever); one version earlier, the final
    state is sent and then it ends."""
    client = make_app(backend, tmp_path, BASRA_HEARTBEAT_SECONDS=0.1).test_client()
    created = create(client)
    r = client.post(f"/v1/matches/{created['id']}/resign", headers=auth(tokens(created)[0]))
    assert r.status_code == 200
    final = view(client, created["id"])
    assert final["status"] == "finished"
    resumed = _chunks(client, created["id"], final["version"])
    assert len(resumed) < 10 and not any(b"event: state" in c for c in resumed), resumed
    behind = _chunks(client, created["id"], final["version"] - 1)
    states = [c for c in behind if b"event: state" in c]
    assert len(behind) < 10 and len(states) == 1
    assert f"id: {final['version']}\n".encode() in states[0]
