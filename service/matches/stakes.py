"""Staked tables: each seat holds the table's stake in its escrow from the moment it is
taken (:func:`hold`, in the transaction that seats it: refused before anything changes
when the player is short or in debt), gives it back as it is left (:func:`released`),
and the match's end settles the escrow in the save that records the end (:func:`settle`,
a subscriber to every match change the composition root wires): the winners take the pot
less the rake, a draw or an abort gives the stakes back, a void reverses the settlement.

A staked table seats distinct players vouched for, no bot and no anonymous seat
(:func:`check_stakeable`): every seat holds the same stake, so the pot is the stake times the
seats, and a seat's player is who is paid. Who holds is read off the match's seats (its
vouched players), so a finish asks the database nothing more: the settlement's rows
join the finish's one statement. The match version guard saves a change once, so each
table is settled once, and voided (and reversed) once.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..coins import accounts, ledger
from ..coins.enums import HoldStatus, TransferKind
from ..coins.ledger import Hold, Transfer
from ..engine import team_of
from ..storage.base import utcnow
from ..storage.writes import Rows
from ..tenants.economy import economy_of
from .changes import MatchChanged
from .enums import MatchStatus
from .errors import StakeNeedsPlayers
from .rows import MatchRow, Stake
from .seats import PlayerSpec, distinct_vouched

REMAINDER = "what does not divide"
"""The reason of the house's transfer of a pot's coins that do not split evenly."""


def priced(tenant: int, currency: str, amount: int) -> Stake:
    """The stake of a table made now: the currency checked (``UnknownCurrency``) and the
    front end's rake as its settings say now (kept with the table)."""
    ledger.check_currencies(tenant, [currency])
    economy = economy_of(tenant)
    return Stake(currency, amount, economy.rake_share_bp, economy.rake_cap)


def check_stakeable(who: PlayerSpec, seated: Sequence[str], field: str) -> None:
    """A seat of a staked table: a vouched player not seated there already (no bot, no
    anonymous seat), else :class:`StakeNeedsPlayers`."""
    why = distinct_vouched(who, seated, "a staked table")
    if why is not None:
        raise StakeNeedsPlayers(why, field=field, problem=why)


def check_stakeable_seats(players: Sequence[PlayerSpec]) -> None:
    """Every seat of a staked table to be made: open, or a distinct vouched player."""
    seated: list[str] = []
    for i, who in enumerate(players):
        if not who.open:
            check_stakeable(who, seated, f"players[{i}]")
            assert who.player_id is not None
            seated.append(who.player_id)


def hold(match: MatchRow, player_id: str) -> None:
    """The player's seat at a staked table holds the stake in its escrow, in the caller's
    write transaction (the one that seats them); ``InsufficientFunds`` or ``InDebt``
    (both 409) before anything is written otherwise."""
    stake = match.stake
    assert stake is not None
    ledger.hold(match.tenant, stake.currency, player_id, accounts.table(match.id),
                stake.amount, TransferKind.HOLD, utcnow(), match_pk=match.pk)


def _holds(match: MatchRow, players: Sequence[str]) -> list[Hold]:
    stake = match.stake
    assert stake is not None
    escrow = accounts.table(match.id)
    return [Hold(stake.currency, p, escrow, stake.amount, HoldStatus.HELD, match.pk)
            for p in players]


def released(match: MatchRow, player_id: str) -> list[Rows]:
    """The rows that give a leaving player's stake back (to write with the leave, on the
    live channel: its ``wallet.changed`` event)."""
    return ledger.release_rows(match.tenant, _holds(match, [player_id]), utcnow(), tell=True)


def payout(match: MatchRow) -> list[Transfer]:
    """How a won staked table's escrow is paid out: the pot (the stake times the seats
    holding it) less the rake, split evenly between the winning side's players, the
    rake and what does not divide to the house. Empty for a draw or no winner."""
    stake, holders = match.stake, match.holders
    if stake is None or match.draw or match.winner is None:
        return []
    winners = [p for seat, p in holders if team_of(seat) == match.winner]
    if not winners:
        return []
    pot = stake.amount * len(holders)
    rake = stake.rake_of(pot)
    share, rest = divmod(pot - rake, len(winners))
    escrow, currency = accounts.table(match.id), stake.currency
    paid = [Transfer(currency, escrow, accounts.player(p), share, TransferKind.POT,
                     match_pk=match.pk) for p in winners if share]
    for amount, reason in ((rake, None), (rest, REMAINDER)):
        if amount:
            paid.append(Transfer(currency, escrow, accounts.HOUSE, amount, TransferKind.RAKE,
                                 reason=reason, match_pk=match.pk))
    return paid


def won_by(match: MatchRow) -> dict[str, int]:
    """What each holder of a won staked table won (negative: lost): their share of the
    pot less their stake (fair play's coins between a pair). Empty when unstaked or
    drawn (every stake went back)."""
    stake, paid = match.stake, payout(match)
    if stake is None or not paid:
        return {}
    holder = {accounts.player(p): p for _, p in match.holders}
    won = {p: -stake.amount for p in holder.values()}
    for t in paid:
        if t.kind == TransferKind.POT:
            won[holder[t.credit]] += t.amount
    return won


def reversal(match: MatchRow) -> list[Transfer]:
    """What voiding a settled staked table moves: each payout paid back to the escrow
    (a winner who spent it goes below zero by that much, a debt), then every stake back
    to its holder. Empty when nothing was paid out (a draw: the stakes went back)."""
    paid = payout(match)
    if not paid:
        return []
    stake = match.stake
    assert stake is not None
    escrow = accounts.table(match.id)
    back = [Transfer(t.currency, t.credit, t.debit, t.amount, TransferKind.REFUND_POT,
                     reason=t.reason, match_pk=match.pk) for t in paid]
    back.extend(Transfer(stake.currency, escrow, accounts.player(p), stake.amount,
                         TransferKind.RELEASE, match_pk=match.pk) for _, p in match.holders)
    return back


def settle(change: MatchChanged) -> list[Rows]:
    """A staked table's settlement, written with the change that ends it (a subscriber
    to every match change): won, the holds settled and the escrow paid out; drawn,
    aborted (a seat, a cancel) or never filled, the holds released; voided, the
    settlement reversed. Each player's ``wallet.changed`` rides the same save."""
    match = change.match
    if match.stake is None or not match.holders:
        return []
    tenant, at = match.tenant, match.updated_at
    if change.voided:
        return ledger.transfer_rows(tenant, reversal(match), at, tell=True)
    if not change.ended:
        return []
    holds = _holds(match, [p for _, p in match.holders])
    paid = payout(match) if match.status == MatchStatus.FINISHED else []
    if paid:
        return ledger.settle_rows(tenant, holds, paid, at, tell=True)
    return ledger.release_rows(tenant, holds, at, tell=True)
