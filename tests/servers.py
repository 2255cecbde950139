"""Real servers for tests: gunicorn on a database, and a throwaway PostgreSQL cluster."""

from __future__ import annotations

import configparser
import contextlib
import glob
import http.client
import io
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

import psycopg
import pytest

ROOT = Path(__file__).resolve().parents[1]
CURRENT: list[pytest.Item] = []
"""The test running now (set by conftest.py before its fixtures)."""


def process_stage() -> None:
    """Refuse to start a process for a test not marked ``process``: such tests run as a
    stage of their own, one at a time, apart from the tests that share an app."""
    if CURRENT and CURRENT[-1].get_closest_marker("process") is None:
        pytest.fail(f"{CURRENT[-1].nodeid} starts a process: mark it @pytest.mark.process")


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


def sse_events(base: str, path: str, headers: dict[str, str] | None = None) -> Iterator[dict]:
    """Parsed SSE events ({'id', 'event', 'data'} or {'comment'}) as they arrive."""
    host, _, port = base.removeprefix("http://").partition(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    conn.request("GET", path, headers=headers or {})
    resp = conn.getresponse()
    assert resp.status == 200, resp.read()
    assert resp.getheader("Content-Type", "").startswith("text/event-stream")
    event: dict = {}
    try:
        while True:
            line = resp.readline()
            if not line:
                return
            text = line.decode().rstrip("\n")
            if not text:
                if event:
                    yield event
                event = {}
            elif text.startswith(":"):
                yield {"comment": text[1:].strip()}
            else:
                key, _, value = text.partition(": ")
                event[key] = json.loads(value) if key == "data" else value
    finally:  # closed by the caller: hang up, as a client that goes away does
        conn.close()


def start_worker(database_url: str, *args: str, **settings: str) -> subprocess.Popen[bytes]:
    """A ``basra worker`` process on ``database_url`` with ``settings`` in its environment
    (its own session: kill it with ``os.killpg``)."""
    process_stage()
    env = {**os.environ, "DATABASE_URL": database_url, **settings}
    return subprocess.Popen([sys.executable, "-m", "service.cli", "worker", *args], cwd=ROOT,
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)


_migrated: set[str] = set()


def migrate(database_url: str, direct_url: str = "") -> None:
    """Every migration on the database, as ``basra db upgrade`` runs them, in this process
    (once a session for a database that stays); on ``direct_url`` when ``database_url``
    is a transaction pooler's."""
    if database_url in _migrated:
        return
    from service import create_app
    from service.storage import upgrade
    from service.storage.db import db

    app = create_app({"SQLALCHEMY_DATABASE_URI": database_url, "BASRA_LISTEN": False,
                      "BASRA_DIRECT_DATABASE_URL": direct_url})
    upgrade(app)
    with app.app_context():
        db.engine.dispose()
    _migrated.add(database_url)


@contextlib.contextmanager
def gunicorn(database_url: str, workers: int = 3, *, kill: bool = False,
             **settings: str) -> Iterator[str]:
    """gunicorn with gevent workers on a migrated database; yields its base URL. ``kill``
    ends it with SIGKILL (a crash) rather than a graceful stop."""
    process_stage()
    port = free_port()
    env = {**os.environ, "DATABASE_URL": database_url, "WEB_CONCURRENCY": str(workers),
           "BASRA_ACCESS_LOG": "", "BASRA_RATE_LIMITS": "off", **settings}
    migrate(database_url, settings.get("BASRA_DIRECT_DATABASE_URL", ""))
    binary = str(Path(sys.executable).with_name("gunicorn"))
    # the log goes to a file: a pipe nobody reads would stop the workers once it filled
    with tempfile.TemporaryFile() as log:
        proc = subprocess.Popen(
            # a test's streams, long polls and keep-alive connections are not waited for
            # at its end (gunicorn's graceful 30 s would hold every test that leaves one)
            [binary, "--config", "service/gunicorn_conf.py", "--bind", f"127.0.0.1:{port}",
             "--graceful-timeout", "0", "service:create_app()"],
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
        process_stage()
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


PGBOUNCER_INI = ROOT / "ops" / "pgbouncer" / "pgbouncer.ini"
"""The production template: the test's PgBouncer is it, with addresses, auth and files of
its own."""


def _pgbouncer_ini(host: str, port: int, listen: int, folder: Path, pool: int) -> str:
    """The template's settings before ``host:port`` (any database name, trusted as the
    machine's PostgreSQL trusts 127.0.0.1), listening on ``listen``, files in ``folder``."""
    config = configparser.ConfigParser(inline_comment_prefixes=(";",), interpolation=None)
    config.read(PGBOUNCER_INI)
    assert config["pgbouncer"]["pool_mode"] == "transaction"
    config.remove_section("databases")
    config["databases"] = {"*": f"host={host} port={port}"}
    config["pgbouncer"].update({
        "listen_addr": "127.0.0.1", "listen_port": str(listen), "unix_socket_dir": "",
        "auth_type": "trust", "auth_file": str(folder / "users.txt"),
        "default_pool_size": str(pool), "logfile": str(folder / "pgbouncer.log"),
        "pidfile": str(folder / "pgbouncer.pid")})
    written = io.StringIO()
    config.write(written)
    return written.getvalue()


@contextlib.contextmanager
def pgbouncer(database_url: str, pool: int = 20) -> Iterator[str]:
    """A PgBouncer of its own (transaction mode, a free port, a temporary folder) before
    ``database_url``'s server; yields the same database's URL through it, and stops it
    after. ``pool``: the server connections it keeps per database and user."""
    from sqlalchemy import make_url

    process_stage()
    binary = shutil.which("pgbouncer") or shutil.which("pgbouncer", path="/usr/sbin")
    if binary is None:
        pytest.fail("pgbouncer is not installed (Debian's pgbouncer: make system)")
    url = make_url(database_url)
    folder = Path(tempfile.mkdtemp(prefix="basra-pgbouncer-"))
    listen = free_port()
    (folder / "pgbouncer.ini").write_text(
        _pgbouncer_ini(url.host or "127.0.0.1", url.port or 5432, listen, folder, pool))
    (folder / "users.txt").write_text(f'"{url.username or "postgres"}" ""\n')
    command = [binary, str(folder / "pgbouncer.ini")]
    if os.geteuid() == 0:  # PgBouncer refuses to run as root: it runs as postgres
        shutil.chown(folder, "postgres", "postgres")
        for name in ("pgbouncer.ini", "users.txt"):
            shutil.chown(folder / name, "postgres", "postgres")
        command[1:1] = ["-u", "postgres"]
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    pooled = url.set(host="127.0.0.1", port=listen).render_as_string(hide_password=False)
    try:
        deadline = time.monotonic() + 15
        while True:  # ready once a query passes through it to the server
            try:
                with psycopg.connect(pooled.replace("+psycopg", ""), connect_timeout=2,
                                     prepare_threshold=None) as conn:
                    conn.execute("SELECT 1")
                break
            except psycopg.OperationalError:
                log = folder / "pgbouncer.log"
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail("pgbouncer did not start: " + (
                        log.read_text(errors="replace")[-2000:] if log.exists() else ""))
                time.sleep(0.05)
        yield pooled
    finally:
        proc.terminate()  # SIGTERM: PgBouncer 1.18 shuts down at once
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
        shutil.rmtree(folder, ignore_errors=True)


class OwnRedis:
    """A redis-server of the test's own, on a port of its own: it may be stopped, frozen
    (SIGSTOP, as a hung server) and thawed."""

    def __init__(self) -> None:
        process_stage()
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


PATRONI = Path(os.environ.get("BASRA_PATRONI", "/opt/basra-patroni/bin/patroni"))
"""Patroni from PyPI in a virtualenv of Debian's Python (``make patroni``): PostgreSQL
runs as the postgres user, who cannot reach a Python under /root."""


class PatroniCluster:
    """etcd and three Patroni nodes of the test's own (ports of their own, a temporary
    folder), synchronous replication, ttl 20 s; PostgreSQL as the postgres user."""

    TTL = 20

    def __init__(self, nodes: int = 3) -> None:
        process_stage()
        etcd = shutil.which("etcd")
        found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
        if etcd is None or not PATRONI.exists() or not found or os.geteuid() != 0:
            reason = ("needs etcd (Debian's etcd-server), Patroni (make patroni), "
                      "PostgreSQL's server and root (to run it as postgres)")
            if os.environ.get("BASRA_REQUIRE_POSTGRES") == "1":
                pytest.fail(reason)
            pytest.skip(reason)
        self.folder = Path(tempfile.mkdtemp(prefix="basra-patroni-"))
        shutil.chown(self.folder, "postgres", "postgres")
        self.bin = Path(found[-1]).parent
        self.scope = f"basra-{os.getpid()}-{int(time.time())}"
        client, peer = free_port(), free_port()
        self.etcd = subprocess.Popen(
            [etcd, "--name", "e0", "--data-dir", str(self.folder / "etcd"),
             "--listen-client-urls", f"http://127.0.0.1:{client}",
             "--advertise-client-urls", f"http://127.0.0.1:{client}",
             "--listen-peer-urls", f"http://127.0.0.1:{peer}",
             "--initial-advertise-peer-urls", f"http://127.0.0.1:{peer}",
             "--initial-cluster", f"e0=http://127.0.0.1:{peer}"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        self.etcd_port = client
        self.ports = [free_port() for _ in range(nodes)]
        self.rest = [free_port() for _ in range(nodes)]
        self.procs: dict[int, subprocess.Popen[bytes]] = {}
        self.logs: dict[int, Any] = {}
        for n in range(nodes):
            self._configure(n)
        hosts = "&".join(f"host=127.0.0.1:{port}" for port in self.ports)
        self.url = (f"postgresql+psycopg://postgres@/postgres?{hosts}"
                    "&target_session_attrs=read-write&connect_timeout=3")
        self.read_url = (f"postgresql+psycopg://postgres@/postgres?{hosts}"
                         "&target_session_attrs=prefer-standby&connect_timeout=3")

    def _configure(self, n: int) -> None:
        data = self.folder / f"node{n}"
        config = {
            "scope": self.scope, "name": f"node{n}",
            "restapi": {"listen": f"127.0.0.1:{self.rest[n]}",
                        "connect_address": f"127.0.0.1:{self.rest[n]}"},
            "etcd3": {"hosts": [f"127.0.0.1:{self.etcd_port}"]},
            "bootstrap": {
                "dcs": {"ttl": self.TTL, "loop_wait": 2, "retry_timeout": 5,
                        "synchronous_mode": True,
                        "postgresql": {"use_pg_rewind": False, "parameters": {
                            "max_connections": 100, "wal_level": "replica",
                            "hot_standby": "on", "max_wal_senders": 10,
                            "max_replication_slots": 10, "wal_keep_size": "64MB"}}},
                "initdb": [{"encoding": "UTF8"}, {"auth-host": "trust"},
                           {"auth-local": "trust"}],
            },
            "postgresql": {
                "listen": f"127.0.0.1:{self.ports[n]}",
                "connect_address": f"127.0.0.1:{self.ports[n]}",
                "data_dir": str(data), "bin_dir": str(self.bin),
                "pgpass": str(self.folder / f"pgpass{n}"),
                "authentication": {
                    "superuser": {"username": "postgres", "password": "postgres"},
                    "replication": {"username": "postgres", "password": "postgres"}},
                "parameters": {"unix_socket_directories": str(self.folder)},
                "pg_hba": ["local all all trust", "host all all 127.0.0.1/32 trust",
                           "host replication all 127.0.0.1/32 trust"],
            },
        }
        path = self.folder / f"node{n}.json"  # YAML is a superset of JSON
        path.write_text(json.dumps(config))
        shutil.chown(path, "postgres", "postgres")

    def start(self, n: int) -> None:
        log = open(self.folder / f"node{n}.log", "ab")  # noqa: SIM115 (kept for the node)
        self.logs[n] = log
        self.procs[n] = subprocess.Popen(
            ["runuser", "-u", "postgres", "--", str(PATRONI), str(self.folder / f"node{n}.json")],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)

    def role(self, n: int) -> str | None:
        """What node ``n``'s REST API says it is (primary, replica), None if it does not
        answer."""
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.rest[n]}/patroni",
                                        timeout=2) as resp:
                status = json.loads(resp.read())
        except (OSError, ValueError):
            return None
        if status.get("state") != "running":
            return None
        return str(status.get("role"))

    def wait_ready(self, seconds: float = 90, *, synchronous: bool = False) -> None:
        """Until one primary and every other node a running replica (one of them the
        synchronous standby, if asked)."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            roles = [self.role(n) for n in self.procs]
            if roles.count("primary") == 1 and roles.count("replica") == len(roles) - 1 \
                    and (not synchronous or self._has_sync_standby()):
                return
            time.sleep(0.5)
        pytest.fail(f"the Patroni cluster did not come up: {self.tail()}")

    def _has_sync_standby(self) -> bool:
        for n in self.procs:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.rest[n]}/cluster",
                                            timeout=2) as resp:
                    members = json.loads(resp.read())["members"]
            except (OSError, ValueError, KeyError):
                continue
            return any(m.get("role") == "sync_standby" for m in members)
        return False

    def leader(self) -> int:
        for n in self.procs:
            if self.role(n) == "primary":
                return n
        raise AssertionError("no primary")

    def kill(self, n: int) -> None:
        """SIGKILL node ``n``'s Patroni and its postmaster, as a machine that dies."""
        postmaster = (self.folder / f"node{n}" / "postmaster.pid").read_text().split()[0]
        os.killpg(self.procs[n].pid, signal.SIGKILL)  # runuser and the Patroni under it
        with contextlib.suppress(ProcessLookupError):
            os.kill(int(postmaster), signal.SIGKILL)
        self.procs[n].wait(10)

    def tail(self) -> str:
        return "\n".join(f"--- node{n}\n" + (self.folder / f"node{n}.log").read_text(
            errors="replace")[-3000:] for n in self.procs)

    def close(self) -> None:
        for n, proc in self.procs.items():
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            pid_file = self.folder / f"node{n}" / "postmaster.pid"
            with contextlib.suppress(OSError, ValueError, ProcessLookupError):
                os.kill(int(pid_file.read_text().split()[0]), signal.SIGKILL)
            self.logs[n].close()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.etcd.pid, signal.SIGKILL)
        self.etcd.wait(10)
        shutil.rmtree(self.folder, ignore_errors=True)


@contextlib.contextmanager
def patroni_cluster() -> Iterator[PatroniCluster]:
    """A running three-node Patroni cluster of the test's own, removed afterwards."""
    cluster = PatroniCluster()
    try:
        for n in range(len(cluster.ports)):
            cluster.start(n)
            if n == 0:  # the first bootstraps; the others copy it
                cluster.wait_ready()
        cluster.wait_ready(synchronous=True)
        yield cluster
    finally:
        cluster.close()
