"""Real servers for tests: gunicorn on a database, and a throwaway PostgreSQL cluster."""

from __future__ import annotations

import contextlib
import glob
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    """A TCP port nobody listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def request(base: str, method: str, path: str, body: Any = None, token: str | None = None,
            headers: dict[str, str] | None = None) -> tuple[int, Any, dict[str, str]]:
    """One HTTP call: (status, JSON body or None, headers)."""
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(base + path, data=data, method=method)
    req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    for key, value in (headers or {}).items():
        req.add_header(key, value)
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, json.loads(resp.read() or b"null"), dict(resp.headers)
    except urllib.error.HTTPError as err:
        raw = err.read()
        return err.code, json.loads(raw) if raw else None, dict(err.headers)


def call(base: str, method: str, path: str, body: Any = None,
         token: str | None = None) -> tuple[int, Any]:
    """One HTTP call: (status, JSON body or None)."""
    status, data, _ = request(base, method, path, body, token)
    return status, data


class KeepAlive:
    """One keep-alive HTTP connection to a server, as a busy client holds it."""

    def __init__(self, base: str) -> None:
        host, _, port = base.removeprefix("http://").partition(":")
        self.conn = http.client.HTTPConnection(host, int(port), timeout=30)

    def call(self, method: str, path: str, body: Any = None, token: str | None = None,
             headers: dict[str, str] | None = None) -> tuple[int, Any]:
        """(status, JSON body or None)."""
        sent = {"Content-Type": "application/json", **(headers or {})}
        if token:
            sent["Authorization"] = f"Bearer {token}"
        self.conn.request(method, path, json.dumps(body) if body is not None else None, sent)
        resp = self.conn.getresponse()
        raw = resp.read()
        return resp.status, json.loads(raw) if raw else None


@contextlib.contextmanager
def gunicorn(database_url: str, workers: int = 3, *, kill: bool = False,
             **settings: str) -> Iterator[str]:
    """gunicorn with gevent workers on a migrated database; yields its base URL. ``kill``
    ends it with SIGKILL (a crash) rather than a graceful stop."""
    port = free_port()
    env = {**os.environ, "DATABASE_URL": database_url, "WEB_CONCURRENCY": str(workers),
           "BASRA_ACCESS_LOG": "", "BASRA_RATE_LIMITS": "off", **settings}
    subprocess.run([sys.executable, "-m", "service.cli", "db", "upgrade"], cwd=ROOT, env=env,
                   check=True, capture_output=True)
    binary = str(Path(sys.executable).with_name("gunicorn"))
    # the log goes to a file: a pipe nobody reads would stop the workers once it filled
    with tempfile.TemporaryFile() as log:
        proc = subprocess.Popen(
            [binary, "--config", "service/gunicorn_conf.py", "--bind", f"127.0.0.1:{port}",
             "service:create_app()"],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )
        base = f"http://127.0.0.1:{port}"
        try:
            for _ in range(150):
                try:
                    if call(base, "GET", "/readyz")[0] == 200:
                        break
                except OSError:
                    time.sleep(0.1)
            else:
                pytest.fail("gunicorn did not start")
            yield base
        finally:
            os.killpg(proc.pid, signal.SIGKILL if kill else signal.SIGTERM)
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:  # a stream still open: do not wait for it
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(15)
            log.seek(0)
            # shown with a failing test's captured output
            sys.stdout.write(log.read()[-20_000:].decode(errors="replace"))


class Cluster:
    """A PostgreSQL cluster of the test's own, in a temporary folder: it may be stopped."""

    def __init__(self) -> None:
        # its own folder under /tmp: the postgres user must reach it (pytest's are private)
        folder = Path(tempfile.mkdtemp(prefix="basra-pg-"))
        self.folder = folder
        found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
        if not found:
            pytest.fail("PostgreSQL's initdb is not installed (/usr/lib/postgresql/*/bin)")
        self.bin = Path(found[-1]).parent
        self.data = folder / "data"
        self.port = free_port()
        self.url = f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"
        self._as_postgres = os.geteuid() == 0  # initdb refuses to run as root
        if self._as_postgres:
            shutil.chown(folder, "postgres", "postgres")
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres", "-E", "UTF8")

    def _run(self, tool: str, *args: str) -> None:
        command = [str(self.bin / tool), *args]
        if self._as_postgres:
            command = ["runuser", "-u", "postgres", "--", *command]
        subprocess.run(command, check=True, capture_output=True, timeout=120)

    def start(self) -> None:
        """Start the server and wait until it accepts connections."""
        options = f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.data}"
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-w", "-l",
                  str(self.data / "log"), "start")

    def stop(self) -> None:
        """Stop the server at once (fast shutdown: sessions are cut)."""
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")


@contextlib.contextmanager
def throwaway_postgres() -> Iterator[Cluster]:
    """A running cluster of the test's own, removed afterwards."""
    cluster = Cluster()
    try:
        cluster.start()
        yield cluster
    finally:
        with contextlib.suppress(subprocess.SubprocessError):
            cluster.stop()
        shutil.rmtree(cluster.folder, ignore_errors=True)


class OwnRedis:
    """A redis-server of the test's own, on a port of its own: it may be stopped, frozen
    (SIGSTOP, as a hung server) and thawed."""

    def __init__(self) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            pytest.fail("redis-server is not installed (Debian's redis-server)")
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc = subprocess.Popen(
            [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(100):
            with contextlib.suppress(OSError), socket.create_connection(
                    ("127.0.0.1", self.port), timeout=0.2):
                return
            time.sleep(0.05)
        pytest.fail("redis-server did not start")

    def freeze(self) -> None:
        self.proc.send_signal(signal.SIGSTOP)

    def thaw(self) -> None:
        self.proc.send_signal(signal.SIGCONT)

    def stop(self) -> None:
        self.thaw()
        self.proc.kill()
        self.proc.wait(10)


@contextlib.contextmanager
def own_redis() -> Iterator[OwnRedis]:
    """A running redis-server of the test's own, killed afterwards."""
    server = OwnRedis()
    try:
        yield server
    finally:
        server.stop()
