"""HTTP benchmark: gunicorn + PostgreSQL, concurrent clients playing whole matches.

Prints, in one run against one server: /healthz requests per second (the
framework's ceiling on this machine), POST move throughput and latency, and
304 poll throughput, each as a share of the ceiling. Medians of three runs.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import multiprocessing as mp
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PORT = int(os.environ.get("BASRA_BENCH_PORT", "8799"))
DEFAULT_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/basra_bench"
PROCESSES = 4
THREADS = 4
SECONDS = 4.0


def _ensure_database(url: str) -> None:
    import psycopg

    name = url.rsplit("/", 1)[1]
    admin = url.replace("postgresql+psycopg://", "postgresql://").rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')


def bench_url() -> str:
    """The bench's PostgreSQL database URL (``BASRA_BENCH_DATABASE_URL``)."""
    return os.environ.get("BASRA_BENCH_DATABASE_URL", DEFAULT_URL)


def bench_database() -> str:
    """:func:`bench_url`, the database created if missing and migrated to the newest
    schema."""
    url = bench_url()
    _ensure_database(url)
    subprocess.run([sys.executable, "-m", "service.cli", "db", "upgrade"],
                   env={**os.environ, "DATABASE_URL": url}, check=True, cwd=ROOT,
                   capture_output=True)
    return url


def fresh_database(url: str) -> None:
    """A new, empty database at ``url`` (dropped first if there), migrated."""
    import psycopg

    name = url.rsplit("/", 1)[1]
    admin = url.replace("postgresql+psycopg://", "postgresql://").rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    cli(url, "db", "upgrade")


def cli(url: str, *args: str) -> str:
    """What ``basra ARGS`` prints, run on the database at ``url``."""
    return subprocess.run([sys.executable, "-m", "service.cli", *args], cwd=ROOT,
                          env={**os.environ, "DATABASE_URL": url}, check=True,
                          capture_output=True, text=True).stdout


@contextlib.contextmanager
def worker(url: str, **settings: str) -> Iterator[subprocess.Popen[bytes]]:
    """``basra worker`` on the database at ``url`` (with ``settings`` in its environment)
    while the block runs; yields its process."""
    proc = subprocess.Popen([sys.executable, "-m", "service.cli", "worker"], cwd=ROOT,
                            env={**os.environ, "DATABASE_URL": url, **settings},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        yield proc
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(10)


class Client:
    """A keep-alive HTTP/1.1 connection speaking JSON."""

    def __init__(self, port: int = PORT) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

    def request(self, method: str, path: str, body: Any = None,
                headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], Any]:
        data = json.dumps(body).encode() if body is not None else None
        hdrs = {"Content-Type": "application/json"} if data else {}
        hdrs.update(headers or {})
        self.conn.request(method, path, body=data, headers=hdrs)
        resp = self.conn.getresponse()
        raw = resp.read()
        payload = json.loads(raw) if raw else None
        if resp.status >= 400:
            raise RuntimeError(f"{method} {path} -> {resp.status}: {payload}")
        return resp.status, dict(resp.getheaders()), payload


def _healthz(deadline: float, out: list[float]) -> int:
    c = Client()
    n = 0
    while time.monotonic() < deadline:
        t = time.perf_counter()
        c.request("GET", "/healthz")
        out.append(time.perf_counter() - t)
        n += 1
    return n


def _polls(deadline: float, out: list[float]) -> int:
    c = Client()
    _, _, created = c.request("POST", "/v1/matches", {"players": [{"name": "a"}, {"name": "b"}]})
    path = f"/v1/matches/{created['id']}"
    _, headers, _ = c.request("GET", path)
    etag = headers["ETag"]
    n = 0
    while time.monotonic() < deadline:
        t = time.perf_counter()
        status, _, _ = c.request("GET", path, headers={"If-None-Match": etag})
        assert status == 304, status
        out.append(time.perf_counter() - t)
        n += 1
    return n


Call = Callable[[str, str, Any, dict[str, str]], tuple[int, Any]]
"""(method, path, JSON body or None, headers) -> (status, JSON answer)."""


def play_matches(call: Call, go_on: Callable[[int], bool],
                 latencies: list[float] | None = None,
                 rules: dict[str, Any] | None = None) -> tuple[int, int]:
    """Play two-seat egyptian-v2 matches seat by seat while ``go_on(moves so far)``: a
    seat's hand is known from its last response, and read again (its view) when it runs
    out; a finished match is followed by a new one (house ``rules`` if given). (moves
    made, matches created); each move's latency goes into ``latencies``."""
    moves = created_matches = 0
    while go_on(moves):
        created_matches += 1
        _, created = call("POST", "/v1/matches", {
            "variant": "egyptian-v2", "players": [{"name": "a"}, {"name": "b"}],
            **({"rules": rules} if rules else {})}, {})
        match = created["id"]
        tokens = {s["seat"]: s["token"] for s in created["seats"]}
        hands: dict[int, list[str]] = {0: [], 1: []}
        turn = created["state"]["turn"]
        while go_on(moves):
            auth = {"Authorization": f"Bearer {tokens[turn]}"}
            if not hands[turn]:
                hands[turn] = call("GET", f"/v1/matches/{match}", None, auth)[1]["hand"]
            t = time.perf_counter()
            status, body = call("POST", f"/v1/matches/{match}/moves", {"card": hands[turn][0]},
                                auth)
            if latencies is not None:
                latencies.append(time.perf_counter() - t)
            assert status == 201, body
            moves += 1
            state = body["state"]
            hands[turn] = state["hand"]
            if state["status"] == "finished":
                break
            turn = state["turn"]
    return moves, created_matches


def _moves(deadline: float, out: list[float]) -> int:
    """Play whole matches over HTTP until the deadline."""
    c = Client()

    def call(method: str, path: str, body: Any, headers: dict[str, str]) -> tuple[int, Any]:
        status, _, payload = c.request(method, path, body, headers)
        return status, payload

    return play_matches(call, lambda _: time.monotonic() < deadline, out)[0]


PHASES = {"healthz": _healthz, "moves": _moves, "polls": _polls}


def _worker(phase: str, deadline: float, queue: Any) -> None:
    import threading

    counts: list[int] = []
    latencies: list[float] = []

    def run() -> None:
        try:
            counts.append(PHASES[phase](deadline, latencies))
        except Exception as exc:  # report once, do not spam a traceback per thread
            errors.append(repr(exc))

    errors: list[str] = []

    threads = [threading.Thread(target=run) for _ in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        print(f"  {phase}: {len(errors)} client thread(s) failed: {errors[0]}", file=sys.stderr)
    queue.put((sum(counts), latencies))


def run_phase(phase: str, seconds: float = SECONDS) -> tuple[float, float, float]:
    """Requests per second, p50 and p99 latency (ms) of one phase."""
    queue: Any = mp.Queue()
    start = time.monotonic()
    deadline = start + seconds
    procs = [mp.Process(target=_worker, args=(phase, deadline, queue)) for _ in range(PROCESSES)]
    for p in procs:
        p.start()
    results = [queue.get() for _ in procs]
    for p in procs:
        p.join()
    elapsed = time.monotonic() - start
    total = sum(n for n, _ in results)
    lat = sorted(x for _, ls in results for x in ls)
    p50 = lat[len(lat) // 2] * 1000 if lat else 0.0
    p99 = lat[int(len(lat) * 0.99)] * 1000 if lat else 0.0
    return total / elapsed, p50, p99


def server_errors(log: str) -> list[str]:
    """The lines of a server's log (gunicorn's and the service's JSON lines) that report an
    error: an unhandled exception in a request, a worker that died or timed out."""
    return [line for line in log.splitlines()
            if '"level": "error"' in line or '"level": "critical"' in line
            or "[ERROR]" in line or "[CRITICAL]" in line]


@contextlib.contextmanager
def serve(port: int = PORT, **settings: str) -> Iterator[subprocess.Popen[bytes]]:
    """gunicorn with the default settings on the bench's PostgreSQL database, at ``port``
    (``DATABASE_URL`` among ``settings``: another database). Its
    log goes to a file, not a pipe nobody reads: when the server logged an error, the
    first lines are printed and the file is kept (a 500 in a phase shows only as failed
    client threads otherwise)."""
    url = bench_database()
    env = {**os.environ, "DATABASE_URL": url, "BASRA_ACCESS_LOG": "", "BASRA_RATE_LIMITS": "off",
           **settings}
    with tempfile.NamedTemporaryFile(prefix="basra-bench-server-", suffix=".log",
                                     delete=False) as log:
        server = subprocess.Popen(
            [str(Path(sys.executable).with_name("gunicorn")), "--config",
             "service/gunicorn_conf.py", "--bind", f"127.0.0.1:{port}", "service:create_app()"],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )
    try:
        for _ in range(100):
            try:
                Client(port).request("GET", "/readyz")
                break
            except OSError:
                time.sleep(0.1)
        yield server
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:  # streams or polls still open
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(10)
        errors = server_errors(Path(log.name).read_text(errors="replace"))
        if errors:
            print(f"  the server logged {len(errors)} error(s); log kept at {log.name}:",
                  file=sys.stderr)
            for line in errors[:3]:
                print(f"    {line[:2000]}", file=sys.stderr)
        else:
            os.unlink(log.name)


def run() -> dict[str, float]:
    """Start gunicorn on PostgreSQL, run the phases three times, print the medians and
    return them."""
    with serve() as server:
        runs: dict[str, list[tuple[float, float, float]]] = {p: [] for p in PHASES}
        for _ in range(3):
            for phase in PHASES:
                runs[phase].append(run_phase(phase))
        workers = len(subprocess.run(["pgrep", "-P", str(server.pid)], capture_output=True,
                                     text=True).stdout.split())  # as started, not as guessed
        print(f"http: gunicorn gevent x{workers} on PostgreSQL, {PROCESSES * THREADS} clients, "
              f"{SECONDS:.0f} s a phase, median of 3 runs")
        ceiling = statistics.median(r[0] for r in runs["healthz"])
        figures: dict[str, float] = {}
        for phase, label in (("healthz", "GET /healthz (ceiling)"), ("moves", "POST moves"),
                             ("polls", "GET 304 polls")):
            rps = statistics.median(r[0] for r in runs[phase])
            p50 = statistics.median(r[1] for r in runs[phase])
            p99 = statistics.median(r[2] for r in runs[phase])
            print(f"  {label:<24} {rps:8,.0f} req/s  {rps / ceiling:6.1%} of ceiling  "
                  f"p50 {p50:6.2f} ms  p99 {p99:7.2f} ms")
            figures.update({f"{phase}_rps": round(rps), f"{phase}_p50_ms": round(p50, 2),
                            f"{phase}_p99_ms": round(p99, 2)})
            if phase != "healthz":
                figures[f"{phase}_share"] = round(rps / ceiling, 3)
    return figures


def main() -> int:
    """Run the HTTP benchmark on its own."""
    run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
