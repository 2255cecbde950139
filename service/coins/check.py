"""The ledger's checker (``basra ledger check``, and after every economy test): it proves
the invariants from the stored rows alone, and lists every breach it finds.

* each front end's currency sums to zero over its accounts (no coin made or lost);
* each account's balance is its credits minus its debits in the transfers;
* no balance is below zero but the mint's, and a player's debt after a void (never more
  than the ``refund_pot`` transfers taken from them);
* each escrow holds exactly what its held holds hold (a settled or released hold has
  left it);
* every hold of an ended match or tournament is settled or released (who ended is asked
  of the matches and tournaments through the functions the composition root wired);
* every table was paid once: its pot and rake in one settlement, together what its
  settled holds held; a tournament's prizes in one payout.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, literal, select, union_all

from ..storage.db import backend, db, transaction
from . import accounts
from .enums import HoldStatus, TransferKind
from .models import CoinAccount, CoinHold, CoinTransfer

Ended = Callable[[Sequence[int]], Collection[int]]
"""Of these match (or tournament) pks, those that have ended."""

_ended: dict[str, Ended] = {}


def wire(*, matches: Ended | None = None, tournaments: Ended | None = None) -> None:
    """Who tells the checker which matches and tournaments have ended (the composition
    root wires the owners' use cases; unwired, that rule is not checked)."""
    if matches is not None:
        _ended["matches"] = matches
    if tournaments is not None:
        _ended["tournaments"] = tournaments


@dataclass(frozen=True)
class Breach:
    """One invariant broken: which, where, and what was found."""

    rule: str
    """``sum``, ``balance``, ``negative``, ``escrow``, ``hold_open``, ``paid_twice``."""
    tenant_pk: int
    currency: str
    subject: str
    """The account, match or tournament it is about (``*``: the whole currency)."""
    detail: str

    def __str__(self) -> str:
        return (f"{self.rule}: tenant {self.tenant_pk} {self.currency} {self.subject}: "
                f"{self.detail}")


Key = tuple[int, str, str]
"""(tenant, currency, account)."""


def run(tenant: int | None = None) -> list[Breach]:
    """:func:`check` in a transaction of its own, on one snapshot of the database (on
    PostgreSQL REPEATABLE READ: a live service's transfers committed between two of its
    reads never look like a breach)."""
    with transaction():
        if backend() == "postgresql":
            db.session.connection(execution_options={"isolation_level": "REPEATABLE READ"})
        return check(tenant)


def check(tenant: int | None = None) -> list[Breach]:
    """Every breach of the ledger's invariants, of one front end or of all (in the
    caller's transaction, or the session's)."""
    balances = _balances(tenant)
    moved = _moved(tenant)
    breaches = [*_sums(balances), *_balanced(balances, moved),
                *_negatives(balances, tenant), *_escrows(balances, tenant),
                *_open_holds(tenant), *_paid_twice(tenant)]
    return breaches


def _where(table: type, tenant: int | None) -> list[Any]:
    return [] if tenant is None else [table.tenant_pk == tenant]  # type: ignore[attr-defined]


def _balances(tenant: int | None) -> dict[Key, int]:
    a = CoinAccount
    return {(t, c, name): balance for t, c, name, balance in db.session.execute(
        select(a.tenant_pk, a.currency, a.account, a.balance).where(*_where(a, tenant)))}


def _moved(tenant: int | None) -> dict[Key, int]:
    """Each account's credits minus debits, summed by the database."""
    t = CoinTransfer
    sides = union_all(
        select(t.tenant_pk, t.currency, t.credit.label("account"), t.amount.label("delta"))
        .where(*_where(t, tenant)),
        select(t.tenant_pk, t.currency, t.debit.label("account"),
               (literal(0) - t.amount).label("delta")).where(*_where(t, tenant)),
    ).subquery()
    return {(tp, c, name): int(total) for tp, c, name, total in db.session.execute(
        select(sides.c.tenant_pk, sides.c.currency, sides.c.account, func.sum(sides.c.delta))
        .group_by(sides.c.tenant_pk, sides.c.currency, sides.c.account))}


def _sums(balances: dict[Key, int]) -> list[Breach]:
    totals: dict[tuple[int, str], int] = defaultdict(int)
    for (tenant, currency, _), balance in balances.items():
        totals[(tenant, currency)] += balance
    return [Breach("sum", tenant, currency, "*", f"the accounts sum to {total}, not 0")
            for (tenant, currency), total in sorted(totals.items()) if total]


def _balanced(balances: dict[Key, int], moved: dict[Key, int]) -> list[Breach]:
    return [Breach("balance", *key, f"balance {balances.get(key)}, its transfers "
                   f"{moved.get(key, 0)}")
            for key in sorted(balances.keys() | moved.keys())
            if balances.get(key) != moved.get(key, 0) or key not in balances]


def _negatives(balances: dict[Key, int], tenant: int | None) -> list[Breach]:
    below = {key: b for key, b in balances.items() if b < 0 and key[2] != accounts.MINT}
    if not below:
        return []
    t = CoinTransfer
    refunded = {(tp, c, name): int(total) for tp, c, name, total in db.session.execute(
        select(t.tenant_pk, t.currency, t.debit, func.sum(t.amount))
        .where(t.kind == TransferKind.REFUND_POT, *_where(t, tenant))
        .group_by(t.tenant_pk, t.currency, t.debit))}
    return [Breach("negative", *key, f"balance {b}"
                   + (f", more than the {refunded[key]} a void took back" if key in refunded
                      else ""))
            for key, b in sorted(below.items())
            if accounts.player_of(key[2]) is None or -b > refunded.get(key, 0)]


def _escrows(balances: dict[Key, int], tenant: int | None) -> list[Breach]:
    h = CoinHold
    held = {(tp, c, escrow): int(total) for tp, c, escrow, total in db.session.execute(
        select(h.tenant_pk, h.currency, h.escrow, func.sum(h.amount))
        .where(h.status == HoldStatus.HELD, *_where(h, tenant))
        .group_by(h.tenant_pk, h.currency, h.escrow))}
    escrows = {key for key in balances if accounts.is_escrow(key[2])} | held.keys()
    return [Breach("escrow", *key, f"holds {balances.get(key, 0)}, its held holds "
                   f"{held.get(key, 0)}")
            for key in sorted(escrows) if balances.get(key, 0) != held.get(key, 0)]


def _open_holds(tenant: int | None) -> list[Breach]:
    h = CoinHold
    found = []
    for name, column in (("matches", h.match_pk), ("tournaments", h.tournament_pk)):
        ended = _ended.get(name)
        if ended is None:
            continue
        rows = db.session.execute(select(h.tenant_pk, h.currency, h.escrow, h.player_id,
                                         column).where(h.status == HoldStatus.HELD,
                                                       column.is_not(None),
                                                       *_where(h, tenant))).all()
        over = set(ended(sorted({r[4] for r in rows if r[4] is not None}))) if rows else set()
        found += [Breach("hold_open", tp, c, escrow, f"{player}'s hold is still held, "
                         f"its {name[:-1]} ended") for tp, c, escrow, player, pk in rows
                  if pk in over]
    return found


def _paid_twice(tenant: int | None) -> list[Breach]:
    """A table's pot and rake paid in more than one settlement, or more than its settled
    holds held; a tournament's prizes paid in more than one payout."""
    t, h = CoinTransfer, CoinHold
    found = []
    payouts = db.session.execute(
        select(t.tenant_pk, t.currency, t.match_pk, func.count(t.created_at.distinct()),
               func.sum(t.amount))
        .where(t.kind.in_([TransferKind.POT, TransferKind.RAKE]), t.match_pk.is_not(None),
               *_where(t, tenant))
        .group_by(t.tenant_pk, t.currency, t.match_pk)).all()
    settled = {(tp, c, pk): int(total) for tp, c, pk, total in db.session.execute(
        select(h.tenant_pk, h.currency, h.match_pk, func.sum(h.amount))
        .where(h.status == HoldStatus.SETTLED, h.match_pk.is_not(None), *_where(h, tenant))
        .group_by(h.tenant_pk, h.currency, h.match_pk))}
    for tp, c, pk, batches, paid in payouts:
        if batches > 1:
            found.append(Breach("paid_twice", tp, c, f"match {pk}",
                                f"its pot paid in {batches} settlements"))
        elif int(paid) != settled.get((tp, c, pk), 0):
            found.append(Breach("paid_twice", tp, c, f"match {pk}",
                                f"paid {int(paid)} from settled holds of "
                                f"{settled.get((tp, c, pk), 0)}"))
    for tp, c, pk, batches in db.session.execute(
            select(t.tenant_pk, t.currency, t.tournament_pk,
                   func.count(t.created_at.distinct()))
            .where(t.kind == TransferKind.PRIZE, t.tournament_pk.is_not(None),
                   *_where(t, tenant))
            .group_by(t.tenant_pk, t.currency, t.tournament_pk)):
        if batches > 1:
            found.append(Breach("paid_twice", tp, c, f"tournament {pk}",
                                f"its prizes paid in {batches} payouts"))
    return found
