"""``python -m bench soak``: the load test's players at a steady count on the topology,
for ``--minutes``, while faults are injected on a schedule (issue 56, item 5).

It starts the topology (:mod:`bench.topology`: HAProxy over ``--instances`` gunicorn
instances, PgBouncer in transaction mode, a Redis of its own so it can be restarted,
``--basra-workers`` workers) on a fresh database, brings ``--players`` of the load test
online (:mod:`bench.load`) and, once they are, injects in turn: SIGKILL the last
instance and start it again; SIGKILL a worker and start it again; SIGKILL Redis and start
it again; with ``--patroni``, SIGKILL the Patroni cluster's leader (then start it again).
With ``--patroni`` the database is the Patroni failover test's set-up (three nodes,
synchronous replication) and there is no PgBouncer: the instances and workers connect
with the multi-host URL and ``target_session_attrs=read-write``, so they follow the
leader. Each fault's start and end are recorded: a fault's window runs from its start to
the end of its recovery (the instance up at the balancer, the worker's metrics
answering, Redis answering, a new leader elected), widened by ``--grace`` seconds each
side.

At the end (the players stopped, the outbox drained) it checks:

* every move a player was answered 201 for is in its match's log (its round, seat and
  card, at or before the version answered); every chat line answered 201 is in the
  match's chat;
* every webhook message of the outbox reached the front end's server: exactly once,
  except a message whose first delivery and repeat span a fault's window (a worker
  killed after the send, before it marked it delivered), repeated with the same
  ``webhook-id``;
* no 5xx answer outside the faults' windows (cut connections are counted apart and
  noted, not judged: an instance's failure reaches a player as the balancer's 502, so a
  cut is between the player and the balancer);
* memory flat: each instance's RSS (its master and workers) sampled every minute, the
  last sample within 10% of the one at the baseline minute (minute 5 of a 30-minute
  soak: a sixth of the run). The instance that is killed is judged from the same
  stretch after its last restart when the run leaves room for it, else not judged.

The schedule scales with ``--minutes``: the first fault half a minute after the baseline
minute, then one every twelfth of the run (a minute at least), none in the last sixth
(a minute at least), the kinds in turn. It prints a table of the faults and one of the
checks; the figures are returned for ``python -m bench``'s JSON line.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import gevent
import psutil
import sqlalchemy
from locust.env import Environment

from bench.load import locustfile
from bench.load.frontend import FrontEnd
from bench.load.habits import Mix
from bench.load.run import SERVICE_SETTINGS
from bench.topology import Plan, Topology, fresh_database, topology, wait_for

DATABASE = "postgresql+psycopg://postgres@127.0.0.1:5432/basra_soak"
KINDS = ("instance", "worker", "redis")
"""The faults in the order they come round; ``leader`` follows with ``--patroni``."""
DOWN_SECONDS = 3.0
"""How long a killed worker or Redis stays down before it is started again (an outage
long enough for the others to notice it)."""
RSS_LIMIT = 0.10
"""The end's RSS within this share of the baseline minute's."""


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench soak",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=30.0,
                        help="how long the players play, from the last sign-in (30)")
    parser.add_argument("--players", type=int, default=70,
                        help="players online throughout: 70%% of the measured capacity (70)")
    parser.add_argument("--spawn-rate", type=float, default=5.0,
                        help="players signing in a second at the start (5)")
    parser.add_argument("--instances", type=int, default=2, help="gunicorn instances (2)")
    parser.add_argument("--workers-per-instance", type=int, default=2,
                        help="gevent workers of each instance (2)")
    parser.add_argument("--basra-workers", type=int, default=2,
                        help="basra worker processes (2)")
    parser.add_argument("--patroni", action="store_true",
                        help="on a three-node Patroni cluster (no PgBouncer), its leader "
                             "killed too")
    parser.add_argument("--fault-every", type=float, default=0.0,
                        help="seconds between faults (default: a twelfth of the run, 60 at "
                             "least)")
    parser.add_argument("--grace", type=float, default=5.0,
                        help="seconds added to each side of a fault's window (5)")
    parser.add_argument("--drain", type=float, default=180.0,
                        help="seconds the outbox is given to drain once the players stop "
                             "(180)")
    parser.add_argument("--database-url", default=DATABASE,
                        help=f"without --patroni: the database, made anew ({DATABASE})")
    args = parser.parse_args(argv)
    if args.minutes <= 0 or args.players <= 0:
        parser.error("--minutes and --players must be positive")
    return args


# ---- the schedule ----------------------------------------------------------------------


def baseline_minute(minutes: float) -> int:
    """The minute memory is judged from: 5 of a 30-minute soak, a sixth of a shorter one
    (1 at least)."""
    return int(min(5, max(1, minutes // 6)))


def schedule(minutes: float, kinds: tuple[str, ...], every: float = 0.0
             ) -> list[tuple[float, str]]:
    """(seconds after the start, kind) of each fault: from half a minute after the
    baseline minute, one every ``every`` seconds (default a twelfth of the run, 60 at
    least), none in the last sixth (60 s at least), the kinds in turn."""
    total = minutes * 60
    every = every or max(60.0, total / 12)
    last = total - max(60.0, total / 6)
    planned: list[tuple[float, str]] = []
    at = baseline_minute(minutes) * 60 + 30.0
    while at <= last:
        planned.append((at, kinds[len(planned) % len(kinds)]))
        at += every
    return planned


@dataclass
class Fault:
    """One fault injected: what, on which process, and its window (``time.time()``)."""

    kind: str
    target: str
    start: float
    end: float = 0.0
    error: str = ""

    def covers(self, first: float, last: float, grace: float) -> bool:
        """Whether ``[first, last]`` meets this fault's window widened by ``grace``."""
        return first <= self.end + grace and last >= self.start - grace


class Injector:
    """Injects the faults on a running topology (and Patroni cluster), each recorded."""

    def __init__(self, top: Topology, cluster: Any = None) -> None:
        self.top, self.cluster = top, cluster
        self.faults: list[Fault] = []
        self.restarted: dict[int, float] = {}
        """Instance -> when it was last started again."""
        self._worker_turn = 0

    def inject(self, kind: str) -> Fault:
        top = self.top
        if kind == "instance":  # always the last: the others' memory is judged unbroken
            n = len(top.instances) - 1
            fault = self._begin(kind, f"i{n}")
            with self._recorded(fault):
                top.kill_instance(n)
                top.wait_server(n, "DOWN", 30)
                top.start_instance(n)  # back once ready and up at the balancer
                self.restarted[n] = time.time()
        elif kind == "worker":
            n = self._worker_turn % len(top.workers)
            self._worker_turn += 1
            fault = self._begin(kind, f"w{n}")
            with self._recorded(fault):
                top.kill_worker(n)
                gevent.sleep(DOWN_SECONDS)
                top.start_worker(n)
        elif kind == "redis":
            fault = self._begin(kind, "redis")
            with self._recorded(fault):
                top.kill_redis()
                gevent.sleep(DOWN_SECONDS)
                top.start_redis()
        elif kind == "leader":
            cluster = self.cluster
            old = cluster.leader()
            fault = self._begin(kind, f"node{old}")
            with self._recorded(fault):
                cluster.kill(old)
                wait_for(lambda: any(cluster.role(n) == "primary" for n in cluster.procs
                                     if n != old), 90, "no standby was promoted")
                cluster.start(old)  # back as a standby, if it can rejoin
        else:
            raise ValueError(f"no fault {kind!r}")
        return fault

    def _begin(self, kind: str, target: str) -> Fault:
        fault = Fault(kind, target, time.time())
        self.faults.append(fault)
        return fault

    @contextlib.contextmanager
    def _recorded(self, fault: Fault) -> Iterator[None]:
        """The fault's end once its recovery returns; a failed recovery noted, not raised
        (the soak goes on and reports it)."""
        try:
            yield
        except Exception as error:  # noqa: BLE001 - reported in the faults' table
            fault.error = f"{type(error).__name__}: {str(error)[:200]}"
        finally:
            fault.end = time.time()


# ---- what the players were told --------------------------------------------------------


@dataclass
class Failures:
    """Every request answered 5xx or cut (no answer), with its span (``time.time()``)."""

    seen: list[tuple[float, float, str, int, str]] = field(default_factory=list)
    """(start, end, request name, status (0: cut), what)."""

    def note(self, request_type: str, name: str, response_time: float,
             exception: BaseException | None = None, response: Any = None,
             start_time: float | None = None, **_: Any) -> None:
        if request_type == locustfile.STREAM:
            return
        status = int(getattr(response, "status_code", 0) or 0) if response is not None else 0
        what = str(exception or "")[:100]
        if response is None:  # the player stream's own events: its connects
            if exception is None or "stream ended" in what:
                return  # a stream the service closed is a reconnect, not a failure
            if "answered" in what:
                status = int(what.rsplit(" ", 1)[-1])
        if 0 < status < 500 or (status == 0 and exception is None):
            return
        end = time.time()
        self.seen.append((start_time or end - response_time / 1000, end, name, status, what))

    def split(self, faults: list[Fault], grace: float
              ) -> tuple[list[tuple[float, float, str, int, str]],
                         list[tuple[float, float, str, int, str]]]:
        """(those within a fault's window widened by ``grace``, the others)."""
        inside: list[tuple[float, float, str, int, str]] = []
        outside: list[tuple[float, float, str, int, str]] = []
        for seen in self.seen:
            met = any(fault.covers(seen[0], seen[1], grace) for fault in faults)
            (inside if met else outside).append(seen)
        return inside, outside


class Memory:
    """Each instance's RSS (its master and workers), sampled: (seconds after the
    start, bytes, or None while it is down)."""

    def __init__(self, top: Topology, started: float) -> None:
        self.top, self.started = top, started
        self.samples: dict[int, list[tuple[float, int | None]]] = {
            n: [] for n in range(len(top.instances))}

    def sample(self) -> None:
        now = time.time() - self.started
        for n, proc in enumerate(self.top.instances):
            self.samples[n].append((now, self._rss(proc.popen.pid) if proc.running and
                                    proc.popen is not None else None))

    @staticmethod
    def _rss(pid: int) -> int | None:
        try:
            root = psutil.Process(pid)
            return sum(p.memory_info().rss for p in [root, *root.children(recursive=True)])
        except psutil.Error:
            return None

    def every_minute(self) -> None:
        while True:
            self.sample()
            gevent.sleep(60)

    def judged(self, baseline: float, restarted: dict[int, float]
               ) -> dict[int, tuple[int | None, int | None, float | None, str]]:
        """Instance -> (baseline RSS, last RSS, change, how judged): the sample taken
        ``baseline`` seconds after the start (or after its last restart) against the
        last one."""
        out: dict[int, tuple[int | None, int | None, float | None, str]] = {}
        for n, samples in self.samples.items():
            since = restarted.get(n, self.started) - self.started
            kept = [(t, rss) for t, rss in samples if t >= since and rss is not None]
            last = kept[-1] if kept else None
            base = next(((t, rss) for t, rss in kept if t >= since + baseline - 5), None)
            how = f"minute {baseline / 60:g}" + (
                f" after its restart at {since / 60:.1f}" if n in restarted else "")
            if last is None or base is None or base[0] >= last[0]:
                out[n] = (base[1] if base else None, last[1] if last else None, None,
                          how + ": no room to judge")
                continue
            out[n] = (base[1], last[1], (last[1] - base[1]) / base[1], how)
        return out

    def series(self, restarted: dict[int, float]) -> dict[int, str]:
        """Instance -> its samples in MB, one a minute (``-`` while it was down, ``|``
        before the first sample after its last restart): the shape, not only the ends."""
        out: dict[int, str] = {}
        for n, samples in self.samples.items():
            since = restarted.get(n, self.started) - self.started
            shown, marked = [], n not in restarted
            for t, rss in samples:
                if not marked and t >= since:
                    shown.append("|")
                    marked = True
                shown.append(_mb(rss))
            out[n] = " ".join(shown)
        return out


# ---- the checks at the end -------------------------------------------------------------


def _rows(engine: sqlalchemy.Engine, sql: str, **params: Any) -> list[Any]:
    with engine.connect() as conn:
        return list(conn.execute(sqlalchemy.text(sql), params))


def drain(engine: sqlalchemy.Engine, front: FrontEnd, seconds: float) -> float:
    """Wait until no message of the outbox is pending (or ``seconds`` have passed): the
    seconds it took."""
    started = time.monotonic()
    while time.monotonic() - started < seconds and _rows(
            engine, "SELECT 1 FROM webhook_messages WHERE status = 'pending' LIMIT 1"):
        gevent.sleep(1.0)  # a query a second is enough to see it drain
    return time.monotonic() - started


def lost_moves(acked: list[tuple[str, int, int, str, int]],
               logged: dict[tuple[str, int, int, str], int]) -> list[str]:
    """The acknowledged moves (match, round, seat, card, version answered) that the
    logs (the same key -> its ``seq``) lack, or hold after the version answered."""
    return [f"{match} round {rnd} seat {seat} {card} (version {version})"
            for match, rnd, seat, card, version in acked
            if logged.get((match, rnd, seat, card), version + 1) > version]


def check_moves(engine: sqlalchemy.Engine, front: FrontEnd) -> list[str]:
    """The acknowledged moves not in their match's log."""
    ids = sorted({match for match, *_ in front.acked_moves})
    logged = {(row[0], row[1], row[2], row[3]): row[4] for row in _rows(
        engine, "SELECT m.id, mv.round, mv.seat, mv.card, mv.seq FROM moves mv "
                "JOIN matches m ON m.pk = mv.match_pk WHERE m.id = ANY(:ids) "
                "AND mv.kind = 'play'", ids=ids)}
    return lost_moves(front.acked_moves, logged)


def check_chat(engine: sqlalchemy.Engine, front: FrontEnd) -> list[str]:
    """The acknowledged chat lines not in their match's chat."""
    ids = sorted({match for match, _ in front.acked_chat})
    kept = {(row[0], row[1]) for row in _rows(
        engine, "SELECT m.id, c.pk FROM chat_lines c JOIN matches m ON m.pk = c.match_pk "
                "WHERE m.id = ANY(:ids)", ids=ids)}
    return [f"{match} line {line}" for match, line in front.acked_chat
            if (match, line) not in kept]


@dataclass
class Deliveries:
    """The outbox against what the front end's server received."""

    messages: int = 0
    pending: int = 0
    failed: int = 0
    missing: list[str] = field(default_factory=list)
    """Messages the outbox holds as delivered that never arrived."""
    repeats_in_faults: int = 0
    repeats_outside: list[str] = field(default_factory=list)
    strangers: int = 0
    """Arrivals the outbox has no message of."""


def check_webhooks(engine: sqlalchemy.Engine, front: FrontEnd, faults: list[Fault],
                   grace: float) -> Deliveries:
    """The outbox's messages against what the front end's server received."""
    rows = _rows(engine, "SELECT msg_id, status FROM webhook_messages")
    return deliveries_of([(row[0], row[1]) for row in rows], front.receiver.seen,
                         front.receiver.repeats, faults, grace)


def deliveries_of(rows: list[tuple[str, str]], received: dict[str, float],
                  repeats: list[tuple[str, float]], faults: list[Fault], grace: float
                  ) -> Deliveries:
    """The outbox's (``msg_id``, status) against the first arrivals (id -> when) and the
    repeats (id, when): a repeat is excused when a fault's window (widened by ``grace``)
    meets the span from its first arrival to it."""
    out = Deliveries(messages=len(rows))
    for msg_id, status in rows:
        if status == "pending":
            out.pending += 1
        elif status == "failed":
            out.failed += 1
        elif msg_id not in received:
            out.missing.append(msg_id)
    known = {msg_id for msg_id, _ in rows}
    out.strangers = sum(1 for msg_id in received if msg_id not in known)
    for msg_id, arrived in repeats:
        first = received[msg_id]
        if any(f.covers(first, arrived, grace) for f in faults):
            out.repeats_in_faults += 1
        else:
            out.repeats_outside.append(
                f"{msg_id} first {_clock(first)}, again {_clock(arrived)}")
    return out


def _clock(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).strftime("%H:%M:%S")


# ---- the run ---------------------------------------------------------------------------


@contextlib.contextmanager
def _database(args: argparse.Namespace) -> Iterator[tuple[str, Any]]:
    """The database URL and, with ``--patroni``, the Patroni cluster under it."""
    if not args.patroni:
        fresh_database(args.database_url)
        yield args.database_url, None
        return
    from tests.servers import patroni_cluster  # the failover test's set-up

    with patroni_cluster() as cluster:
        yield cluster.url, cluster


def run(args: argparse.Namespace) -> dict[str, float]:
    """Start the topology, bring the players online, inject the faults on schedule, stop
    and check: the figures."""
    kinds = KINDS + (("leader",) if args.patroni else ())
    planned = schedule(args.minutes, kinds, args.fault_every)
    baseline = baseline_minute(args.minutes) * 60.0
    print(f"soak: {args.players} players for {args.minutes:g} min on {args.instances} "
          f"instances x {args.workers_per_instance} workers, {args.basra_workers} basra "
          f"workers, {'Patroni (no PgBouncer)' if args.patroni else 'PgBouncer'}; faults at "
          + ", ".join(f"{at / 60:.1f} min {kind}" for at, kind in planned)
          + f"; grace {args.grace:g} s; memory from minute {baseline / 60:g}", flush=True)
    missing_kinds = set(kinds) - {kind for _, kind in planned}
    if missing_kinds:
        print(f"  the run is too short for every fault: no {sorted(missing_kinds)}")
    with contextlib.ExitStack() as stack:
        url, cluster = stack.enter_context(_database(args))
        plan = Plan(instances=args.instances, workers_per_instance=args.workers_per_instance,
                    basra_workers=args.basra_workers, port=0, database_url=url,
                    own_redis=True, pooler=not args.patroni,
                    settings={**SERVICE_SETTINGS, "BASRA_ACCESS_LOG": ""})
        top = stack.enter_context(topology(plan))
        print("  " + top.describe().replace("\n", "\n  "), flush=True)
        engine = sqlalchemy.create_engine(url, poolclass=sqlalchemy.pool.NullPool)
        mix = Mix.from_env()
        locustfile.Player.mix = mix
        front = locustfile.FRONT_END = FrontEnd(top.url, top.api_key, mix)
        front.start()
        stack.callback(front.stop)
        env = Environment(user_classes=[locustfile.Player], host=top.url)
        failures = Failures()
        env.events.request.add_listener(failures.note)
        runner = env.create_local_runner()
        stack.callback(runner.quit)
        runner.start(args.players, spawn_rate=args.spawn_rate)
        wait_for(lambda: len(front.online) >= args.players,
                 args.players / args.spawn_rate + 120, f"{args.players} players did not sign in")
        started = time.time()
        print(f"  {args.players} players online at {_clock(started)}", flush=True)
        memory = Memory(top, started)
        sampler = gevent.spawn(memory.every_minute)
        injector = Injector(top, cluster)
        for at, kind in planned:
            gevent.sleep(max(0.0, started + at - time.time()))
            fault = injector.inject(kind)
            print(f"  {(fault.start - started) / 60:5.1f} min: {fault.kind} {fault.target} "
                  f"recovered in {fault.end - fault.start:.1f} s {fault.error}", flush=True)
        gevent.sleep(max(0.0, started + args.minutes * 60 - time.time()))
        sampler.kill()
        memory.sample()
        played = time.time() - started
        runner.stop()
        drained = drain(engine, front, args.drain)
        gevent.sleep(2.0)  # the last deliveries' answers are noted by the receiver
        moves_lost = check_moves(engine, front)
        chat_lost = check_chat(engine, front)
        deliveries = check_webhooks(engine, front, injector.faults, args.grace)
        rss = memory.judged(baseline, injector.restarted)
        engine.dispose()
    faults = injector.faults
    inside, outside = failures.split(faults, args.grace)
    # judged: the 5xx (an instance's failure reaches the player as the balancer's 502); a
    # cut is between the player and the balancer (likely a reused keep-alive one): noted
    answered = [f for f in outside if f[3]]
    changes = [change for _, _, change, _ in rss.values() if change is not None]
    worst = max(changes, key=abs) if changes else None
    delivered = deliveries.messages - deliveries.pending - deliveries.failed \
        - len(deliveries.missing)
    checks: dict[str, tuple[str, bool | None]] = {
        "acknowledged moves in their match's log": (
            f"{len(front.acked_moves) - len(moves_lost)} of {len(front.acked_moves)}",
            not moves_lost and bool(front.acked_moves)),
        "acknowledged chat lines in their match's chat": (
            f"{len(front.acked_chat) - len(chat_lost)} of {len(front.acked_chat)}",
            not chat_lost),
        "webhook messages delivered": (
            f"{delivered} of {deliveries.messages} ({deliveries.pending} pending, "
            f"{deliveries.failed} failed, {len(deliveries.missing)} marked delivered, never "
            f"received; drained in {drained:.0f} s)",
            deliveries.messages > 0 and not (deliveries.pending or deliveries.failed
                                             or deliveries.missing)),
        "webhook repeats outside faults (exactly once)": (
            f"{len(deliveries.repeats_outside)} ({deliveries.repeats_in_faults} across faults, "
            f"same webhook-id; {deliveries.strangers} unknown ids)",
            not deliveries.repeats_outside and not deliveries.strangers),
        "5xx outside faults": (
            f"{len(answered)} ({sum(1 for f in inside if f[3])} within the faults' windows "
            f"+-{args.grace:g} s)", not answered),
        "cut connections outside faults (noted)": (
            f"{len(outside) - len(answered)} ({sum(1 for f in inside if not f[3])} within "
            "the faults' windows)", None),
        f"instances' RSS within {RSS_LIMIT:.0%}": (
            "; ".join(f"i{n} {_mb(base)} -> {_mb(last)} MB "
                      f"({'-' if change is None else f'{change:+.1%}'}, {how})"
                      for n, (base, last, change, how) in rss.items()),
            bool(changes) and all(abs(c) <= RSS_LIMIT for c in changes)),
        "faults recovered": (
            f"{sum(1 for f in faults if not f.error)} of {len(faults)}",
            bool(faults) and not any(f.error for f in faults)),
    }
    _print_tables(faults, started, checks, failures, args.grace)
    print("  instances' RSS each minute (MB, master and workers; | its last restart)")
    for n, shown in memory.series(injector.restarted).items():
        print(f"    i{n}: {shown}")
    for what, examples in (("moves lost", moves_lost), ("chat lines lost", chat_lost),
                           ("webhook messages never received", deliveries.missing),
                           ("webhook repeats outside faults", deliveries.repeats_outside),
                           ("5xx or cut outside faults", [
                               f"{_clock(s)}-{_clock(e)} {name}: {status or 'cut'} {what}"
                               for s, e, name, status, what in outside]),
                           ("in a fault's window, other than the balancer's 502", [
                               f"{_clock(s)}-{_clock(e)} {name}: {status or 'cut'} {what}"
                               for s, e, name, status, what in inside if status != 502])):
        for example in examples[:5]:
            print(f"  {what}: {example}")
    return {
        "soak_minutes": round(played / 60, 1), "soak_players": args.players,
        "soak_faults": len(faults),
        "soak_faults_failed": sum(1 for f in faults if f.error),
        "soak_fault_recovery_max_s": round(max((f.end - f.start for f in faults), default=0), 1),
        "soak_moves_acked": len(front.acked_moves), "soak_moves_lost": len(moves_lost),
        "soak_chat_acked": len(front.acked_chat), "soak_chat_lost": len(chat_lost),
        "soak_webhook_messages": deliveries.messages,
        "soak_webhook_undelivered": deliveries.pending + deliveries.failed
        + len(deliveries.missing),
        "soak_webhook_repeats_in_faults": deliveries.repeats_in_faults,
        "soak_webhook_repeats_outside": len(deliveries.repeats_outside),
        "soak_errors_in_faults": len(inside), "soak_5xx_outside": len(answered),
        "soak_cuts_outside": len(outside) - len(answered),
        **({} if worst is None else {"soak_rss_change_max_pct": round(worst * 100, 1)}),
        "soak_passed": int(all(ok is not False for _, ok in checks.values())),
    }


def _mb(value: int | None) -> str:
    return "-" if value is None else f"{value / 2**20:.0f}"


def _print_tables(faults: list[Fault], started: float,
                  checks: dict[str, tuple[str, bool | None]],
                  failures: Failures, grace: float) -> None:
    print(f"  {'fault':<9} {'target':<7} {'start':>9} {'at min':>7} {'recovery s':>11}  "
          f"5xx or cut in its window (status: count; 0 a cut)  error")
    for f in faults:
        met = Counter(status for first, last, _, status, _ in failures.seen
                      if f.covers(first, last, grace))
        shown = ", ".join(f"{status}: {count}" for status, count in sorted(met.items()))
        print(f"  {f.kind:<9} {f.target:<7} {_clock(f.start):>9} "
              f"{(f.start - started) / 60:>7.1f} {f.end - f.start:>11.1f}  "
              f"{shown or 'none':<48}  {f.error or '-'}")
    print(f"  {'check':<48} {'verdict':<7} figures")
    for name, (figure, ok) in checks.items():
        verdict = "noted" if ok is None else "ok" if ok else "FAILED"
        print(f"  {name:<48} {verdict:<7} {figure}")


def main(argv: list[str]) -> dict[str, float]:
    """``python -m bench soak [flags]``: run, print the tables, return the figures."""
    return run(parse(argv))


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1:]), sort_keys=True))
