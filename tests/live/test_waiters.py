"""Parked requests have a ceiling per process and per client (service/live/waiters.py): one
client cannot take every slot, and moves never wait behind parked polls."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from tests.client import auth, create, tokens, view
from tests.conftest import make_app


def test_a_client_parks_at_most_its_share_and_moves_still_pass(tmp_path: Path) -> None:
    app = make_app("sqlite", tmp_path, BASRA_MAX_WAITERS_PER_CLIENT=2, BASRA_MAX_WAITERS=3)
    client = app.test_client()
    created = create(client)
    match_id, toks = created["id"], tokens(created)
    etag = client.get(f"/v1/matches/{match_id}").headers["ETag"]
    answers: list[tuple[int, float]] = []

    def poll(address: str) -> None:
        started = time.monotonic()
        r = client.get(f"/v1/matches/{match_id}?wait=3", headers={"If-None-Match": etag},
                       environ_base={"REMOTE_ADDR": address})
        answers.append((r.status_code, time.monotonic() - started))

    parked = [threading.Thread(target=poll, args=("10.0.0.1",)) for _ in range(2)]
    for t in parked:
        t.start()
    time.sleep(0.5)
    # the same client's third poll is refused at once, with a reason and Retry-After
    r = client.get(f"/v1/matches/{match_id}?wait=3", headers={"If-None-Match": etag},
                   environ_base={"REMOTE_ADDR": "10.0.0.1"})
    assert r.status_code == 429 and r.get_json()["reason"] == "too_many_waiters"
    assert int(r.headers["Retry-After"]) >= 1
    # and so is its event stream
    r = client.get(f"/v1/matches/{match_id}/events", environ_base={"REMOTE_ADDR": "10.0.0.1"})
    assert r.status_code == 429
    # another client still parks (the process holds three), a fourth anywhere does not
    other = threading.Thread(target=poll, args=("10.0.0.2",))
    other.start()
    time.sleep(0.3)
    r = client.get(f"/v1/matches/{match_id}?wait=3", headers={"If-None-Match": etag},
                   environ_base={"REMOTE_ADDR": "10.0.0.3"})
    assert r.status_code == 429
    # a move is not a parked request: it passes, and wakes the three
    move = view(client, match_id, toks[0])["legal_moves"][0]
    started = time.monotonic()
    r = client.post(f"/v1/matches/{match_id}/moves", json=move, headers=auth(toks[0]))
    assert r.status_code == 201 and time.monotonic() - started < 2
    for t in [*parked, other]:
        t.join(5)
    assert sorted(code for code, _ in answers) == [200, 200, 200]
    assert all(took < 2.5 for _, took in answers)
    # their places are free again
    etag = client.get(f"/v1/matches/{match_id}").headers["ETag"]
    r = client.get(f"/v1/matches/{match_id}?wait=0.2", headers={"If-None-Match": etag},
                   environ_base={"REMOTE_ADDR": "10.0.0.1"})
    assert r.status_code == 304
