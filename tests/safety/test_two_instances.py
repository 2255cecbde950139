"""Taking access back across two real instances (issue 42, items 1 to 3): a sign-out or a
suspension made on instance A is refused by instance B within two seconds, and B's open
stream of that player ends too. ``python -m bench trust`` measures the same over 100
tries."""

from __future__ import annotations

import threading
import time
import uuid

import pytest

from tests.conftest import require_postgres
from tests.servers import call, gunicorn, request, sse_events

ACTIONS = {"revoke": ("POST", "/v1/players/{}/tokens/revoke", None),
           "suspend": ("PUT", "/v1/players/{}/suspension", {"reason": "a test"})}


@pytest.mark.process
@pytest.mark.alone
def test_another_instance_refuses_within_two_seconds_and_ends_the_stream() -> None:
    url = require_postgres()
    with gunicorn(url, workers=1) as a, gunicorn(url, workers=1) as b:
        for action, (method, path, body) in ACTIONS.items():
            for _ in range(3):
                player = f"{action}-{uuid.uuid4().hex[:12]}"
                status, minted = call(a, "POST", f"/v1/players/{player}/tokens", {})
                assert status == 201, minted
                token = minted["token"]
                assert call(b, "GET", f"/v1/players/{player}", token=token)[0] == 200
                stream = sse_events(b, f"/v1/players/{player}/events",
                                    {"Authorization": f"Bearer {token}"})
                assert next(stream) == {"comment": "connected"}
                ended: list[float] = []
                reader = threading.Thread(target=lambda s=stream, e=ended: (
                    [None for _ in s], e.append(time.monotonic())), daemon=True)
                reader.start()
                status, answer, _ = request(a, method, path.format(player), body)
                assert status == 200, answer
                done = time.monotonic()
                while (code := call(b, "GET", f"/v1/players/{player}", token=token)[0]) == 200:
                    assert time.monotonic() - done < 2.0, f"{action}: B served past 2 s"
                    time.sleep(0.02)
                assert code == (401 if action == "revoke" else 403)
                reader.join(5)
                assert ended and ended[0] - done < 2.5, f"{action}: B's stream outlived it"
