"""The events stream of a match through the test client (test_events.py streams
through gunicorn): where it ends."""

from __future__ import annotations

import itertools
import json
import threading
from pathlib import Path
from typing import Any, cast

import pytest
from flask.testing import FlaskClient

from tests.client import auth, create, play, tokens, view
from tests.conftest import api_key, make_app


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


def _plays_on_stream(client: FlaskClient, url: str, headers: dict[str, str], until: int,
                     started: threading.Event, got: list[dict[str, Any]]) -> None:
    """Read the stream's ``state`` events into ``got`` until one reaches version
    ``until``; ``started`` is set at the first."""
    r = client.get(url, headers=headers, buffered=False)
    try:
        buffer = b""
        for chunk in r.response:
            buffer += chunk
            while b"\n\n" in buffer:
                block, buffer = buffer.split(b"\n\n", 1)
                lines = dict(line.split(": ", 1) for line in block.decode().split("\n")
                             if not line.startswith(":"))
                if lines.get("event") != "state":
                    continue
                got.append(json.loads(lines["data"]))
                started.set()
                if got[-1]["version"] >= until:
                    return
    finally:
        started.set()
        r.close()


@pytest.mark.parametrize("viewer", ["seat", "spectator", "delayed spectator"])
def test_every_play_reaches_the_stream_though_changes_outrun_it(
    backend: str, tmp_path: Path, viewer: str,
) -> None:
    """50 moves played as fast as the seats can, while the stream wakes only every 0.2 s
    (SQLite's poll; PostgreSQL's NOTIFYs come faster than a view is read): its events
    are fewer than the changes, but their ``moves`` hold every log entry once, in order,
    the same as the log's (on SQLite it once sent 11 states for 288 versions and no
    plays). A delayed spectator's (a browser key's) events leave out the plays its view
    leaves out, each at the version of the last entry it shows."""
    delay = 4 if viewer == "delayed spectator" else 0
    keys = {"BASRA_API_KEYS": "required"} if delay else {}
    app = make_app(backend, tmp_path, BASRA_POLL_INTERVAL=0.2, BASRA_HEARTBEAT_SECONDS=0.5,
                   **keys)
    client, watcher = app.test_client(), app.test_client()
    headers = auth(None)
    if delay:  # the front end's server plays; a browser key watches
        client.environ_base["HTTP_X_API_KEY"] = api_key(app, "fe")["X-API-Key"]
        headers = {**api_key(app, "fe", "https://fe.example"), "Origin": "https://fe.example"}
    created = create(client, spectator_delay=delay)
    toks = tokens(created)
    if viewer == "seat":
        headers = auth(toks[0])
    got: list[dict[str, Any]] = []
    started = threading.Event()
    reader = threading.Thread(target=_plays_on_stream, args=(
        watcher, f"/v1/matches/{created['id']}/events", headers, 50 - delay, started, got),
        daemon=True)
    reader.start()
    assert started.wait(10) and got and got[0]["moves"] == []
    state = got[0]
    for _ in range(50):
        mine = view(client, created["id"], toks[state["turn"]])
        move = mine["legal_moves"][0]
        r = play(client, created["id"], toks[state["turn"]], move["card"], move["capture"])
        assert r.status_code == 201, r.get_json()
        state = r.get_json()["state"]
    reader.join(20)
    assert not reader.is_alive()
    log = client.get(f"/v1/matches/{created['id']}/moves", headers=auth(toks[0])).get_json()
    seen = [m for event in got[1:] for m in event["moves"]]
    assert got[-1]["version"] == 50 - delay
    assert [m["seq"] for m in seen] == list(range(1, len(seen) + 1))
    assert seen == log["moves"][:len(seen)]
    assert len(seen) == 50 - delay and got[-1]["behind"] == delay
    assert all(m["seq"] <= event["version"] for event in got for m in event["moves"])
    if backend == "sqlite":  # the stream did not keep up: the test tests something
        assert len(got) - 1 < 50
