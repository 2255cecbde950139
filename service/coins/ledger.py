"""The double-entry ledger: every coin moves in a transfer between two accounts, one
append-only row, and each account's balance changes by it in the same transaction.

Pure-ish functions: the caller owns the transaction. :func:`transfer_rows` (and the holds'
:func:`release_rows` and :func:`settle_rows`) describe the rows to write with another
change (a match's finishing save, through :func:`service.storage.writes.save_if`);
:func:`post` and :func:`hold` write now, in the caller's write transaction, refusing what
would take an account below zero by a guarded UPDATE, so two racing transfers never
overdraw.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from sqlalchemy import delete, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite

from .. import events
from ..live.listener import CHANNEL
from ..storage.db import backend, db
from ..storage.writes import Rows, write
from . import accounts
from .enums import HoldStatus, TransferKind
from .errors import InDebt, InsufficientFunds, UnknownCurrency
from .models import CoinAccount, CoinHold, CoinTransfer, Currency

_A = CoinAccount.__table__
_T = CoinTransfer.__table__
_H = CoinHold.__table__


@dataclass(frozen=True)
class Transfer:
    """Coins to move: ``amount`` (> 0) of ``currency`` from ``debit`` to ``credit``."""

    currency: str
    debit: str
    credit: str
    amount: int
    kind: TransferKind
    reason: str | None = None
    reference: str | None = None
    match_pk: int | None = None
    tournament_pk: int | None = None
    idempotency_key: str | None = None
    id: str | None = None
    """Its public id; made when it is written if not given (:func:`stamped`)."""


def new_id() -> str:
    """A transfer's public id."""
    return "tr_" + secrets.token_hex(12)


def stamped(transfers: Sequence[Transfer]) -> list[Transfer]:
    """The transfers, each with its public id (a caller that tells of them before they
    are written stamps them first)."""
    return [t if t.id else replace(t, id=new_id()) for t in transfers]


def net(transfers: Iterable[Transfer]) -> dict[tuple[str, str], int]:
    """Each touched (currency, account)'s change, credits minus debits, in a stable
    order (the order accounts are locked in)."""
    deltas: dict[tuple[str, str], int] = {}
    for t in transfers:
        if t.amount <= 0:
            raise ValueError(f"a transfer moves a positive amount, not {t.amount}")
        if t.debit == t.credit:
            raise ValueError(f"a transfer between {t.debit} and itself")
        deltas[(t.currency, t.debit)] = deltas.get((t.currency, t.debit), 0) - t.amount
        deltas[(t.currency, t.credit)] = deltas.get((t.currency, t.credit), 0) + t.amount
    return dict(sorted(deltas.items()))


def _row(tenant_pk: int, t: Transfer, at: datetime) -> dict[str, Any]:
    return {"id": t.id or new_id(), "tenant_pk": tenant_pk, "currency": t.currency,
            "debit": t.debit, "credit": t.credit, "amount": t.amount, "kind": str(t.kind),
            "reason": t.reason, "reference": t.reference, "match_pk": t.match_pk,
            "tournament_pk": t.tournament_pk, "idempotency_key": t.idempotency_key,
            "created_at": at}


def wire(t: Transfer, at: datetime) -> dict[str, Any]:
    """A transfer as the API and the ``wallet.changed`` event show it (stamped)."""
    return {"id": t.id, "currency": t.currency, "amount": t.amount, "kind": str(t.kind),
            "from": accounts.describe(t.debit), "to": accounts.describe(t.credit),
            "reason": t.reason, "reference": t.reference,
            "created_at": at.isoformat().replace("+00:00", "Z")}


def wallet_events(tenant_pk: int, transfers: Sequence[Transfer], at: datetime) -> list[Rows]:
    """The rows that tell ``wallet.changed`` of each player's side of ``transfers``
    (stamped: their ids are the ones written), on that player's stream and to the
    front end's webhooks, for a caller writing them with a change of its own (on
    :data:`~service.live.listener.CHANNEL`, as :func:`events.told` says)."""
    told = []
    for t in transfers:
        assert t.id, "stamp the transfers first (ledger.stamped): the events name them"
        for account, sign in ((t.debit, -1), (t.credit, 1)):
            player = accounts.player_of(account)
            if player is not None:
                told.append(events.event("wallet.changed", {
                    "player_id": player, "currency": t.currency, "change": sign * t.amount,
                    "transfer": wire(t, at)}, [player]))
    return events.told(tenant_pk, told) if told else []


def transfer_rows(tenant_pk: int, transfers: Sequence[Transfer], at: datetime, *,
                  tell: bool = False) -> list[Rows]:
    """The rows to write WITH another change (e.g. a match's finishing save through
    :func:`service.storage.writes.save_if`): the transfer rows inserted and each touched
    account's balance changed by its NET delta, an account missing made with it (one
    upsert row per account: a PostgreSQL statement upserts a row once, and refuses the
    whole change otherwise, so call this once per statement with every transfer it
    writes; :func:`ended_holds_rows` ends holds both ways so). Nothing is refused here: the caller
    checked (a held stake is in its escrow already), and a void's reversal may leave a
    winner in debt on purpose. With ``tell``, the ``wallet.changed`` events' rows too
    (:func:`wallet_events`: write them on ``CHANNEL``); else tell them yourself."""
    if not transfers:
        return []
    transfers = stamped(transfers)
    # every account touched, at a net of 0 too: an account of the ledger is an account
    deltas = [{"tenant_pk": tenant_pk, "currency": currency, "account": account,
               "balance": delta} for (currency, account), delta in net(transfers).items()]
    return [Rows(_T, tuple(_row(tenant_pk, t, at) for t in transfers)),
            Rows(_A, tuple(deltas), add=True, upsert=True),
            *(wallet_events(tenant_pk, transfers, at) if tell else [])]


# --- writing now, in the caller's transaction ------------------------------------------


def check_currencies(tenant_pk: int, codes: Iterable[str]) -> None:
    """UnknownCurrency unless the front end has named every one of ``codes``."""
    wanted = set(codes)
    found = set(db.session.execute(select(Currency.code).where(
        Currency.tenant_pk == tenant_pk, Currency.code.in_(wanted))).scalars())
    missing = sorted(wanted - found)
    if missing:
        raise UnknownCurrency(f"no currency {missing[0]!r} at this front end",
                              field="currency")


def open_accounts(tenant_pk: int, currency: str, names: Iterable[str], at: datetime) -> None:
    """Make the accounts ``names`` of ``currency`` that do not exist yet, at zero (the
    currency exists: the caller checked)."""
    rows = [{"tenant_pk": tenant_pk, "currency": currency, "account": name, "balance": 0,
             "created_at": at} for name in sorted(set(names))]
    if rows:
        dialect = postgresql if backend() == "postgresql" else sqlite
        db.session.execute(dialect.insert(_A).on_conflict_do_nothing(), rows)


def _move(tenant_pk: int, currency: str, account: str, delta: int) -> bool:
    """Change one balance by ``delta``; a decrease of any account but the mint only if
    it leaves the balance at zero or more. Whether it did."""
    stmt = update(_A).where(_A.c.tenant_pk == tenant_pk, _A.c.currency == currency,
                            _A.c.account == account).values(balance=_A.c.balance + delta)
    if delta < 0 and account != accounts.MINT:
        stmt = stmt.where(_A.c.balance >= -delta)
    return bool(db.session.execute(stmt).rowcount == 1)  # type: ignore[attr-defined]


def balance(tenant_pk: int, currency: str, account: str) -> int | None:
    """An account's balance (None: no such account)."""
    return db.session.execute(select(_A.c.balance).where(
        _A.c.tenant_pk == tenant_pk, _A.c.currency == currency,
        _A.c.account == account)).scalar_one_or_none()


def post(tenant_pk: int, transfers: Sequence[Transfer], at: datetime, *,
         tell: bool = True) -> list[str]:
    """Write ``transfers`` now, in the caller's write transaction, creating missing
    accounts; refuses (:class:`InsufficientFunds`, 409 ``insufficient_funds``) any that
    would take an account but the mint below zero, checked by a guarded UPDATE (balance
    >= amount), so two racing transfers never overdraw (the caller's transaction rolls
    back what was done before the refusal). Tells ``wallet.changed`` (unless not
    ``tell``). Returns the public transfer ids."""
    if not transfers:
        return []
    transfers = stamped(transfers)
    deltas = net(transfers)
    check_currencies(tenant_pk, {currency for currency, _ in deltas})
    for currency in sorted({currency for currency, _ in deltas}):
        open_accounts(tenant_pk, currency, [a for c, a in deltas if c == currency], at)
    for (currency, account), delta in deltas.items():  # locked in one order: no deadlock
        if delta and not _move(tenant_pk, currency, account, delta):
            raise InsufficientFunds(f"{account} has fewer than {-delta} {currency}",
                                    field="amount")
    db.session.execute(insert(_T), [_row(tenant_pk, t, at) for t in transfers])
    if tell:
        write(wallet_events(tenant_pk, transfers, at), CHANNEL)
    return [t.id for t in transfers if t.id]


# --- holds: two-phase, held then settled or released -----------------------------------


@dataclass(frozen=True)
class Hold:
    """A player's coins held in an escrow."""

    currency: str
    player_id: str
    escrow: str
    amount: int
    status: HoldStatus
    match_pk: int | None = None
    tournament_pk: int | None = None


def hold(tenant_pk: int, currency: str, player_id: str, escrow: str, amount: int,
         kind: TransferKind, at: datetime, *, match_pk: int | None = None,
         tournament_pk: int | None = None, tell: bool = True) -> None:
    """Move ``amount`` from the player's account to ``escrow`` and record a held
    coin_holds row, in the caller's write transaction; :class:`InsufficientFunds` (409
    ``insufficient_funds``) if the balance is short, :class:`InDebt` (409 ``in_debt``)
    if it is below zero, the hold row then left as it was. Creates the escrow account
    (and the player's). Holding again for the same (escrow, player, currency) while it
    is held or settled is a no-op; a released hold is held again. Tells
    ``wallet.changed`` (unless not ``tell``)."""
    if amount <= 0:
        raise ValueError(f"a hold holds a positive amount, not {amount}")
    check_currencies(tenant_pk, [currency])
    key = (_H.c.tenant_pk == tenant_pk, _H.c.escrow == escrow, _H.c.player_id == player_id,
           _H.c.currency == currency)
    held = {"status": HoldStatus.HELD, "amount": amount, "match_pk": match_pk,
            "tournament_pk": tournament_pk, "created_at": at, "ended_at": None}
    dialect = postgresql if backend() == "postgresql" else sqlite
    made = db.session.execute(dialect.insert(_H).values(
        tenant_pk=tenant_pk, currency=currency, player_id=player_id, escrow=escrow, **held,
    ).on_conflict_do_nothing().returning(_H.c.pk)).scalar_one_or_none()
    before = None
    if made is None:  # held before: again only if released since
        before = db.session.execute(select(_H).where(*key).with_for_update()).one()
        if before.status != HoldStatus.RELEASED:
            return
        db.session.execute(update(_H).where(*key).values(**held))
    mine = accounts.player(player_id)
    open_accounts(tenant_pk, currency, [mine, escrow], at)
    if not _move(tenant_pk, currency, mine, -amount):
        if made is not None:
            db.session.execute(delete(_H).where(_H.c.pk == made))
        else:
            assert before is not None
            db.session.execute(update(_H).where(*key).values(
                {name: getattr(before, name) for name in held}))
        if (balance(tenant_pk, currency, mine) or 0) < 0:
            raise InDebt(f"player {player_id!r} owes {currency}: no stakes until repaid")
        raise InsufficientFunds(f"player {player_id!r} has fewer than {amount} {currency}",
                                field="amount")
    _move(tenant_pk, currency, escrow, amount)
    moved = Transfer(currency, mine, escrow, amount, kind, match_pk=match_pk,
                     tournament_pk=tournament_pk, id=new_id())
    db.session.execute(insert(_T), [_row(tenant_pk, moved, at)])
    if tell:
        write(wallet_events(tenant_pk, [moved], at), CHANNEL)


def holds_in(tenant_pk: int, escrow: str, *, status: HoldStatus | None = HoldStatus.HELD
             ) -> list[Hold]:
    """The holds of an escrow (those still held, or of ``status``; None: all), in
    player order."""
    stmt = select(_H).where(_H.c.tenant_pk == tenant_pk, _H.c.escrow == escrow)
    if status is not None:
        stmt = stmt.where(_H.c.status == status)
    return [Hold(r.currency, r.player_id, r.escrow, r.amount, HoldStatus(r.status),
                 r.match_pk, r.tournament_pk)
            for r in db.session.execute(stmt.order_by(_H.c.player_id, _H.c.currency))]


def ended_rows(tenant_pk: int, holds: Sequence[Hold], status: HoldStatus,
               at: datetime) -> Rows:
    """The hold rows of ``holds`` marked ``status`` (settled or released) where still
    held, keyed by (escrow, player, currency)."""
    return Rows(_H, tuple({"tenant_pk": tenant_pk, "escrow": h.escrow,
                           "player_id": h.player_id, "currency": h.currency,
                           "status": str(status), "ended_at": at} for h in holds),
                key=("tenant_pk", "escrow", "player_id", "currency"),
                where=(("status", str(HoldStatus.HELD)),))


def release_rows(tenant_pk: int, holds: Sequence[Hold], at: datetime, *,
                 kind: TransferKind = TransferKind.RELEASE,
                 transfers: Sequence[Transfer] = (), tell: bool = False) -> list[Rows]:
    """Rows to write with a change: ``holds`` released, each one's amount paid back from
    its escrow to its player in a transfer of ``kind`` (release, or fee_release), with
    any other ``transfers`` of the same change (one account update per account). The
    caller's change guards them (a match's version): the hold rows alone are guarded by
    their status. ``tell``: as :func:`transfer_rows`'s."""
    return ended_holds_rows(tenant_pk, at, released=holds, release_kind=kind,
                            transfers=transfers, tell=tell)


def settle_rows(tenant_pk: int, holds: Sequence[Hold], transfers: Sequence[Transfer],
                at: datetime, *, tell: bool = False) -> list[Rows]:
    """Rows to write with a change: ``holds`` settled, and the ``transfers`` that pay
    their escrow out (the pot to the winners, the rake and what does not divide to the
    house), all in one account update per account. ``tell``: as
    :func:`transfer_rows`'s."""
    return ended_holds_rows(tenant_pk, at, settled=holds, transfers=transfers, tell=tell)


def ended_holds_rows(tenant_pk: int, at: datetime, *, released: Sequence[Hold] = (),
                     settled: Sequence[Hold] = (), transfers: Sequence[Transfer] = (),
                     release_kind: TransferKind = TransferKind.RELEASE,
                     tell: bool = False) -> list[Rows]:
    """Rows to write with one change that ends holds both ways (some released, paid
    back in transfers of ``release_kind``; some settled, paid out by ``transfers``):
    every transfer in one :func:`transfer_rows`, as a statement must (calling
    :func:`release_rows` and :func:`settle_rows` for one statement would upsert their
    shared escrow twice, which PostgreSQL refuses: "ON CONFLICT DO UPDATE command cannot
    affect row a second time", the whole change rolled back)."""
    back = [Transfer(h.currency, h.escrow, accounts.player(h.player_id), h.amount,
                     release_kind, match_pk=h.match_pk, tournament_pk=h.tournament_pk)
            for h in released]
    ended = [ended_rows(tenant_pk, group, status, at)
             for group, status in ((released, HoldStatus.RELEASED),
                                   (settled, HoldStatus.SETTLED)) if group]
    return [*ended, *transfer_rows(tenant_pk, [*back, *transfers], at, tell=tell)]
