"""Wallets at scale: a player's wallet and ledger pages with a million transfers stored.

Fills the bench database (once) with synthetic transfers of front end 1 in two
currencies (``generate_series``): grants from the mint to 20,000 players and stakes held
from them to tables, one player in twenty transfers ("whale") taking part in 5% of them,
and the accounts' balances summed from them. Then times, through the service's use cases
and through the whole HTTP stack (the app's test client: routing, the key, the player
token, the schema; no socket), a wallet, a ledger's newest page, a page deep in a
whale's ledger by cursor, and a page of every currency. 300 calls each after 30 warm-up
calls; medians and p99 in milliseconds.

``python -m bench wallet`` (``BASRA_BENCH_DATABASE_URL`` names the database; it is
filled once, ``BASRA_BENCH_WALLET_ROWS`` transfers, a million by default).
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Callable

import psycopg

from bench.http import bench_database

TARGET = int(os.environ.get("BASRA_BENCH_WALLET_ROWS", "1000000"))
PLAYERS = 20_000
CALLS, WARM = 300, 30


def _fill(dsn: str) -> int:
    with psycopg.connect(dsn, autocommit=True) as conn:
        have = conn.execute("SELECT count(*) FROM coin_transfers WHERE tenant_pk = 1"
                            ).fetchone()[0]  # type: ignore[index]
        if have >= TARGET:
            return int(have)
        print(f"  filling {TARGET:,} synthetic transfers (once)...", flush=True)
        conn.execute("DELETE FROM coin_holds WHERE tenant_pk = 1")
        conn.execute("DELETE FROM coin_transfers WHERE tenant_pk = 1")
        conn.execute("DELETE FROM coin_accounts WHERE tenant_pk = 1")
        conn.execute("DELETE FROM currencies WHERE tenant_pk = 1")
        conn.execute("INSERT INTO currencies (tenant_pk, code, name, created_at) VALUES "
                     "(1, 'COINS', 'Coins', now()), (1, 'GEMS', 'Gems', now())")
        # the player of transfer g: the whale in one of twenty, else spread over PLAYERS
        conn.execute("""
            INSERT INTO coin_transfers (id, tenant_pk, currency, debit, credit, amount, kind,
                                        reason, match_pk, created_at)
            SELECT 'tr_' || left(md5(g::text || 'w'), 24), 1,
                   CASE WHEN g %% 10 = 0 THEN 'GEMS' ELSE 'COINS' END,
                   CASE WHEN g %% 3 = 0 THEN p ELSE 'mint' END,
                   CASE WHEN g %% 3 = 0 THEN 'table:m' || (g / 2) ELSE p END,
                   1 + g %% 50,
                   CASE WHEN g %% 3 = 0 THEN 'hold' ELSE 'grant' END,
                   CASE WHEN g %% 3 = 0 THEN NULL ELSE 'purchase' END,
                   CASE WHEN g %% 3 = 0 THEN g / 2 END,
                   now() - make_interval(secs => (%(n)s - g))
            FROM (SELECT g, 'player:' || CASE
                        WHEN g %% 20 = 1 THEN 'whale'
                        ELSE 'p' || ((g::bigint * 7919) %% %(players)s) END AS p
                  FROM generate_series(1, %(n)s) AS g) AS made
        """, {"n": TARGET, "players": PLAYERS})
        conn.execute("""
            INSERT INTO coin_accounts (tenant_pk, currency, account, balance, created_at)
            SELECT 1, currency, account, sum(delta), now() FROM (
                SELECT currency, credit AS account, amount AS delta FROM coin_transfers
                WHERE tenant_pk = 1
                UNION ALL
                SELECT currency, debit, -amount FROM coin_transfers WHERE tenant_pk = 1
            ) AS sides GROUP BY currency, account
        """)
        conn.execute("INSERT INTO coin_accounts (tenant_pk, currency, account, balance, "
                     "created_at) VALUES (1, 'COINS', 'house', 0, now()), "
                     "(1, 'GEMS', 'house', 0, now()) ON CONFLICT DO NOTHING")
        for table in ("coin_transfers", "coin_accounts", "coin_holds"):
            conn.execute(f"VACUUM ANALYZE {table}")  # a refill's dead rows gone too
        return TARGET


def _middle(dsn: str) -> int:
    """The number of the transfer halfway through the stored ones."""
    with psycopg.connect(dsn) as conn:
        low, high = conn.execute("SELECT min(pk), max(pk) FROM coin_transfers").fetchone()  # type: ignore[misc]
    return int((low + high) // 2)


def _time(call: Callable[[], object]) -> tuple[float, float]:
    """The median and p99 of ``call``, in milliseconds, after a warm-up."""
    for _ in range(WARM):
        call()
    times = []
    for _ in range(CALLS):
        started = time.perf_counter()
        call()
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.99) - 1]


def run() -> dict[str, float]:
    """Fill, then time the wallet and ledger reads; medians and p99 in milliseconds."""
    url = bench_database()
    dsn = url.replace("postgresql+psycopg://", "postgresql://")
    rows = _fill(dsn)
    halfway = _middle(dsn)

    from service import create_app
    from service.coins import service as coins
    from service.storage.cursors import sign
    from service.tenants.models import LOCAL_TENANT

    app = create_app({"SQLALCHEMY_DATABASE_URI": url, "BASRA_RATE_LIMITS": "off"})
    key = app.config["SECRET_KEY"]
    key = key if isinstance(key, bytes) else key.encode()
    client = app.test_client()
    with app.app_context():
        deep = coins.ledger_page(LOCAL_TENANT, "whale", "COINS", None, 50, key)
        middle = sign(coins.CURSOR, str(halfway), key)
        token = client.post("/v1/players/whale/tokens", json={"ttl_seconds": 3600}) \
            .get_json()["token"]
        bearer = {"Authorization": f"Bearer {token}"}
        cases: dict[str, Callable[[], object]] = {
            "wallet": lambda: coins.wallet(LOCAL_TENANT, "p1234"),
            "ledger_newest": lambda: coins.ledger_page(LOCAL_TENANT, "p1234", "COINS", None,
                                                       50, key),
            "ledger_whale_middle": lambda: coins.ledger_page(LOCAL_TENANT, "whale", "COINS",
                                                             middle, 50, key),
            "ledger_every_currency": lambda: coins.ledger_page(LOCAL_TENANT, "whale", None,
                                                               None, 50, key),
            "http_wallet": lambda: client.get("/v1/players/whale/wallet", headers=bearer),
            "http_ledger": lambda: client.get(
                f"/v1/players/whale/wallet/transfers?currency=COINS&cursor={middle}",
                headers=bearer),
        }
        print(f"wallet: {rows:,} transfers in PostgreSQL, 50-transfer pages, "
              f"{CALLS} calls each (whale: {len(deep.transfers)} on its first page)")
        figures: dict[str, float] = {}
        for label, call in cases.items():
            median, p99 = _time(call)
            figures[f"wallet_{label}_ms"] = round(median, 2)
            figures[f"wallet_{label}_p99_ms"] = round(p99, 2)
            print(f"  {label:<24} median {median:6.2f} ms   p99 {p99:6.2f} ms")
    return figures


def main() -> int:
    """Run the wallet benchmark on its own."""
    run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
