"""A tournament's purse: the entry fee held from each entrant's wallet in the
tournament's escrow as they join, given back on a withdrawal before the start and on a
cancel, and the pool paid out by the distribution when it finishes (:mod:`.prizes`).
Each happens in the transaction of what causes it, under the tournament's row lock, so
the pool is paid once however many workers race its end; each player's side of each
transfer is told as ``wallet.changed`` in the same transaction."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from ..coins import accounts, ledger
from ..coins.enums import TransferKind
from ..live.listener import CHANNEL
from ..storage.writes import write
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
    :class:`~service.coins.errors.UnknownCurrency`) and distribution (winner takes all
    if none is given); both None when it is free (caller's transaction)."""
    if fee is None:
        return None, None
    ledger.check_currencies(tenant, [fee.currency])
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
    before the entry is made); a fee held already (an arena's entrant back after a
    withdrawal) is not held again."""
    fee = fee_of(t)
    if fee is not None:
        ledger.hold(t.tenant_pk, fee.currency, player_id, accounts.tournament(t.id),
                    fee.amount, TransferKind.FEE, now, tournament_pk=t.pk)


def give_back(t: Tournament, player_id: str, now: datetime) -> None:
    """The player's fee back from the escrow (a withdrawal before the start)."""
    if fee_of(t) is None:
        return
    mine = [h for h in ledger.holds_in(t.tenant_pk, accounts.tournament(t.id))
            if h.player_id == player_id]
    write(ledger.release_rows(t.tenant_pk, mine, now, kind=TransferKind.FEE_RELEASE,
                              tell=True), CHANNEL)


def close(t: Tournament, status: str, final: Sequence[Standing],
          now: datetime) -> dict[str, int] | None:
    """The tournament ends (caller's transaction, under its row lock): cancelled, every
    fee still held given back; finished, every one settled into the pool and the pool
    paid by the distribution, the rest (what does not divide, places nobody holds) to
    the house. What each prize winner was paid. Only holds still held are paid out, so
    an end taken twice pays nothing the second time."""
    fee = fee_of(t)
    if fee is None:
        return None
    held = ledger.holds_in(t.tenant_pk, accounts.tournament(t.id))
    if status == TournamentStatus.CANCELLED:
        write(ledger.release_rows(t.tenant_pk, held, now, kind=TransferKind.FEE_RELEASE,
                                  tell=True), CHANNEL)
        return None
    escrow = accounts.tournament(t.id)
    pool = sum(h.amount for h in held if h.currency == fee.currency)
    paid = shares(pool, t.prizes if t.prizes is not None else WINNER_TAKES_ALL,
                  [Finisher(s.player_id, s.points, s.withdrawn) for s in final])
    transfers = [ledger.Transfer(fee.currency, escrow, accounts.player(player), amount,
                                 TransferKind.PRIZE, tournament_pk=t.pk)
                 for player, amount in paid.items()]
    if pool > sum(paid.values()):
        transfers.append(ledger.Transfer(fee.currency, escrow, accounts.HOUSE,
                                         pool - sum(paid.values()), TransferKind.PRIZE,
                                         tournament_pk=t.pk))
    write(ledger.settle_rows(t.tenant_pk, held, transfers, now, tell=True), CHANNEL)
    return paid
