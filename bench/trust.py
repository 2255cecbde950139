"""Taking a player's access back across instances: two gunicorn instances on one
PostgreSQL database. Each try mints a player token on instance A, checks instance B
serves it, opens the player's event stream on B, then signs the player out everywhere
(or suspends them) on A; B is asked again every 10 ms until it refuses. Figures: the
time from A's answer (the action committed) to B's first refusal, and to the end of
B's stream, p50, p99 and the worst over the tries (``BASRA_BENCH_TRUST_TRIES``, 100)."""

from __future__ import annotations

import http.client
import json
import os
import statistics
import threading
import time
from typing import Any

from bench.http import PORT, cli, fresh_database, serve

DATABASE = "postgresql+psycopg://postgres@127.0.0.1:5432/basra_bench_trust"
TRIES = int(os.environ.get("BASRA_BENCH_TRUST_TRIES", "100"))
POLL_SECONDS = 0.01
GIVE_UP_SECONDS = 10.0
ACTIONS = {
    "revoke": ("POST", "/v1/players/{}/tokens/revoke", None),
    "suspend": ("PUT", "/v1/players/{}/suspension", {"reason": "bench"}),
}


def _call(port: int, method: str, path: str, body: Any = None,
          headers: dict[str, str] | None = None) -> tuple[int, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        sent = {"Content-Type": "application/json", **(headers or {})}
        conn.request(method, path, json.dumps(body) if body is not None else None, sent)
        resp = conn.getresponse()
        raw = resp.read()
        return resp.status, json.loads(raw) if raw else None
    finally:
        conn.close()


def _stream_end(port: int, player: str, token: str, opened: threading.Event,
                ended: list[float]) -> None:
    """Hold the player's stream on ``port`` open; note the moment it ends."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=GIVE_UP_SECONDS + 5)
    conn.request("GET", f"/v1/players/{player}/events",
                 headers={"Authorization": f"Bearer {token}"})
    resp = conn.getresponse()
    assert resp.status == 200, resp.read()
    resp.readline()  # ": connected"
    opened.set()
    while resp.readline():
        pass
    ended.append(time.monotonic())
    conn.close()


def _one(a: int, b: int, key: dict[str, str], action: str, n: int) -> tuple[float, float]:
    """One try: (seconds to B's first refusal, seconds to the end of B's stream)."""
    player = f"{action}-{n}"
    status, minted = _call(a, "POST", f"/v1/players/{player}/tokens", {}, key)
    assert status == 201, minted
    token = minted["token"]
    bearer = {"Authorization": f"Bearer {token}"}
    assert _call(b, "GET", f"/v1/players/{player}", headers=bearer)[0] == 200
    opened, ended = threading.Event(), []
    reader = threading.Thread(target=_stream_end, args=(b, player, token, opened, ended),
                              daemon=True)
    reader.start()
    assert opened.wait(10)
    method, path, body = ACTIONS[action]
    status, answer = _call(a, method, path.format(player), body, key)
    assert status == 200, answer
    done = time.monotonic()
    while _call(b, "GET", f"/v1/players/{player}", headers=bearer)[0] == 200:
        assert time.monotonic() - done < GIVE_UP_SECONDS, f"{action}: B still serves"
        time.sleep(POLL_SECONDS)
    refused = time.monotonic() - done
    reader.join(GIVE_UP_SECONDS)
    assert ended, f"{action}: B's stream did not end"
    return refused, ended[0] - done


def _p99(values: list[float]) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[98]


def run() -> dict[str, float]:
    """Two instances, :data:`TRIES` of each action: print and return the figures."""
    fresh_database(DATABASE)
    key = {"X-API-Key": cli(DATABASE, "keys", "create", "bench").strip()}
    a, b = PORT, PORT + 1
    settings = {"DATABASE_URL": DATABASE, "WEB_CONCURRENCY": "1"}
    with serve(a, **settings), serve(b, **settings):
        print(f"trust: two gunicorn instances (one gevent worker each) on PostgreSQL, "
              f"{TRIES} tries of each action, B polled every {POLL_SECONDS * 1000:.0f} ms")
        figures: dict[str, float] = {}
        for action in ACTIONS:
            refused, ended = zip(*(_one(a, b, key, action, n) for n in range(TRIES)),
                                 strict=True)
            for what, values in (("refused", list(refused)), ("stream_ended", list(ended))):
                ms = [v * 1000 for v in values]
                p50, p99, worst = statistics.median(ms), _p99(ms), max(ms)
                print(f"  {action:<8} to {what.replace('_', ' '):<13} p50 {p50:6.0f} ms  "
                      f"p99 {p99:6.0f} ms  worst {worst:6.0f} ms")
                figures.update({f"trust_{action}_{what}_p50_ms": round(p50),
                                f"trust_{action}_{what}_p99_ms": round(p99),
                                f"trust_{action}_{what}_max_ms": round(worst)})
    return figures


def main() -> int:
    run()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
