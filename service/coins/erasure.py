"""A player's coins in their export, and in their erasure: a positive balance returned
to the mint in a recorded ``erasure`` transfer, then their id replaced by the erasure's
pseudonym in their account ids, their transfers and their holds (the totals stay whole:
the checker finds the same sums under the new name)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select, update

from ..storage.base import utcnow
from ..storage.db import db
from . import accounts, ledger, store
from .enums import TransferKind
from .models import CoinAccount, CoinHold, CoinTransfer
from .service import describe

EXPORTED_TRANSFERS = 100_000
"""An export lists at most this many of the player's transfers (newest first)."""


def export_of(tenant: int, player_id: str) -> dict[str, Any]:
    """The player's wallet and ledger (newest first), as their export shows them (in the
    caller's transaction)."""
    codes = store.currency_codes(tenant)
    found: list[store.TransferRow] = []
    below = None
    while len(found) < EXPORTED_TRANSFERS:
        page = store.ledger_page(tenant, player_id, codes, below, 1000)
        found.extend(page)
        if len(page) < 1000:
            break
        below = page[-1].pk
    return {"wallet": [{"currency": b.currency, "balance": b.balance,
                        "debt": max(-b.balance, 0), "held": b.held}
                       for b in store.wallet(tenant, player_id)],
            "ledger": [describe(row, player_id) for row in found[:EXPORTED_TRANSFERS]]}


def erase(tenant: int, player_id: str, pseudonym: str) -> list[str]:
    """In the erasure's write transaction: the player's positive balances returned to the
    mint (``erasure`` transfers, told to nobody: their one notice is ``player.erased``),
    then ``player:<id>`` renamed ``player:<pseudonym>`` in their accounts and every
    transfer, and their holds' player id replaced (a debt stays, under the new name).
    The erasure transfers' ids."""
    mine, alias = accounts.player(player_id), accounts.player(pseudonym)
    a, t, h = CoinAccount, CoinTransfer, CoinHold
    owned = db.session.execute(select(a.currency, a.balance).where(
        a.tenant_pk == tenant, a.account == mine, a.balance > 0)
        .order_by(a.currency).with_for_update()).all()
    ids = ledger.post(tenant, [
        ledger.Transfer(currency, mine, accounts.MINT, int(balance), TransferKind.ERASURE,
                        reason="player erased") for currency, balance in owned],
        utcnow(), tell=False)
    db.session.execute(update(a).where(a.tenant_pk == tenant, a.account == mine)
                       .values(account=alias))
    for column in (t.debit, t.credit):
        db.session.execute(update(t).where(t.tenant_pk == tenant, column == mine)
                           .values({column.key: alias}))
    db.session.execute(update(h).where(h.tenant_pk == tenant, h.player_id == player_id)
                       .values(player_id=pseudonym))
    return ids
