"""Bodies of the coins' routes: currencies, wallets, ledgers and transfers."""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from marshmallow import validate

from ..players.schemas import PLAYER_ID_FIELD
from ..web.fields import JsonInteger, UTCDateTime
from .enums import TransferKind
from .service import CODE

MAX_AMOUNT = 10**15
"""The most one transfer moves (a balance's column holds 9.2 * 10^18)."""
CODE_RULE = ("the currency's code: an upper-case letter, then up to 15 of A-Z 0-9 _ (such "
             "as `COINS`)")
CODE_FIELD: dict[str, Any] = {"validate": validate.Regexp(CODE.pattern + r"\Z",
                                          error="an upper-case letter, then up to 15 of "
                                          "A-Z 0-9 _"),
              "metadata": {"description": CODE_RULE}}


class CurrencyBodySchema(ma.Schema):
    """A currency to name."""

    name = ma.fields.String(required=True, validate=validate.Length(min=1, max=64),
                            metadata={"description": "its display name"})


class CurrencySchema(ma.Schema):
    """A currency of the front end."""

    code = ma.fields.String(required=True)
    name = ma.fields.String(required=True)
    created_at = UTCDateTime(required=True)


class CurrenciesSchema(ma.Schema):
    currencies = ma.fields.List(ma.fields.Nested(CurrencySchema), required=True)


class BalanceSchema(ma.Schema):
    """A player's coins in one currency."""

    currency = ma.fields.String(required=True)
    name = ma.fields.String(required=True, metadata={"description": "the currency's name"})
    balance = ma.fields.Integer(required=True, metadata={
        "description": "what they may spend; below zero only after a voided win they had "
        "spent (then `debt`)"})
    debt = ma.fields.Integer(required=True, metadata={
        "description": "what they owe (0 but after a void): no staked play until repaid"})
    held = ma.fields.Integer(required=True, metadata={
        "description": "in escrow: stakes at tables and entry fees not yet settled or "
        "released (not in `balance`)"})


class WalletSchema(ma.Schema):
    """A player's wallet: a balance in each of the front end's currencies."""

    player_id = ma.fields.String(required=True)
    balances = ma.fields.List(ma.fields.Nested(BalanceSchema), required=True)


class AccountSchema(ma.Schema):
    """One side of a transfer: a player's account, a table's or a tournament's escrow, the
    house (the rake, and what does not divide) or the mint (what the front end issues)."""

    account = ma.fields.String(required=True, validate=validate.OneOf(
        ["player", "table", "tournament", "house", "mint"]))
    player_id = ma.fields.String(metadata={"description": "a player's account: whose"})
    match_id = ma.fields.String(metadata={"description": "a table's escrow: its match"})
    tournament_id = ma.fields.String(metadata={"description": "a tournament's escrow"})


class _Rendered(ma.Schema):
    """A schema whose objects are rendered by hand (:func:`service.coins.service.describe`:
    a page of 50 transfers, 150 nested dumps, cost more than its query); the fields are
    the contract, and ``tests/coins/test_wallets.py`` loads what is sent with them."""

    def dump(self, obj: Any, *, many: bool | None = None) -> Any:
        return obj


class TransferSchema(_Rendered):
    """Coins moved from one account to another: one row of the ledger, never changed."""

    id = ma.fields.String(required=True, metadata={"example": "tr_4f1c0b9a2e7d6c5b4a3f2e1d"})
    currency = ma.fields.String(required=True)
    amount = ma.fields.Integer(required=True, metadata={"description": "always above 0"})
    kind = ma.fields.String(required=True, validate=validate.OneOf(
        [k.value for k in TransferKind]))
    from_ = ma.fields.Nested(AccountSchema, required=True, data_key="from", attribute="from")
    to = ma.fields.Nested(AccountSchema, required=True)
    reason = ma.fields.String(required=True, allow_none=True)
    reference = ma.fields.String(required=True, allow_none=True, metadata={
        "description": "the front end's own (a store receipt's id)"})
    created_at = UTCDateTime(required=True)


class LedgerEntrySchema(TransferSchema):
    """A transfer in a player's ledger."""

    change = ma.fields.Integer(required=True, metadata={
        "description": "what it did to the player's balance: +amount or -amount"})


class LedgerQuerySchema(ma.Schema):
    """A page of a player's ledger."""

    currency = ma.fields.String(**CODE_FIELD)
    cursor = ma.fields.String(validate=validate.Length(max=200), metadata={
        "description": "the `next` of the page before"})
    limit = ma.fields.Integer(load_default=50, validate=validate.Range(min=1, max=200))


class LedgerPageSchema(_Rendered):
    """A player's transfers, newest first."""

    player_id = ma.fields.String(required=True)
    transfers = ma.fields.List(ma.fields.Nested(LedgerEntrySchema), required=True)
    next = ma.fields.String(required=True, allow_none=True, metadata={
        "description": "the cursor of the next page (null: the last)"})


class NewTransferSchema(ma.Schema):
    """Coins granted to a player from the front end's mint (``to``) or taken back to it
    (``from``)."""

    currency = ma.fields.String(required=True, **CODE_FIELD)
    amount = JsonInteger(required=True, validate=validate.Range(min=1, max=MAX_AMOUNT))
    to = ma.fields.String(**{**PLAYER_ID_FIELD, "metadata": {
        "description": "the player paid from the mint (or `from`)"}})
    from_ = ma.fields.String(data_key="from", **{**PLAYER_ID_FIELD, "metadata": {
        "description": "the player whose coins go back to the mint (or `to`)"}})
    reason = ma.fields.String(required=True, validate=validate.Length(min=1, max=500),
                              metadata={"description": "why, as the ledger keeps it"})
    reference = ma.fields.String(validate=validate.Length(min=1, max=200), metadata={
        "description": "your own, such as a store receipt's id"})

    @ma.validates_schema
    def _one_side(self, data: dict[str, object], **_: object) -> None:
        if ("to" in data) == ("from_" in data):
            raise ma.ValidationError("give one of `to` (a grant) and `from` (a take)",
                                     field_name="to")


class AdjustmentSchema(ma.Schema):
    """Staff's change to a player's balance: from the mint (above zero) or back to it
    (below zero)."""

    currency = ma.fields.String(required=True, **CODE_FIELD)
    amount = JsonInteger(required=True, validate=[
        validate.Range(min=-MAX_AMOUNT, max=MAX_AMOUNT),
        validate.NoneOf([0], error="an adjustment moves coins: not 0")], metadata={
        "description": "added to the balance (from the mint), or below zero taken from it "
        "(never below zero)"})
    reason = ma.fields.String(required=True, validate=validate.Length(min=1, max=500))
