"""The ``basra`` command: simulate variants, print a seed's decks, manage the database."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from importlib import metadata

from .engine import build as engine_build
from .engine import deck_for_round, format_cards, load_rules_file, load_variant, parse_seed
from .engine.errors import BasraError
from .engine.simulate import simulate, simulate_parallel


def _simulate(args: argparse.Namespace) -> int:
    rules = load_rules_file(args.rules) if args.rules else load_variant(args.variant).rules
    if args.rounds is None and args.matches is None:
        args.rounds = 1000
    if args.jobs > 1 and args.matches:
        report = simulate_parallel(rules, args.seed, args.policies, args.matches, args.jobs)
    else:
        report = simulate(
            rules, args.seed, args.policies, rounds=args.rounds, matches=args.matches
        )
    data = report.as_dict()
    data["variant"] = args.variant if not args.rules else args.rules
    data["rules_hash"] = rules.content_hash
    data["engine"] = engine_build.description
    if args.json:
        print(json.dumps(data, indent=2))
        return 0
    print(f"variant {data['variant']} ({rules.content_hash[:12]}), policies "
          f"{' vs '.join(args.policies)}, seed {args.seed!r}")
    print(f"  engine                {engine_build.description}")
    print(f"  rounds played         {report.rounds} in {report.seconds:.2f} s "
          f"({report.rounds_per_second:,.0f} rounds/s)")
    print(f"  matches finished      {report.matches} (draws {report.draws})")
    print(f"  first-player win rate {data['first_player_win_rate']:.1%}")
    print(f"  mean basras per round {data['mean_basras_per_round']:.3f}")
    print(f"  mean points per round {data['mean_points_per_round']:.2f}")
    print(f"  mean match length     {data['mean_match_rounds']:.2f} rounds")
    for i, name in enumerate(args.policies):
        p, lo, hi = report.win_rate(i)
        mean = report.match_points[i] / max(report.matches, 1)
        print(f"  {name:>8} (slot {i}) wins {p:.1%}  95% CI [{lo:.1%}, {hi:.1%}]  "
              f"mean points {mean:.1f} a match")
    return 0


def _deck(args: argparse.Namespace) -> int:
    deck = format_cards(deck_for_round(parse_seed(args.seed), args.round))
    print(json.dumps(deck) if args.json else " ".join(deck))
    return 0


def _db(args: argparse.Namespace) -> int:
    from .db_cli import run_db_command

    return run_db_command(args.db_command, args.revision)


def _worker(args: argparse.Namespace) -> int:
    from . import create_app
    from .ops.logs import json_logging
    from .worker import run, serve_metrics

    json_logging()
    app = create_app()
    if args.metrics_port:
        serve_metrics(app, args.metrics_port, args.metrics_host)
    run(app, args.interval, args.passes)
    return 0


def _keys(args: argparse.Namespace) -> int:
    from .db_cli import run_keys_command

    return run_keys_command(args.keys_command, args.name, args.origin or [],
                            key=args.key, grace=args.grace, role=args.role,
                            staff_name=args.staff_name)


def _ledger(args: argparse.Namespace) -> int:
    from .db_cli import run_ledger_command

    return run_ledger_command(args.name, as_json=args.json)


class _Version(argparse.Action):
    """``--version``: the package's version and the engine build in use, unwrapped."""

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        print(f"basra {metadata.version('basra')}, engine: {engine_build.description}")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``basra`` command."""
    parser = argparse.ArgumentParser(prog="basra", description=__doc__)
    parser.add_argument("--version", action=_Version, nargs=0,
                        help="print the version and which engine build runs")
    sub = parser.add_subparsers(dest="command", required=True)

    sim = sub.add_parser("simulate", help="play random or bot matches and print statistics")
    sim.add_argument("--variant", default="egyptian-v2", help="shipped variant name")
    sim.add_argument("--rules", help="a house-rule YAML file (may use `extends:`)")
    sim.add_argument("--rounds", type=int, help="stop after this many rounds")
    sim.add_argument("--matches", type=int, help="stop after this many matches")
    sim.add_argument("--seed", default="0", help="simulation seed (any text)")
    sim.add_argument(
        "--policies", nargs=2, default=["random", "random"], metavar=("A", "B"),
        help="the two sides' bot levels: random, greedy, expert",
    )
    sim.add_argument("--jobs", type=int, default=1, help="processes (with --matches)")
    sim.add_argument("--json", action="store_true", help="print JSON")
    sim.set_defaults(func=_simulate)

    deck = sub.add_parser("deck", help="print the deck a revealed seed gives for a round")
    deck.add_argument("--seed", required=True, help="the revealed seed, hex")
    deck.add_argument("--round", type=int, default=1, help="round number, from 1")
    deck.add_argument("--json", action="store_true", help="print a JSON list")
    deck.set_defaults(func=_deck)

    db = sub.add_parser("db", help="database migrations (DATABASE_URL)")
    db.add_argument("db_command", choices=["upgrade", "downgrade", "current"])
    db.add_argument("revision", nargs="?", default=None)
    db.set_defaults(func=_db)

    worker = sub.add_parser("worker", help="apply turn deadlines and expiries (DATABASE_URL)")
    worker.add_argument("--interval", type=float, default=0.2, help="seconds between passes")
    worker.add_argument("--passes", type=int, default=None, help="stop after this many")
    worker.add_argument("--metrics-port", type=int,
                        default=int(os.environ.get("BASRA_WORKER_METRICS_PORT", "0") or 0),
                        help="serve the worker's Prometheus metrics on this port "
                        "(BASRA_WORKER_METRICS_PORT; 0: none)")
    worker.add_argument("--metrics-host",
                        default=os.environ.get("BASRA_WORKER_METRICS_HOST", "127.0.0.1"),
                        help="the address the metrics listen on (BASRA_WORKER_METRICS_HOST; "
                        "default 127.0.0.1, this machine only)")
    worker.set_defaults(func=_worker)

    keys = sub.add_parser("keys", help="front ends' API keys (DATABASE_URL)")
    keys.add_argument("keys_command",
                      choices=["create", "list", "revoke", "secret", "rotate-secret"],
                      help="secret: print the front end's player-token secret (HS256); "
                      "rotate-secret: sign new player tokens with a new one (printed)")
    keys.add_argument("name", nargs="?", help="the front end (tenant) name")
    keys.add_argument("--origin", action="append", metavar="URL",
                      help="a browser origin this key may be used from (repeatable); "
                      "without one, a server key, which may vouch for players")
    keys.add_argument("--key", metavar="PREFIX",
                      help="revoke: only the key starting so (as `list` shows it); revoking "
                      "a front end's last key retires its player-token secret")
    keys.add_argument("--role", choices=["viewer", "moderator", "admin"],
                      help="create: a staff key of this role for the console (with --name), "
                      "no API key: viewer reads; moderator suspends, signs players out, "
                      "voids, resolves reports; admin also webhooks, tournaments, erasure")
    keys.add_argument("--name", dest="staff_name", metavar="PERSON",
                      help="create --role: who holds the staff key, as the audit log names "
                      "what they do")
    keys.add_argument("--grace", type=int, default=0, metavar="SECONDS",
                      help="rotate-secret: accept tokens signed with the old secret this "
                      "long (0 to 86400; default 0: refused within about a second)")
    keys.set_defaults(func=_keys)

    ledger = sub.add_parser("ledger", help="the coins' ledger (DATABASE_URL)")
    ledger.add_argument("ledger_command", choices=["check"],
                        help="check: prove the ledger's invariants (every currency sums to "
                        "zero, balances match their transfers, none below zero but the "
                        "mint's and a voided winner's debt, every hold of an ended table "
                        "ended, every table paid once); exit 1 on any breach")
    ledger.add_argument("name", nargs="?", help="one front end (tenant) only")
    ledger.add_argument("--json", action="store_true", help="print the breaches as JSON")
    ledger.set_defaults(func=_ledger)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``basra`` console script."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except (BasraError, KeyError) as exc:
        print(f"basra: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
