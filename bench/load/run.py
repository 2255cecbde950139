"""``python -m bench load``: a day of a big front end, Locust run headless as a library.

Against a running service (``--url URL --server-key KEY``: one instance, or a load
balancer in front of several) or one it starts itself (``--start``: gunicorn and ``basra
worker`` on a fresh PostgreSQL database, webhooks to this machine allowed). Players come
online in steps (``--players 20,50,100``, ``--spawn-rate`` a second); each step is measured
for ``--duration`` seconds once all its players are online: the move's latency (p50, p95,
p99), every request's p99 (long polls and stream events left out: they wait by design),
errors, requests a second, webhook messages a second received and their lag, and the CPU
of each side apart, in cores (CPU seconds a second): the generator (this process: the
players and the front end's server), the service (the processes of ``--start``, or those
of ``--service-pids`` and their children) and PostgreSQL's backends of the service's
database. On 2 shared cores the generator competes with the service: its figure says how
much it took. The last line printed is one JSON object of the figures; a chart of the
move's latency against players online goes to ``build/load/``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import gevent
import psutil
from locust.env import Environment
from sqlalchemy import make_url

from bench.http import ROOT, cli, fresh_database, serve, worker
from bench.load import locustfile
from bench.load.frontend import FrontEnd
from bench.load.habits import Mix, percentile

DATABASE = os.environ.get("BASRA_BENCH_LOAD_DATABASE_URL",
                          "postgresql+psycopg://postgres@127.0.0.1:5432/basra_bench_load")
PORT = int(os.environ.get("BASRA_BENCH_LOAD_PORT", "8797"))
CHART_DIR = ROOT / "build" / "load"
WAITED = (locustfile.LONG_POLL,)
"""Requests that wait by design: out of every request's p99 (their own figures apart)."""
SERVICE_SETTINGS = {
    "BASRA_WEBHOOKS_ALLOW_PRIVATE": "1",  # the front end's server listens on this machine
    "BASRA_API_KEYS": "required",
    # every player connects from 127.0.0.1: one client to the waiters' per-client cap
    "BASRA_MAX_WAITERS_PER_CLIENT": "5000",
}


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench load", description=__doc__.split(
        "\n\n")[0])
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--url", help="a running service (or its load balancer)")
    where.add_argument("--start", action="store_true",
                       help="start gunicorn and basra worker on a fresh database (default)")
    where.add_argument("--topology", action="store_true",
                       help="start the topology operators run (bench/topology.py: HAProxy, "
                            "gunicorn instances, PgBouncer, Redis, basra workers) and measure "
                            "each part apart")
    parser.add_argument("--instances", type=int, default=2,
                        help="with --topology: gunicorn instances (2)")
    parser.add_argument("--workers-per-instance", type=int, default=1,
                        help="with --topology: gunicorn workers in each instance (1)")
    parser.add_argument("--basra-workers", type=int, default=2,
                        help="with --topology: basra worker processes (2)")
    parser.add_argument("--server-key", help="a server key of the front end (with --url)")
    parser.add_argument("--players", default="20,50,100",
                        help="players online at each step, comma-separated (20,50,100)")
    parser.add_argument("--spawn-rate", type=float, default=5.0,
                        help="players signing in a second while a step ramps up (5)")
    parser.add_argument("--duration", type=float, default=60.0,
                        help="seconds each step is measured, from --settle after its last "
                             "sign-in (60)")
    parser.add_argument("--settle", type=float, default=10.0,
                        help="seconds between a step's last sign-in and its window: the "
                             "burst of first quick plays left out (10)")
    parser.add_argument("--service-pids", default="",
                        help="with --url: the service's processes (their children too) whose "
                             "CPU to measure, comma-separated")
    parser.add_argument("--database", default="",
                        help="with --url: the service's database name, whose PostgreSQL "
                             "backends' CPU to measure")
    parser.add_argument("--mix", action="append", default=[], metavar="NAME=VALUE",
                        help="a setting of the mix and pace (bench/load/habits.py, e.g. "
                             "think_median_s=2); also BASRA_LOAD_<NAME> variables")
    args = parser.parse_args(argv)
    if args.url and not args.server_key:
        parser.error("--url needs --server-key (a server key of the front end)")
    args.steps = [int(n) for n in args.players.split(",") if n.strip()]
    mix = Mix.from_env()
    for item in args.mix:
        name, _, value = item.partition("=")
        if not hasattr(mix, name):
            parser.error(f"--mix {item}: no such setting (bench/load/habits.py's Mix)")
        kind = type(getattr(mix, name))
        mix = replace(mix, **{name: kind(value)})
    args.mix = mix
    return args


# ---- CPU of each side ------------------------------------------------------------------


class CpuGroup:
    """CPU seconds used by a changing set of processes (new ones count from their start)."""

    def __init__(self, find: Any) -> None:
        self._find = find
        self._seen: dict[int, float] = {}

    def _now(self) -> dict[int, float]:
        times: dict[int, float] = {}
        for process in self._find():
            with contextlib.suppress(psutil.Error):
                cpu = process.cpu_times()
                times[process.pid] = cpu.user + cpu.system
        return times

    def mark(self) -> None:
        self._seen = self._now()

    def since(self) -> float:
        """CPU seconds since :meth:`mark` of the processes alive now."""
        return sum(t - self._seen.get(pid, 0.0) for pid, t in self._now().items())


def _trees(pids: list[int]) -> Any:
    def find() -> list[psutil.Process]:
        found = []
        for pid in pids:
            with contextlib.suppress(psutil.Error):
                root = psutil.Process(pid)
                found += [root, *root.children(recursive=True)]
        return found
    return find


def _backends(database: str) -> Any:
    """PostgreSQL's backend processes serving ``database`` (their title names it)."""
    needle = f" {database} "

    def find() -> list[psutil.Process]:
        if not database:
            return []
        return [p for p in psutil.process_iter(["name", "cmdline"])
                if p.info["name"] == "postgres" and needle in " ".join(p.info["cmdline"] or [])]
    return find


# ---- a step's figures ------------------------------------------------------------------


@dataclass
class Window:
    """What the players' requests and events gave during one step."""

    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: Counter[str] = field(default_factory=Counter)
    events: Counter[str] = field(default_factory=Counter)

    def note(self, request_type: str, name: str, response_time: float,
             exception: BaseException | None, **_: Any) -> None:
        if request_type == locustfile.STREAM and name != locustfile.TURN_HEARD:
            self.events[name] += 1
            return
        self.latencies[name].append(response_time)
        if exception is not None:
            self.errors[f"{name}: {str(exception)[:60]}"] += 1


def _ms(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def measure(env: Environment, front: FrontEnd, players: int, spawn_rate: float,
            seconds: float, groups: dict[str, CpuGroup], settle: float = 0.0,
            database: Database | None = None, instances: Any = None) -> dict[str, Any]:
    """Bring ``players`` online, let ``settle`` seconds pass (the newcomers' first quick
    plays all at once: quick play is serialised per front end and rules) and measure a
    window of ``seconds``."""
    runner = env.runner
    assert runner is not None
    runner.start(players, spawn_rate=spawn_rate)
    ramp_deadline = time.monotonic() + players / spawn_rate + 120
    while runner.user_count < players or len(front.online) < players:
        if time.monotonic() > ramp_deadline:
            raise RuntimeError(f"only {len(front.online)} of {players} players signed in")
        gevent.sleep(0.2)
    gevent.sleep(settle)
    window = Window()
    env.events.request.add_listener(window.note)
    webhooks_before, lags_before = front.receiver.messages, len(front.receiver.lags)
    for group in groups.values():
        group.mark()
    if database is not None:
        database.mark()
    started = time.monotonic()
    gevent.sleep(seconds)  # the measured window: the players play on meanwhile
    wall = time.monotonic() - started
    cores = {name: round(group.since() / wall, 3) for name, group in groups.items()}
    stored = database.since() if database is not None else {}
    rss = (sum(p.memory_info().rss for p in instances() if p.is_running()) / 2**20
           if instances is not None else None)
    env.events.request.remove_listener(window.note)
    moves = window.latencies.get(locustfile.MOVE, [])
    timed = [t for name, ts in window.latencies.items() if name not in WAITED
             and name != locustfile.TURN_HEARD for t in ts]
    requests_made = sum(len(ts) for name, ts in window.latencies.items()
                        if name != locustfile.TURN_HEARD)
    heard = window.latencies.get(locustfile.TURN_HEARD, [])
    lags = front.receiver.lags[lags_before:]
    slowest = sorted(((name, percentile(ts, 0.99) or 0.0) for name, ts in window.latencies.items()
                      if name not in WAITED and name != locustfile.TURN_HEARD),
                     key=lambda pair: -pair[1])[:3]
    return {
        "players": players, "online": len(front.online),
        "streams_open": locustfile.PlayerStream.held, "seconds": round(wall, 1),
        "moves": len(moves), "move_p50_ms": _ms(percentile(moves, 0.5)),
        "move_p95_ms": _ms(percentile(moves, 0.95)), "move_p99_ms": _ms(percentile(moves, 0.99)),
        "requests_p99_ms": _ms(percentile(timed, 0.99)),
        "turn_heard_p50_ms": _ms(percentile(heard, 0.5)),
        "turn_heard_p99_ms": _ms(percentile(heard, 0.99)),
        "requests_per_s": round(requests_made / wall, 1),
        "errors": sum(window.errors.values()), "error_kinds": dict(window.errors.most_common(5)),
        "slowest_p99_ms": {name: round(p99, 1) for name, p99 in slowest},
        "stream_events": sum(window.events.values()),
        "webhooks_per_s": round((front.receiver.messages - webhooks_before) / wall, 1),
        "webhook_lag_p99_ms": _ms(None if not lags else percentile(lags, 0.99) * 1000),
        **{f"{name}_cores": value for name, value in cores.items()},
        **stored, **({} if rss is None else {"instances_rss_mb": round(rss, 1)}),
    }


def _print_step(step: dict[str, Any]) -> None:
    def f(value: float | None) -> str:
        return "-" if value is None else f"{value:,.1f}"

    print(f"  {step['players']:>5} players ({step['streams_open']} streams open): "
          f"{step['moves']} moves, move p50 {f(step['move_p50_ms'])} ms, p95 "
          f"{f(step['move_p95_ms'])} ms, p99 {f(step['move_p99_ms'])} ms; every request's p99 "
          f"{f(step['requests_p99_ms'])} ms; {step['requests_per_s']:.1f} req/s, "
          f"{step['errors']} errors")
    print(f"        turn heard on the other seat's stream p50 {f(step['turn_heard_p50_ms'])} ms, "
          f"p99 {f(step['turn_heard_p99_ms'])} ms; webhooks {step['webhooks_per_s']:.1f}/s "
          f"(lag p99 {f(step['webhook_lag_p99_ms'])} ms); cores: generator "
          f"{step['generator_cores']:.2f}, service {step['service_cores']:.2f}, "
          f"postgres backends {step['postgres_cores']:.2f}")
    if "workers_cores" in step:
        print(f"        topology: workers {step['workers_cores']:.2f} cores, balancer+pooler+"
              f"redis {step['edge_cores']:.2f}; instances' RSS {step['instances_rss_mb']:,.0f} MB; "
              f"database {step['db_commits_per_s']:,.0f} commits/s, "
              f"{step['db_rows_written_per_s']:,.0f} rows written/s, "
              f"{step['db_connections']} connections")
    elif "db_commits_per_s" in step:
        print(f"        database {step['db_commits_per_s']:,.0f} commits/s, "
              f"{step['db_rows_written_per_s']:,.0f} rows written/s, "
              f"{step['db_connections']} connections")
    print("        slowest p99: " + ", ".join(f"{name} {p99:,.0f} ms"
                                              for name, p99 in step["slowest_p99_ms"].items()))
    for kind, count in step["error_kinds"].items():
        print(f"        error x{count}: {kind}")


def chart(steps: list[dict[str, Any]], path: Path) -> Path | None:
    """The move's latency (p50, p95, p99) and each side's cores against players online,
    as a PNG; None without matplotlib (the bench extra)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import matplotlib.ticker
    except ImportError:
        print("  no chart: matplotlib is not installed (pip install -e '.[bench]')")
        return None
    players = [s["players"] for s in steps]
    figure, (latency, cpu) = plt.subplots(2, 1, figsize=(8, 7), sharex=True)
    for key, label in (("move_p50_ms", "move p50"), ("move_p95_ms", "move p95"),
                       ("move_p99_ms", "move p99"), ("requests_p99_ms", "every request p99")):
        latency.plot(players, [s[key] for s in steps], marker="o", label=label)
    latency.set_yscale("log")  # a move's tens of ms beside a queued quick play's seconds
    latency.yaxis.set_major_formatter(matplotlib.ticker.ScalarFormatter())
    latency.set_ylabel("milliseconds (log)")
    latency.set_title("A day of a big front end: latency against players online")
    latency.legend()
    latency.grid(alpha=0.3)
    for key, label in (("service_cores", "service"), ("postgres_cores", "PostgreSQL backends"),
                       ("generator_cores", "load generator")):
        cpu.plot(players, [s[key] for s in steps], marker="o", label=label)
    cpu.set_ylabel("cores (CPU s / s)")
    cpu.set_xlabel("players online")
    cpu.legend()
    cpu.grid(alpha=0.3)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path


def figures_of(steps: list[dict[str, Any]]) -> dict[str, float]:
    """The steps as flat figures, ``load_<players>_<figure>``."""
    out: dict[str, float] = {}
    for step in steps:
        for key, value in step.items():
            if isinstance(value, int | float) and key != "players":
                out[f"load_{step['players']}_{key}"] = value
    return out


# ---- the run -------------------------------------------------------------------------


@contextlib.contextmanager
def _started_service() -> Iterator[tuple[str, str, list[int], str]]:
    """gunicorn and ``basra worker`` on a fresh database: (URL, server key, their PIDs,
    the database's name)."""
    fresh_database(DATABASE)
    out = cli(DATABASE, "keys", "create", "load-studio")
    key = next(word for word in out.split() if word.startswith("bk_"))
    settings = {"DATABASE_URL": DATABASE, **SERVICE_SETTINGS}
    with serve(PORT, **settings) as server, worker(DATABASE, **settings) as work:
        yield f"http://127.0.0.1:{PORT}", key, [server.pid, work.pid], DATABASE.rsplit("/", 1)[1]


@contextlib.contextmanager
def _started_topology(args: argparse.Namespace) -> Iterator[tuple[str, str, Any]]:
    """The topology on a fresh database: (the balancer's URL, a server key, the topology)."""
    from bench import topology

    plan = topology.Plan(instances=args.instances, workers_per_instance=args.workers_per_instance,
                         basra_workers=args.basra_workers, port=0,
                         settings={k: str(v) for k, v in SERVICE_SETTINGS.items()})
    with topology.topology(plan) as top:
        yield top.url, top.api_key, top


def _pids(processes: list[Any]) -> Any:
    """The processes (and their children) of a topology's parts, as they are now."""
    return lambda: _trees([p.popen.pid for p in processes if p is not None
                           and p.popen is not None and p.popen.poll() is None])()


class Database:
    """What PostgreSQL says of one database between two marks: transactions and rows
    written a second, and the connections open to it now."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._seen: tuple[float, int, int, int] = (time.monotonic(), 0, 0, 0)

    def _now(self) -> tuple[float, int, int, int]:
        """(when, commits, rows written, connections open), in one query."""
        import psycopg

        with psycopg.connect("host=127.0.0.1 user=postgres dbname=postgres") as conn:
            found = conn.execute(
                "SELECT xact_commit, tup_inserted + tup_updated + tup_deleted, "
                "(SELECT count(*) FROM pg_stat_activity a WHERE a.datname = d.datname) "
                "FROM pg_stat_database d WHERE datname = %s", (self.name,)).fetchone()
        commits, written, connections = found or (0, 0, 0)
        return time.monotonic(), int(commits), int(written), int(connections)

    def mark(self) -> None:
        self._seen = self._now()

    def since(self) -> dict[str, float]:
        now = self._now()
        wall = now[0] - self._seen[0]
        return {"db_commits_per_s": round((now[1] - self._seen[1]) / wall, 1),
                "db_rows_written_per_s": round((now[2] - self._seen[2]) / wall, 1),
                "db_connections": now[3]}


def run(args: argparse.Namespace) -> dict[str, float]:
    """The steps against the service; the figures."""
    with contextlib.ExitStack() as stack:
        top = None
        if args.url:
            url, key = args.url, args.server_key
            pids = [int(p) for p in args.service_pids.split(",") if p.strip()]
            database = args.database
        elif args.topology:
            url, key, top = stack.enter_context(_started_topology(args))
            pids, database = [], make_url(top.direct_url).database or ""
        else:
            url, key, pids, database = stack.enter_context(_started_service())
        os.environ.update(args.mix.env())
        locustfile.Player.mix = args.mix
        front = locustfile.FRONT_END = FrontEnd(url, key, args.mix)
        front.start()
        stack.callback(front.stop)
        env = Environment(user_classes=[locustfile.Player], host=url)
        runner = env.create_local_runner()
        stack.callback(runner.quit)
        groups = {"generator": CpuGroup(lambda: [psutil.Process()]),
                  "service": CpuGroup(_trees(pids)), "postgres": CpuGroup(_backends(database))}
        if top is not None:  # each part of the topology apart
            groups.update({
                "service": CpuGroup(_pids(top.instances)),
                "workers": CpuGroup(_pids(top.workers)),
                "edge": CpuGroup(_pids([top.balancer, top.bouncer, top.redis]))})
            pids = [p.popen.pid for p in top.instances if p.popen is not None]
        print(f"load: a front end's players against {url}, steps {args.steps}, "
              f"{args.duration:g} s each from {args.settle:g} s after the last sign-in "
              f"(spawning {args.spawn_rate:g}/s); "
              f"think median {args.mix.think_median_s:g} s; service processes "
              f"{pids or 'not given'}, database {database or 'not given'}")
        steps = []
        for players in args.steps:
            step = measure(env, front, players, args.spawn_rate, args.duration, groups,
                           args.settle, Database(database) if database else None,
                           _trees(pids) if top is not None else None)
            _print_step(step)
            steps.append(step)
        received = front.receiver
        print(f"  webhooks: {received.messages} messages, {received.duplicates} duplicates, "
              f"{received.bad_signatures} bad signatures; by kind "
              f"{dict(received.kinds.most_common())}")
    path = chart(steps, CHART_DIR / f"load-{time.strftime('%Y%m%d-%H%M%S')}.png")
    if path is not None:
        print(f"  chart: {path}")
    figures = figures_of(steps)
    figures.update({"load_webhook_messages": received.messages,
                    "load_webhook_duplicates": received.duplicates,
                    "load_webhook_bad_signatures": received.bad_signatures})
    return figures


def main(argv: list[str]) -> dict[str, float]:
    """``python -m bench load [flags]``: run, print the figures' JSON line, return them."""
    return run(parse(argv))


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1:]), sort_keys=True))
