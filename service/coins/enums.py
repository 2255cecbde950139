"""The coin tables' enumerated values, as ``StrEnum``s: each compares equal to the text
stored, so rows read back as plain strings still compare."""

from __future__ import annotations

from enum import StrEnum


class TransferKind(StrEnum):
    """Why coins moved: each transfer row says one."""

    GRANT = "grant"
    """The front end paid a player from its mint (``POST /v1/transfers`` ``to``)."""
    TAKE = "take"
    """The front end took coins back to its mint (``from``)."""
    ADJUST = "adjust"
    """Staff changed a balance in the console, from or to the mint."""
    STARTING_GRANT = "starting_grant"
    """A new player's grant, paid once, by the front end's settings."""
    HOLD = "hold"
    """A seat's stake moved into its table's escrow."""
    RELEASE = "release"
    """A held stake given back (an abort, a cancel, a seat left, a draw)."""
    POT = "pot"
    """A table's pot paid to a winner."""
    RAKE = "rake"
    """The house's share of a pot, and what of a pot does not divide."""
    REFUND_POT = "refund_pot"
    """A void's reversal of a pot paid out (it may leave the winner in debt)."""
    FEE = "fee"
    """A tournament's entry fee held in its escrow."""
    FEE_RELEASE = "fee_release"
    """An entry fee given back (a withdrawal before the start, a cancel)."""
    PRIZE = "prize"
    """A tournament's prize paid from its pool."""
    ERASURE = "erasure"
    """An erased player's balance returned to the mint."""


class HoldStatus(StrEnum):
    """Where a hold stands: two-phase, held then settled or released."""

    HELD = "held"
    SETTLED = "settled"
    RELEASED = "released"
