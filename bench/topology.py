"""The topology operators run, on this machine, started by one command.

``python -m bench topology up [--instances 3 --workers-per-instance 2 --basra-workers 2
--port 8080]`` starts, in a temporary folder, and keeps up until Ctrl-C:

* the database migrated (``--database-url``, default a fresh ``basra_topology`` on
  127.0.0.1:5432, made anew) and a server API key of the front end ``topology``;
* PgBouncer 1.18 in transaction mode in front of it (``ops/topology/pgbouncer.ini``);
* N gunicorn instances (``service/gunicorn_conf.py``, gevent workers), each on a port of
  its own, with ``DATABASE_URL`` the PgBouncer URL and ``BASRA_DIRECT_DATABASE_URL`` the
  database's own (LISTEN and migrations need a session of their own);
* HAProxy 2.6 round-robin over them (``ops/haproxy/haproxy.cfg``), checking ``/readyz``;
* Redis: the machine's 127.0.0.1:6379 (database ``--redis-db``), or with ``--own-redis``
  (or when none answers there) a redis-server of the topology's own;
* M ``basra worker`` processes sharing the clocks, the queues and the tournaments.

:func:`topology` is the same as a context manager; its :class:`Topology` kills and
restarts an instance, a worker or the private Redis, for the tests and the soak.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import os
import resource
import secrets
import shutil
import signal
import socket
import string
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import psycopg
from sqlalchemy.engine import make_url

ROOT = Path(__file__).resolve().parents[1]
HAPROXY_TEMPLATE = ROOT / "ops" / "haproxy" / "haproxy.cfg"
PGBOUNCER_TEMPLATE = ROOT / "ops" / "topology" / "pgbouncer.ini"
DEFAULT_DATABASE = "postgresql+psycopg://postgres@127.0.0.1:5432/basra_topology"
MACHINE_REDIS = ("127.0.0.1", 6379)
BACKEND = "basra"
"""HAProxy's backend of the instances; instance ``n`` is its server ``i<n>``."""
START_SECONDS = 60.0
"""How long a process may take to answer once started (gunicorn on two busy cores)."""


def sbin(name: str) -> str:
    """A Debian tool of /usr/sbin (not on a user's PATH), else wherever PATH has it."""
    found = shutil.which(name, path=f"/usr/sbin:/sbin:{os.environ.get('PATH', '')}")
    if found is None:
        raise RuntimeError(f"{name} is not installed: `make system` (apt-get install {name})")
    return found


def free_port() -> int:
    """A TCP port nobody listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def answers(host: str, port: int) -> bool:
    """Whether something accepts TCP connections at ``host:port``."""
    with contextlib.suppress(OSError), socket.create_connection((host, port), timeout=0.5):
        return True
    return False


def wait_for(condition: Callable[[], bool], seconds: float, what: str) -> None:
    """Return once ``condition()`` holds; raise after ``seconds`` saying ``what`` did not
    happen."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what} within {seconds:.0f} s")
        time.sleep(0.05)


def status_of(url: str) -> int | None:
    """The HTTP status of a GET of ``url`` (None: no answer)."""
    try:
        with urllib.request.urlopen(url, timeout=5) as resp:
            return int(resp.status)
    except urllib.error.HTTPError as err:
        return err.code
    except OSError:
        return None


def libpq(url: str) -> str:
    """A SQLAlchemy PostgreSQL URL as libpq reads it."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def fresh_database(url: str) -> None:
    """A new, empty database at ``url`` (dropped first if there)."""
    name = make_url(url).database
    admin = libpq(make_url(url).set(database="postgres").render_as_string(hide_password=False))
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def render(template: Path, target: Path, **values: object) -> None:
    """``template`` with each ``${name}`` filled in, written to ``target``."""
    text = string.Template(template.read_text()).substitute(
        {name: str(value) for name, value in values.items()})
    target.write_text(text)


@dataclass
class Process:
    """A process of the topology, in a session of its own (its children die with it),
    its output in ``log``."""

    name: str
    command: list[str]
    env: dict[str, str]
    log: Path
    popen: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with self.log.open("ab") as out:
            self.popen = subprocess.Popen(self.command, cwd=ROOT, env=self.env, stdout=out,
                                          stderr=subprocess.STDOUT, start_new_session=True)

    @property
    def running(self) -> bool:
        return self.popen is not None and self.popen.poll() is None

    def up(self) -> bool:
        """True while it runs; an error with the end of its log once it has ended (a
        condition to wait on while it starts)."""
        if not self.running:
            raise RuntimeError(f"{self.name} ended:\n{self.tail()}")
        return True

    def send(self, sig: int) -> None:
        """Send ``sig`` to the process and its children."""
        if self.popen is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.popen.pid, sig)

    def kill(self, sig: int = signal.SIGKILL, wait: float = 15.0) -> None:
        """Send ``sig`` to the process and its children; wait for it to end (SIGKILL after
        ``wait`` seconds)."""
        if self.popen is None:
            return
        self.send(sig)
        try:
            self.popen.wait(wait)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.popen.pid, signal.SIGKILL)
            self.popen.wait(15)
        with contextlib.suppress(ProcessLookupError):  # children left behind by a SIGTERM
            os.killpg(self.popen.pid, signal.SIGKILL)

    def tail(self, chars: int = 3000) -> str:
        return f"--- {self.name}\n" + self.log.read_text(errors="replace")[-chars:]


@dataclass
class Plan:
    """What to start (the command line's options)."""

    instances: int = 3
    workers_per_instance: int = 2
    basra_workers: int = 2
    port: int = 8080
    """The balancer's port (0: any free one)."""
    database_url: str | None = None
    """None: a fresh ``basra_topology`` on 127.0.0.1:5432 (made anew); given: used as it
    is, migrated."""
    own_redis: bool = False
    redis_db: int = 9
    pooler: bool = True
    """False: no PgBouncer, the instances on ``database_url`` itself (a multi-host URL
    with ``target_session_attrs=read-write`` follows a Patroni cluster's leader)."""
    pool_size: int = 20
    """PostgreSQL backends PgBouncer opens at most (per database and user)."""
    graceful_seconds: int = 10
    """How long a stopped instance finishes its requests (gunicorn's graceful timeout)."""
    settings: dict[str, str] = field(default_factory=dict)
    """More environment for the instances and the workers (``BASRA_*``)."""


class Topology:
    """The processes of a :class:`Plan`, in a temporary folder: :meth:`start`, then
    :meth:`close`."""

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.folder = Path(tempfile.mkdtemp(prefix="basra-topology-"))
        self.direct_url = plan.database_url or DEFAULT_DATABASE
        self.bouncer_port = free_port()
        direct = make_url(self.direct_url)
        self.pooled_url = direct.set(host="127.0.0.1", port=self.bouncer_port,
                                     password=None).render_as_string(hide_password=False)
        self.port = plan.port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.socket = self.folder / "haproxy.sock"
        self.instance_ports = [free_port() for _ in range(plan.instances)]
        self.worker_metrics_ports = [free_port() for _ in range(plan.basra_workers)]
        self.redis: Process | None = None
        self.redis_url = f"redis://{MACHINE_REDIS[0]}:{MACHINE_REDIS[1]}/{plan.redis_db}"
        self.api_key = ""
        self.bouncer: Process | None = None
        self.balancer: Process | None = None
        self.instances: list[Process] = []
        self.workers: list[Process] = []

    # --- start and stop ------------------------------------------------------------

    def start(self) -> None:
        """Start everything and return once the balancer has every instance up."""
        if self.plan.database_url is None:
            fresh_database(self.direct_url)
        # ``basra db upgrade`` then ``basra keys create topology``, in one process (each
        # start costs seconds of imports on a busy machine)
        printed = self._python("-c", "import sys; from service.cli import main; sys.exit("
                              "main(['db', 'upgrade']) or main(['keys', 'create', 'topology']))")
        self.api_key = printed.split()[-1]
        self._start_redis()
        if self.plan.pooler:
            self._start_bouncer()
        self.instances = [self._instance(n) for n in range(self.plan.instances)]
        for n in range(self.plan.instances):
            self.start_instance(n, wait=False)
        for n in range(self.plan.instances):
            self._wait_instance(n)
        self._start_balancer()
        for n in range(self.plan.instances):
            self.wait_server(n, "UP")
        self.workers = [self._worker(n) for n in range(self.plan.basra_workers)]
        for worker in self.workers:
            worker.start()

    def close(self) -> None:
        """Stop every process (gracefully, all at once; then for good) and remove the
        folder: the balancer, the instances and the workers, then PgBouncer and Redis."""
        for group in ([self.balancer, *self.workers, *self.instances], [self.bouncer, self.redis]):
            procs = [proc for proc in group if proc is not None]
            for proc in procs:
                proc.send(signal.SIGTERM)
            for proc in procs:
                proc.kill(signal.SIGTERM, wait=self.plan.graceful_seconds + 5)
        shutil.rmtree(self.folder, ignore_errors=True)

    def tail(self) -> str:
        """The end of every process's log (for a failing test)."""
        procs = [self.bouncer, self.balancer, self.redis, *self.instances, *self.workers]
        return "\n".join(p.tail() for p in procs if p is not None and p.log.exists())

    def _python(self, *args: str) -> str:
        """What ``python ARGS`` prints, on the database directly."""
        return subprocess.run([sys.executable, *args], cwd=ROOT,
                              env={**os.environ, "DATABASE_URL": self.direct_url}, check=True,
                              capture_output=True, text=True).stdout

    def _env(self) -> dict[str, str]:
        """What the instances and the workers share."""
        pooled = self.pooled_url if self.plan.pooler else self.direct_url
        env = {**os.environ, "DATABASE_URL": pooled,
               "BASRA_DIRECT_DATABASE_URL": self.direct_url, "REDIS_URL": self.redis_url,
               "BASRA_SECRET_KEY": self._secret(), "BASRA_TRUSTED_PROXIES": "1",
               "BASRA_API_KEYS": "required", "BASRA_WORKER_METRICS_PORT": "0"}
        env.pop("PROMETHEUS_MULTIPROC_DIR", None)  # each instance's own, below
        return {**env, **self.plan.settings}

    def _secret(self) -> str:
        """The secret every instance signs cursors with (one for all of them)."""
        path = self.folder / "secret"
        if not path.exists():
            path.write_text(secrets.token_urlsafe(32))
        return path.read_text()

    # --- PgBouncer and Redis -------------------------------------------------------

    def _start_bouncer(self) -> None:
        db = make_url(self.direct_url)
        user = db.username or "postgres"
        (self.folder / "userlist.txt").write_text(f'"{user}" ""\n')
        as_root = os.geteuid() == 0  # PgBouncer refuses to run as root: it becomes postgres
        if as_root:
            shutil.chown(self.folder, "postgres", "postgres")
            for made in self.folder.iterdir():
                shutil.chown(made, "postgres", "postgres")
        config = self.folder / "pgbouncer.ini"
        render(PGBOUNCER_TEMPLATE, config, alias=db.database, host=db.host or "127.0.0.1",
               port=db.port or 5432, dbname=db.database, user=user,
               password=f" password={db.password}" if db.password else "",
               listen_port=self.bouncer_port, folder=self.folder,
               pool_size=self.plan.pool_size, run_as="user = postgres" if as_root else "")
        bouncer = Process("pgbouncer", [sbin("pgbouncer"), str(config)], dict(os.environ),
                          self.folder / "pgbouncer.out")
        self.bouncer = bouncer
        bouncer.start()

        def connects() -> bool:
            try:
                with psycopg.connect(libpq(self.pooled_url), connect_timeout=2,
                                     prepare_threshold=None) as conn:
                    conn.execute("SELECT 1")
                return True
            except psycopg.Error:
                return False

        wait_for(lambda: bouncer.up() and connects(), START_SECONDS, "PgBouncer did not answer")

    def _start_redis(self) -> None:
        if not self.plan.own_redis and answers(*MACHINE_REDIS):
            return
        port = free_port()
        self.redis_url = f"redis://127.0.0.1:{port}/0"
        self.redis = Process("redis", [sbin("redis-server"), "--port", str(port), "--bind",
                                       "127.0.0.1", "--save", "", "--appendonly", "no"],
                             dict(os.environ), self.folder / "redis.log")
        self.start_redis()

    def kill_redis(self) -> None:
        """SIGKILL the topology's own Redis (the machine's is left alone)."""
        if self.redis is None:
            raise RuntimeError("the topology uses the machine's Redis: start it with own_redis")
        self.redis.kill()

    def start_redis(self) -> None:
        """Start the topology's own Redis again, on its port."""
        if self.redis is None:
            raise RuntimeError("the topology uses the machine's Redis: start it with own_redis")
        self.redis.start()
        port = int(self.redis_url.rsplit(":", 1)[1].split("/")[0])
        wait_for(lambda: answers("127.0.0.1", port), START_SECONDS, "Redis did not answer")

    # --- the instances -------------------------------------------------------------

    def _instance(self, n: int) -> Process:
        port = self.instance_ports[n]
        metrics = self.folder / f"metrics-i{n}"
        metrics.mkdir(exist_ok=True)
        env = {**self._env(), "WEB_CONCURRENCY": str(self.plan.workers_per_instance),
               "PROMETHEUS_MULTIPROC_DIR": str(metrics)}
        binary = str(Path(sys.executable).with_name("gunicorn"))
        return Process(f"instance i{n}", [
            binary, "--config", "service/gunicorn_conf.py", "--bind", f"127.0.0.1:{port}",
            "--graceful-timeout", str(self.plan.graceful_seconds), "service:create_app()",
        ], env, self.folder / f"instance-i{n}.log")

    def instance_url(self, n: int) -> str:
        """Instance ``n``'s own URL (the balancer's server ``i<n>``)."""
        return f"http://127.0.0.1:{self.instance_ports[n]}"

    def start_instance(self, n: int, *, wait: bool = True) -> None:
        """Start instance ``n`` (again) on its port; with ``wait``, return once it is
        ready and the balancer has it up."""
        self.instances[n].start()
        if wait:
            self._wait_instance(n)
            self.wait_server(n, "UP")

    def _wait_instance(self, n: int) -> None:
        url, proc = self.instance_url(n) + "/readyz", self.instances[n]
        wait_for(lambda: proc.up() and status_of(url) == 200, START_SECONDS,
                 f"instance i{n} was not ready")

    def kill_instance(self, n: int, sig: int = signal.SIGKILL) -> None:
        """End instance ``n`` (its master and workers): SIGKILL, a machine that dies, by
        default; SIGTERM, a graceful stop."""
        self.instances[n].kill(sig, wait=self.plan.graceful_seconds + 5)

    def drain_instance(self, n: int) -> None:
        """The balancer sends instance ``n`` no new connection (its open ones go on)."""
        self.admin(f"set server {BACKEND}/i{n} state drain")

    def ready_instance(self, n: int) -> None:
        """The balancer sends instance ``n`` connections again."""
        self.admin(f"set server {BACKEND}/i{n} state ready")

    # --- the balancer --------------------------------------------------------------

    def _start_balancer(self) -> None:
        config = self.folder / "haproxy.cfg"
        servers = "\n".join(f"    server i{n} 127.0.0.1:{port}"
                            for n, port in enumerate(self.instance_ports))
        # two descriptors a connection (client and server side), within this process's limit
        maxconn = min(20000, (resource.getrlimit(resource.RLIMIT_NOFILE)[1] - 100) // 2)
        render(HAPROXY_TEMPLATE, config, maxconn=maxconn, socket=self.socket,
               bind=f"127.0.0.1:{self.port}", servers=servers)
        haproxy = sbin("haproxy")
        subprocess.run([haproxy, "-c", "-q", "-f", str(config)], check=True)
        balancer = Process("haproxy", [haproxy, "-db", "-f", str(config)], dict(os.environ),
                           self.folder / "haproxy.log")
        self.balancer = balancer
        balancer.start()
        wait_for(lambda: balancer.up() and self.socket.exists(), START_SECONDS,
                 "HAProxy did not start")

    def admin(self, command: str) -> str:
        """One command of HAProxy's runtime API; its answer."""
        with socket.socket(socket.AF_UNIX) as conn:
            conn.settimeout(5)
            conn.connect(str(self.socket))
            conn.sendall(command.encode() + b"\n")
            chunks = []
            while chunk := conn.recv(65536):
                chunks.append(chunk)
        return b"".join(chunks).decode()

    def servers(self) -> dict[str, dict[str, str]]:
        """The balancer's figures of each instance (``show stat``), by server name:
        ``status`` (UP, DOWN, DRAIN, ...), ``stot`` (sessions so far), ``scur``..."""
        rows = csv.DictReader(self.admin("show stat").lstrip("# ").splitlines())
        return {row["svname"]: row for row in rows
                if row["pxname"] == BACKEND and row["svname"] not in ("FRONTEND", "BACKEND")}

    def server_status(self, n: int) -> str:
        """The balancer's status of instance ``n`` (UP, DOWN, ``UP 1/2`` while rising)."""
        return self.servers()[f"i{n}"]["status"]

    def wait_server(self, n: int, status: str, seconds: float = START_SECONDS) -> None:
        """Return once the balancer reports instance ``n`` in ``status``."""
        wait_for(lambda: self.server_status(n) == status, seconds,
                 f"the balancer did not report i{n} {status}")

    # --- the workers ---------------------------------------------------------------

    def _worker(self, n: int) -> Process:
        return Process(f"worker w{n}", [
            sys.executable, "-m", "service.cli", "worker",
            "--metrics-port", str(self.worker_metrics_ports[n]),
        ], self._env(), self.folder / f"worker-w{n}.log")

    def kill_worker(self, n: int, sig: int = signal.SIGKILL) -> None:
        """End ``basra worker`` ``n``: SIGKILL by default."""
        self.workers[n].kill(sig)

    def start_worker(self, n: int) -> None:
        """Start ``basra worker`` ``n`` again; return once its metrics answer."""
        self.workers[n].start()
        port = self.worker_metrics_ports[n]
        wait_for(lambda: answers("127.0.0.1", port), START_SECONDS, f"worker w{n} did not start")

    def describe(self) -> str:
        """What runs where, for the command line."""
        plan = self.plan
        instances = ", ".join(f"i{n} 127.0.0.1:{p}" for n, p in enumerate(self.instance_ports))
        workers = ", ".join(f"w{n} metrics 127.0.0.1:{p}"
                            for n, p in enumerate(self.worker_metrics_ports))
        redis = self.redis_url + (" (its own)" if self.redis else " (the machine's)")
        return "\n".join([
            f"basra topology: {self.url}  (HAProxy round-robin, runtime API {self.socket})",
            f"  server API key (X-API-Key): {self.api_key}",
            f"  instances ({plan.workers_per_instance} gevent workers each): {instances}",
            f"  PgBouncer (transaction mode): 127.0.0.1:{self.bouncer_port} -> "
            f"{make_url(self.direct_url).render_as_string()}" if plan.pooler else
            f"  no PgBouncer: the instances on {make_url(self.direct_url).render_as_string()}",
            f"  Redis: {redis}",
            f"  basra workers: {workers or 'none'}",
            f"  logs: {self.folder}",
        ])


@contextlib.contextmanager
def topology(plan: Plan | None = None, **options: object) -> Iterator[Topology]:
    """A running topology (a :class:`Plan`, or its fields as keywords), stopped
    afterwards."""
    running = Topology(plan or Plan(**options))  # type: ignore[arg-type]
    try:
        try:
            running.start()
        except Exception:
            print(running.tail(), file=sys.stderr)  # why it did not start
            raise
        yield running
    finally:
        running.close()


def _stopped(*_args: object) -> None:
    raise KeyboardInterrupt


def main(argv: list[str], out: IO[str] = sys.stdout) -> int:
    """``topology up [options]``: start the topology and keep it up until Ctrl-C."""
    parser = argparse.ArgumentParser(prog="python -m bench topology",
                                     description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    up = sub.add_parser("up", help="start everything; Ctrl-C stops it")
    up.add_argument("--instances", type=int, default=3, help="gunicorn instances (3)")
    up.add_argument("--workers-per-instance", type=int, default=2,
                    help="gevent workers of each instance (2)")
    up.add_argument("--basra-workers", type=int, default=2, help="basra worker processes (2)")
    up.add_argument("--port", type=int, default=8080, help="the balancer's port (8080)")
    up.add_argument("--database-url", help="a PostgreSQL database to use as it is "
                    f"(default: {DEFAULT_DATABASE}, made anew)")
    up.add_argument("--own-redis", action="store_true",
                    help="a redis-server of its own rather than 127.0.0.1:6379")
    up.add_argument("--redis-db", type=int, default=9,
                    help="the database of the machine's Redis (9)")
    args = parser.parse_args(argv)
    plan = Plan(instances=args.instances, workers_per_instance=args.workers_per_instance,
                basra_workers=args.basra_workers, port=args.port,
                database_url=args.database_url, own_redis=args.own_redis,
                redis_db=args.redis_db)
    signal.signal(signal.SIGTERM, _stopped)
    try:
        with topology(plan) as running:
            print(running.describe(), file=out)
            print("Ctrl-C stops everything.", file=out, flush=True)
            while True:
                signal.pause()
    except KeyboardInterrupt:
        print("stopped", file=out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
