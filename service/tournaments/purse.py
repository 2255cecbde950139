"""A tournament's purse: the entry fee held from each entrant's wallet in the
tournament's escrow as they join, given back on a withdrawal before the start and on a
cancel, and the pool paid out by the distribution when it finishes (:mod:`.prizes`).
Each happens in the transaction of what causes it, under the tournament's row lock, so
the pool is paid once however many workers race its end."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from ..coins import accounts, ledger
from ..coins.enums import TransferKind
from .enums import TournamentStatus
from .models import Tournament
from .pairing import Standing
from .prizes import Finisher, shares

WINNER_TAKES_ALL = [100]
"""The distribution of a tournament with an entry fee and none set."""


@dataclass(frozen=True)
class Fee:
    """A tournament's entry fee."""

    currency: str
    amount: int


def terms(tenant: int, fee: Fee | None, prizes: list[int] | None
          ) -> tuple[Fee | None, list[int] | None]:
    """A new tournament's fee (its currency one of the front end's:
    :class:`~service.coins.errors.UnknownCurrency`) and distribution (the default if
    none); both None when it is free."""
    if fee is None:
        return None, None
    ledger.check_currency(tenant, fee.currency)
    return fee, list(prizes) if prizes is not None else list(WINNER_TAKES_ALL)


def fee_of(t: Tournament) -> Fee | None:
    if t.fee_currency is None or t.fee_amount is None:
        return None
    return Fee(t.fee_currency, int(t.fee_amount))


def pool_of(t: Tournament, entered: int) -> int:
    """The prize pool of ``entered`` entries (withdrawals once it runs included)."""
    fee = fee_of(t)
    if fee is None or t.status == TournamentStatus.CANCELLED:
        return 0
    return fee.amount * entered


def hold_fee(t: Tournament, player_id: str, now: datetime) -> None:
    """Hold the entry fee from the player's wallet in the escrow (caller's transaction,
    before the entry is made); a fee held already (an arena's entrant back) is not held
    again."""
    fee = fee_of(t)
    if fee is None:
        return
    ledger.hold(t.tenant_pk, fee.currency, player_id, accounts.tournament(t.id),
                fee.amount, TransferKind.FEE, now, tournament_pk=t.pk)


def give_back(t: Tournament, player_id: str, now: datetime) -> None:
    """The player's fee back from the escrow (a withdrawal before the start)."""
    fee = fee_of(t)
    if fee is None:
        return
    ledger.release(t.tenant_pk, accounts.tournament(t.id), TransferKind.FEE_RELEASE, now,
                   players=[player_id], tournament_pk=t.pk)


def close(t: Tournament, status: str, final: Sequence[Standing],
          now: datetime) -> dict[str, int] | None:
    """The tournament ends: cancelled, every fee given back; finished, every hold
    settled into the pool and the pool paid by the distribution, the rest (what does not
    divide, places nobody holds) to the house. What each prize winner was paid."""
    fee = fee_of(t)
    if fee is None:
        return None
    escrow = accounts.tournament(t.id)
    if status == TournamentStatus.CANCELLED:
        ledger.release(t.tenant_pk, escrow, TransferKind.FEE_RELEASE, now,
                       tournament_pk=t.pk)
        return None
    pool = ledger.settle(t.tenant_pk, escrow, now, tournament_pk=t.pk)
    paid = shares(pool, t.prizes or WINNER_TAKES_ALL,
                  [Finisher(s.player_id, s.points, s.withdrawn) for s in final])
    transfers = [ledger.Transfer(fee.currency, escrow, accounts.player(player), amount,
                                 TransferKind.PRIZE, tournament_pk=t.pk,
                                 idempotency_key=f"prize:{t.id}:{player}")
                 for player, amount in paid.items()]
    rest = pool - sum(paid.values())
    if rest > 0:
        transfers.append(ledger.Transfer(fee.currency, escrow, accounts.HOUSE, rest,
                                         TransferKind.PRIZE, tournament_pk=t.pk,
                                         idempotency_key=f"prize:{t.id}:house"))
    ledger.post(t.tenant_pk, transfers, now)
    return paid
